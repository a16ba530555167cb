package chstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/models"
)

// rollups is the whole of event_aggregates, summed per key, as text.
func rollups(t *testing.T, c *chstore.Client) string {
	t.Helper()
	var b strings.Builder
	err := c.Query(context.Background(), "SELECT workspace_id, event, dim, toString(hour), value, sum(count), sum(amount) FROM event_aggregates GROUP BY workspace_id, event, dim, hour, value HAVING sum(count) != 0 ORDER BY workspace_id, event, dim, hour, value",
		func(cols []string) error { b.WriteString(strings.Join(cols, "|") + "\n"); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRebuildRollups: the rebuild recomputes the rollups from the raw
// rows, week and four-week rows spanning two months included: rows that do not belong
// are gone, --from leaves earlier months alone, a stopped rebuild resumes
// after the last month it replaced, and a workspace whose old raw clicks
// retention deleted keeps their rollups.
func TestRebuildRollups(t *testing.T) {
	eachCH(t, func(t *testing.T, c *chstore.Client) {
		ctx := context.Background()
		at := func(s string) time.Time {
			v, err := time.Parse("2006-01-02 15:04", s)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		var batch []models.Click
		for ws, times := range map[string][]string{
			// 2026-10-26 is a Monday: its week row (October's partition)
			// counts the clicks of November 1st.
			"ws_a": {"2026-10-05 10:00", "2026-10-31 23:30", "2026-11-01 01:00", "2026-11-20 08:00"},
			"ws_b": {"2026-10-03 09:00", "2026-10-20 12:00", "2026-11-10 18:00"},
		} {
			for i, s := range times {
				cl := clicks(1, ws, at(s))[0]
				cl.Country = []string{"US", "DE"}[i%2]
				batch = append(batch, cl)
			}
		}
		if err := c.InsertClicks(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if err := c.Insert(ctx, "sale_events", []any{map[string]any{"workspace_id": "ws_a", "ts": at("2026-11-02 10:00").UnixMicro(), "event_id": "s1", "link_id": "link_x", "amount": 700}}); err != nil {
			t.Fatal(err)
		}
		want := rollups(t, c)
		if !strings.Contains(want, "ws_a|click|link@week|2026-10-26 00:00:00|link_x|2") {
			t.Fatalf("fixture: no week row spanning October and November:\n%s", want)
		}
		// The four-week block from 2026-10-26 (October's partition) counts
		// clicks up to November 20th, 25 days past October.
		if !strings.Contains(want, "ws_a|click|link@4week|2026-10-26 00:00:00|link_x|3") {
			t.Fatalf("fixture: no four-week row spanning October and November:\n%s", want)
		}
		// Retention deleted ws_b's click of October 3rd (its rollups stay).
		if _, err := c.DeleteClicksBefore(ctx, "ws_b", at("2026-10-15 00:00")); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); count(t, c, "SELECT count() FROM clicks WHERE workspace_id = 'ws_b'") != "2"; {
			if time.Now().After(deadline) {
				t.Fatal("the retention delete did not run")
			}
			time.Sleep(100 * time.Millisecond)
		}
		// Rows that do not belong, in October and November.
		for _, h := range []string{"2026-10-12 00:00:00", "2026-11-16 00:00:00"} {
			if err := c.Exec(ctx, "INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) VALUES ('ws_a', 'click', 'country', toDateTime('"+h+"', 'UTC'), 'bogus', 5, 0)"); err != nil {
				t.Fatal(err)
			}
		}
		if err := (&chstore.Rebuild{CH: c, From: at("2026-11-01 00:00")}).Run(ctx); err != nil {
			t.Fatal(err)
		}
		if n := count(t, c, "SELECT toString(min(hour)) FROM event_aggregates WHERE value = 'bogus'"); n != "2026-10-12 00:00:00" {
			t.Fatalf("after a rebuild from November the bogus rows start at %s, want October's only", n)
		}
		// Everything, stopped after the first month, then resumed.
		stop := errors.New("stopped")
		cctx, cancel := context.WithCancelCause(ctx)
		if err := (&chstore.Rebuild{CH: c, Progress: func(chstore.RebuildProgress) { cancel(stop) }}).Run(cctx); err == nil {
			t.Fatal("the stopped rebuild reported success")
		}
		var months []string
		if err := (&chstore.Rebuild{CH: c, Progress: func(p chstore.RebuildProgress) { months = append(months, p.Month) }}).Run(ctx); err != nil {
			t.Fatal(err)
		}
		// The months are those of the rollups' rows: the week of October
		// 3rd starts on September 28th.
		if strings.Join(months, ",") != "2026-10,2026-11" {
			t.Fatalf("the resumed rebuild replaced %v, want October and November (September was done)", months)
		}
		if got := rollups(t, c); got != want {
			t.Fatalf("rebuilt rollups\n%s\nwant\n%s", got, want)
		}
		// A finished run is not resumed: the next one replaces every month.
		months = nil
		if err := (&chstore.Rebuild{CH: c, Progress: func(p chstore.RebuildProgress) { months = append(months, p.Month) }}).Run(ctx); err != nil {
			t.Fatal(err)
		}
		if got := rollups(t, c); strings.Join(months, ",") != "2026-09,2026-10,2026-11" || got != want {
			t.Fatalf("second full rebuild: months %v, rollups\n%s", months, got)
		}
	})
}
