package embed_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// commission stores a commission for the tenant's partner directly, to place
// it in time and status.
func (e *env) commission(tenant, linkID, typ, status string, earnings int64, at time.Time) {
	e.t.Helper()
	ctx := context.Background()
	prog, err := e.db.DefaultProgram(ctx, e.ws.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	en, err := e.db.EnrollmentByTenant(ctx, e.ws.ID, prog.ID, tenant)
	if err != nil {
		e.t.Fatal(err)
	}
	c := &models.Commission{ID: ids.New(ids.Commission), WorkspaceID: e.ws.ID, ProgramID: prog.ID, PartnerID: en.PartnerID,
		LinkID: &linkID, Type: typ, Amount: earnings * 5, Earnings: earnings, Currency: "usd", Status: status, Quantity: 1,
		CreatedAt: at, UpdatedAt: at}
	if ok, err := e.db.InsertCommission(ctx, c); err != nil || !ok {
		e.t.Fatalf("insert commission: %v %v", ok, err)
	}
}

type bucket struct {
	Start    string           `json:"start"`
	Earnings int64            `json:"earnings"`
	GroupBy  string           `json:"groupBy"`
	Data     map[string]int64 `json:"data"`
}

// getTimeseries reads /api/embed/referrals/earnings/timeseries with tok:
// the status, the decoded buckets (on a 200) and the body.
func getTimeseries(t *testing.T, e *env, tok, query string) (int, []bucket, string) {
	t.Helper()
	r := e.do(appHost, "GET", "/api/embed/referrals/earnings/timeseries"+query, "", bearer(tok))
	var out []bucket
	if r.status == 200 {
		if err := json.Unmarshal([]byte(r.body), &out); err != nil {
			t.Fatalf("decode %s: %v", r.body, err)
		}
	}
	return r.status, out, r.body
}

// sumEarnings adds the buckets' earnings.
func sumEarnings(bs []bucket) (n int64) {
	for _, b := range bs {
		n += b.Earnings
	}
	return n
}

// checkTimeseriesErrors: every refused request answers the error envelope.
func checkTimeseriesErrors(t *testing.T, e *env, tokA string) {
	for _, tc := range []struct {
		name, tok, query string
		status           int
		code, msg        string
	}{
		{"no token", "", "", 401, "unauthorized", "Embed public token not found in the request."},
		{"bad token", "dub_embed_nope", "", 401, "unauthorized", "Invalid embed public token."},
		{"interval", tokA, "?interval=2w", 422, "unprocessable_entity", "invalid_value: interval: Invalid option"},
		{"groupBy", tokA, "?groupBy=customerId", 422, "unprocessable_entity", `invalid_value: groupBy: Invalid option: expected one of "linkId"`},
		{"timezone", tokA, "?timezone=Mars/Base", 422, "unprocessable_entity", "invalid_value: timezone: Invalid timezone: Mars/Base"},
		{"start", tokA, "?start=yesterday", 422, "unprocessable_entity", "invalid_format: start: Invalid ISO datetime"},
		{"far end", tokA, "?start=2026-02-01&end=2100-01-01", 422, "unprocessable_entity", "custom: end: The end date cannot be later than December 31, 2099."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := bearer(tc.tok)
			if tc.tok == "" {
				hdr = nil
			}
			r := e.do(appHost, "GET", "/api/embed/referrals/earnings/timeseries"+tc.query, "", hdr)
			var env struct {
				Error struct {
					Code, Message string
					DocURL        string `json:"doc_url"`
				}
			}
			if err := json.Unmarshal([]byte(r.body), &env); err != nil || r.status != tc.status || env.Error.Code != tc.code ||
				!strings.HasPrefix(env.Error.Message, tc.msg) || env.Error.DocURL == "" {
				t.Errorf("%d %s, want %d %s %q", r.status, r.body, tc.status, tc.code, tc.msg)
			}
		})
	}
}

