package analytics

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
)

// TestChSpanSelectsOneRead: a signed cover's spans are read by one SELECT
// (the OR of their key ranges, the sign per row), and the sums are the
// UNION ALL's of one SELECT per span: added and subtracted spans of several
// grains, a span that selects nothing, and spans of one grain that overlap
// (the same block subtracted twice), which chSpanGroups puts in SELECTs of
// their own so that their rows count once per span.
func TestChSpanSelectsOneRead(t *testing.T) {
	chtest.Each(t, func(t *testing.T, u string) {
		ctx := context.Background()
		ch, err := chstore.Open(u)
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.Migrate(ctx, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
			t.Fatal(err)
		}
		day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC) // a Monday
		// Link a: 1 per hour, 24 per day, 168 per week (the week of day);
		// link b: 10 per hour on the first day only; amounts 3 per event.
		if err := ch.Exec(ctx, `INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) VALUES
			('ws', 'sale', 'link', toDateTime(`+unix(day)+`), 'a', 1, 3),
			('ws', 'sale', 'link', toDateTime(`+unix(day.Add(time.Hour))+`), 'a', 1, 3),
			('ws', 'sale', 'link', toDateTime(`+unix(day)+`), 'b', 10, 30),
			('ws', 'sale', 'link@day', toDateTime(`+unix(day)+`), 'a', 24, 72),
			('ws', 'sale', 'link@day', toDateTime(`+unix(day)+`), 'b', 240, 720),
			('ws', 'sale', 'link@week', toDateTime(`+unix(day)+`), 'a', 168, 504),
			('ws', 'other', 'link@week', toDateTime(`+unix(day)+`), 'a', 1000, 0),
			('ws2', 'sale', 'link@week', toDateTime(`+unix(day)+`), 'a', 1000, 0)`); err != nil {
			t.Fatal(err)
		}
		e := &SQLEngine{CH: ch, Now: time.Now}
		s := &scope{wsID: "ws", q: &Query{}}
		k := kSale
		h := func(n int) time.Time { return day.Add(time.Duration(n) * time.Hour) }
		for _, c := range []struct {
			name    string
			spans   []span
			selects int
			want    map[string]counts
		}{
			{"week minus day plus hour", []span{{day, h(168), weekly, false}, {day, h(24), daily, true}, {day, h(2), hourly, false}, {h(48), h(48), hourly, false}}, 1,
				map[string]counts{"a": {n: 168 - 24 + 2, amount: 504 - 72 + 6}, "b": {n: 10 - 240, amount: 30 - 720}}},
			{"subtracted only", []span{{day, h(24), daily, true}}, 1,
				map[string]counts{"a": {n: -24, amount: -72}, "b": {n: -240, amount: -720}}},
			{"a day subtracted twice", []span{{day, h(168), weekly, false}, {day, h(24), daily, true}, {day, h(48), daily, true}, {day, h(1), hourly, false}}, 2,
				map[string]counts{"a": {n: 168 - 48 + 1, amount: 504 - 144 + 3}, "b": {n: 10 - 480, amount: 30 - 1440}}},
		} {
			if n := len(e.chSpanSelects(s, k, "link", c.spans, nil, "value")); n != c.selects {
				t.Errorf("%s: %d SELECTs, want %d", c.name, n, c.selects)
			}
			got, err := e.chReadAggregates(ctx, s, k, keySpec{kind: keyLink}, "link", c.spans, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(got) != len(c.want) || got["a"] != c.want["a"] || got["b"] != c.want["b"] {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			}
		}
	})
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