func TestEarningsTimeseries(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db, "acme")
		tokA, linkA := e.partner("alice", "alice")
		tokB, linkB := e.partner("bob", "bob")
		// Alice: a lead ($5, not counted) and a sale (20% of $100 = $20) today.
		e.convert(linkA, 2, "cus1", "jane@gmail.com", 10000)
		now := time.Now().UTC()
		day := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
		e.commission("alice", linkA, models.CommissionSale, models.CommissionPaid, 700, day.AddDate(0, 0, -3))
		e.commission("alice", linkA, models.CommissionSale, models.CommissionProcessed, 300, day.AddDate(0, 0, -3))
		e.commission("alice", linkA, models.CommissionSale, models.CommissionCanceled, 9900, day.AddDate(0, 0, -2)) // not counted
		e.commission("alice", linkA, models.CommissionSale, models.CommissionHold, 4400, day.AddDate(0, 0, -2))     // not counted
		e.commission("alice", linkA, models.CommissionCustom, models.CommissionPaid, 5500, day.AddDate(0, 0, -1))   // not a sale
		e.commission("alice", linkA, models.CommissionSale, models.CommissionPaid, 100000, day.AddDate(0, 0, -40))  // outside 30d
		e.commission("bob", linkB, models.CommissionSale, models.CommissionPaid, 1234, day.AddDate(0, 0, -5))

		get := func(t *testing.T, tok, query string) (int, []bucket, string) { return getTimeseries(t, e, tok, query) }
		sum := sumEarnings

		// The one interval table (internal/interval, spec/analytics.md §3.3): 30d
		// starts at now − 30 days (31 daily buckets, the first partial), 7d
		// at now − 7 days (8). This endpoint used midnight 29 / 6 days ago.
		t.Run("default: 31 daily buckets of sale earnings", func(t *testing.T) {
			status, bs, body := get(t, tokA, "")
			if status != 200 || len(bs) != 31 {
				t.Fatalf("%d, %d buckets: %s", status, len(bs), body)
			}
			if got := sum(bs); got != 2000+700+300 {
				t.Errorf("sum %d, want 3000 (sale commissions pending/processed/paid only)", got)
			}
			last := bs[len(bs)-1]
			if !strings.HasPrefix(last.Start, now.Format("2006-01-02")+"T00:00:00.000Z") || last.Earnings != 2000 {
				t.Errorf("today's bucket %+v", last)
			}
			if b := bs[len(bs)-4]; b.Earnings != 1000 {
				t.Errorf("three days ago %+v, want 1000", b)
			}
			if b := bs[len(bs)-3]; b.Earnings != 0 {
				t.Errorf("canceled and held commissions counted: %+v", b)
			}
			if strings.Contains(body, `"data"`) || strings.Contains(body, `"groupBy"`) {
				t.Errorf("ungrouped answer carries data: %s", body)
			}
		})

		t.Run("intervals and all", func(t *testing.T) {
			_, bs, _ := get(t, tokA, "?interval=7d")
			if len(bs) != 8 || sum(bs) != 3000 {
				t.Errorf("7d: %d buckets, sum %d", len(bs), sum(bs))
			}
			_, bs, _ = get(t, tokA, "?interval=all")
			if sum(bs) != 103000 {
				t.Errorf("all: sum %d, want 103000", sum(bs))
			}
			checkExplicitRanges(t, func(q string) []bucket { _, bs, _ := get(t, tokA, q); return bs }, day)
		})

		t.Run("buckets align in the time zone", func(t *testing.T) {
			_, bs, body := get(t, tokA, "?interval=7d&timezone=America/New_York")
			if len(bs) < 7 {
				t.Fatalf("%s", body)
			}
			for _, b := range bs {
				if !strings.HasSuffix(b.Start, "T04:00:00.000Z") && !strings.HasSuffix(b.Start, "T05:00:00.000Z") {
					t.Errorf("bucket %s is not New York midnight", b.Start)
				}
			}
		})

		t.Run("grouped by link", func(t *testing.T) {
			status, bs, body := get(t, tokA, "?groupBy=linkId")
			if status != 200 || len(bs) != 31 {
				t.Fatalf("%d %s", status, body)
			}
			for _, b := range bs {
				if b.GroupBy != "linkId" || len(b.Data) != 1 || b.Data[linkA] != b.Earnings {
					t.Fatalf("bucket %+v", b)
				}
			}
			status, bs, _ = get(t, tokA, "?linkId="+linkA)
			if status != 200 || sum(bs) != 3000 {
				t.Errorf("linkId filter: %d sum %d", status, sum(bs))
			}
		})

		t.Run("a token sees only its own enrollment", func(t *testing.T) {
			_, bs, _ := get(t, tokB, "?interval=30d")
			if sum(bs) != 1234 {
				t.Errorf("bob sum %d, want 1234", sum(bs))
			}
			status, _, body := get(t, tokB, "?linkId="+linkA)
			if status != 404 || !strings.Contains(body, `"code":"not_found"`) || !strings.Contains(body, "Link not found.") {
				t.Errorf("another partner's link: %d %s", status, body)
			}
			status, _, body = get(t, tokB, "?partnerId=ignored&programId=ignored")
			if status != 200 || strings.Contains(body, "3000") {
				t.Errorf("extra keys: %d %s", status, body)
			}
		})

		t.Run("errors use the envelope", func(t *testing.T) { checkTimeseriesErrors(t, e, tokA) })

		t.Run("the chart counts what the endpoint counts", func(t *testing.T) {
			r := e.do(appHost, "GET", "/embed/referrals/fragments/overview", "", bearer(tokA))
			d := doc(t, r.body)
			if lbl, _ := d.Find(`[data-testid="earnings-chart"]`).Attr("aria-label"); !strings.HasSuffix(lbl, "total $30.00") {
				t.Errorf("chart label %q, want total $30.00 (sale commissions, 30 days)", lbl)
			}
		})
	})
}

// checkExplicitRanges: an explicit range is Dub's getStartEndDates: whole
// days (the start's midnight to the end's 23:59:59.999), hours up to 2
// days, days up to 180, months beyond; a reversed one is swapped after the
// rounding, so it runs from the end's last millisecond to the start's
// midnight. (Alice's counted sale commissions: 1,000 three days ago, 2,000
// today, 100,000 forty days ago.)
func checkExplicitRanges(t *testing.T, get func(query string) []bucket, day time.Time) {
	t.Helper()
	ymd := func(d int) string { return day.AddDate(0, 0, d).Format("2006-01-02") }
	bs := get("?start=" + ymd(-3) + "&end=" + ymd(-2))
	if len(bs) != 48 || sumEarnings(bs) != 1000 {
		t.Errorf("two-day range: %d hourly buckets, sum %d", len(bs), sumEarnings(bs))
	}
	bs = get("?start=" + ymd(-2) + "&end=" + ymd(-4))
	if len(bs) != 25 || sumEarnings(bs) != 1000 || !strings.HasSuffix(bs[0].Start, "T23:00:00.000Z") {
		t.Errorf("reversed range: %d hourly buckets, sum %d: %+v", len(bs), sumEarnings(bs), bs)
	}
	bs = get("?start=" + ymd(-100) + "&end=" + ymd(0))
	if len(bs) != 101 || sumEarnings(bs) != 2000+1000+100000 {
		t.Errorf("100-day range: %d daily buckets, sum %d", len(bs), sumEarnings(bs))
	}
	bs = get("?start=2099-12-31&end=2022-09-22")
	if n := len(bs); n != 928 {
		t.Errorf("widest range: %d monthly buckets, want 928", n)
	}
}
