package chstore

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/migrations"
	"github.com/relinkhq/relink/models"
)

// RebuildProgress is reported after every month of a Rebuild.
type RebuildProgress struct {
	Month       string // YYYY-MM just replaced
	Done, Total int    // months replaced (resumed runs included) and to do
	Attempts    int    // tries the month took (more than 1: live inserts raced it)
}

// Rebuild recomputes the rollups (event_aggregates, migrations 01550 and
// 01580) from
// the raw event tables, one month partition at a time, with the rollups'
// SELECTs (the materialized views' definitions; rollupViews): each month is computed
// into event_aggregates_rebuild and swapped in atomically (REPLACE
// PARTITION), so analytics read either the old month or the new one, never
// half of it. After each month the cursor is saved (rebuild_cursor): a
// rebuild stopped for any reason resumes after the last month replaced.
//
// Raw clicks a workspace's retention deleted (recorded in trimmed, and the
// workspace's current period, Keep) are not in the raw table any more: that
// workspace's click rollups before the cut — rounded up to the next
// four-week block, so every hour, day, week and four-week row lies wholly
// on one side — are kept as they are, and only its later clicks are
// recomputed.
//
// Live inserts go on during a rebuild: a row inserted between a month's
// read and its swap would be missing from the new month, so each month is
// checked afterwards (the raw rows against the rollups' totals, per event)
// and recomputed when they differ.
type Rebuild struct {
	CH *Client
	// From is the first month to rebuild (zero: the oldest with events).
	From time.Time
	// Keep maps a workspace to its retention cut (now minus its period):
	// its click rollups before the cut are kept.
	Keep     map[string]time.Time
	Restart  bool // ignore a saved cursor
	Progress func(RebuildProgress)
}

// rebuildAttempts is how often a month is recomputed while live inserts
// keep racing it.
const rebuildAttempts = 5

// rollupView is one materialized view's SELECT and the table it reads.
type rollupView struct{ table, event, sel string }

// rollupViews reads the latest definition of each rollup view from the
// ClickHouse migrations: per event table, the view of 01550 (every
// dimension's hour, day and week rows) and the four-week view of 01580.
// The two over clicks were dropped (01570, 01580): clicks go in with their
// rollups summed by Relink (clickRollups), and their SELECTs stay the
// definitions those sums are held to (TestClickRollupsMatchRebuild).
func rollupViews() ([]rollupView, error) {
	ms, err := loadMigrations(migrations.ClickHouse())
	if err != nil {
		return nil, err
	}
	byName := map[string]rollupView{}
	for _, m := range ms {
		for _, s := range m.stmts {
			head, sel, ok := strings.Cut(s, " TO event_aggregates AS\n")
			if !ok || !strings.Contains(head, "CREATE MATERIALIZED VIEW") {
				continue
			}
			f := strings.Fields(head)
			name := f[len(f)-1]
			for table, event := range map[string]string{"clicks": "click", "lead_events": "lead", "sale_events": "sale"} {
				if strings.Contains(sel, "\nFROM "+table+"\n") {
					byName[name] = rollupView{table: table, event: event, sel: sel}
				}
			}
		}
	}
	var out []rollupView
	for _, t := range []string{"clicks", "lead_events", "sale_events"} {
		for _, name := range []string{t + "_aggregates", t + "_aggregates_4week"} {
			v, ok := byName[name]
			if !ok || v.table != t || !strings.Contains(v.sel, "\nGROUP BY ") {
				return nil, fmt.Errorf("clickhouse rebuild: no rollup view %s over %s in the migrations", name, t)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// blockCeil is the first four-week block start (models.FourWeekStart, a
// Monday 00:00 UTC) at or after t: every hour, day, week and four-week row
// lies wholly on one side of it.
func blockCeil(t time.Time) time.Time {
	b := models.FourWeekStart(t)
	if b.Before(t) {
		b = b.AddDate(0, 0, 28)
	}
	return b
}

func yyyymm(t time.Time) int { return t.Year()*100 + int(t.Month()) }

func monthStart(m int) time.Time { return time.Date(m/100, time.Month(m%100), 1, 0, 0, 0, 0, time.UTC) }

// keepCuts merges Keep with the cuts recorded in trimmed, each rounded up
// to a four-week block start.
func (r *Rebuild) keepCuts(ctx context.Context) (map[string]time.Time, error) {
	cuts := map[string]time.Time{}
	add := func(ws string, at time.Time) {
		if w := blockCeil(at); w.After(cuts[ws]) {
			cuts[ws] = w
		}
	}
	for ws, at := range r.Keep {
		add(ws, at)
	}
	err := r.CH.Query(ctx, "SELECT workspace_id, max(before_ts) FROM trimmed GROUP BY workspace_id", func(cols []string) error {
		us, err := strconv.ParseInt(cols[1], 10, 64)
		if err != nil {
			return fmt.Errorf("trimmed: %w", err)
		}
		add(cols[0], time.UnixMicro(us))
		return nil
	})
	return cuts, err
}

// months lists the month partitions from From (or the oldest month with
// events or rollups) to the newest.
func (r *Rebuild) months(ctx context.Context) ([]int, error) {
	lo, hi := 0, 0
	for _, q := range []string{
		"SELECT count(), toYYYYMM(min(time)), toYYYYMM(max(time)) FROM clicks",
		"SELECT count(), toYYYYMM(min(time)), toYYYYMM(max(time)) FROM lead_events",
		"SELECT count(), toYYYYMM(min(time)), toYYYYMM(max(time)) FROM sale_events",
		"SELECT count(), toYYYYMM(min(hour)), toYYYYMM(max(hour)) FROM event_aggregates",
	} {
		if err := r.CH.Query(ctx, q, func(cols []string) error {
			if cols[0] == "0" {
				return nil
			}
			a, err1 := strconv.Atoi(cols[1])
			b, err2 := strconv.Atoi(cols[2])
			if err1 != nil || err2 != nil {
				return fmt.Errorf("months %v", cols)
			}
			if lo == 0 || a < lo {
				lo = a
			}
			hi = max(hi, b)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("clickhouse rebuild: %w", err)
		}
	}
	if !r.From.IsZero() && yyyymm(r.From) > lo {
		lo = yyyymm(r.From)
	}
	var out []int
	for m := lo; lo > 0 && m <= hi; m = yyyymm(monthStart(m).AddDate(0, 1, 0)) {
		out = append(out, m)
	}
	return out, nil
}

// Run rebuilds every month from From on.
func (r *Rebuild) Run(ctx context.Context) error {
	views, err := rollupViews()
	if err != nil {
		return err
	}
	cuts, err := r.keepCuts(ctx)
	if err != nil {
		return fmt.Errorf("clickhouse rebuild: %w", err)
	}
	months, err := r.months(ctx)
	if err != nil {
		return err
	}
	from := 0
	if !r.From.IsZero() {
		from = yyyymm(r.From)
	}
	last := 0
	if !r.Restart {
		if err := r.CH.Query(ctx, fmt.Sprintf("SELECT month FROM rebuild_cursor WHERE from_month = %d ORDER BY seq DESC LIMIT 1", from), func(cols []string) error {
			last, err = strconv.Atoi(cols[0])
			return err
		}); err != nil {
			return fmt.Errorf("clickhouse rebuild: cursor: %w", err)
		}
	}
	for i, m := range months {
		if m <= last {
			continue
		}
		n, err := r.month(ctx, views, cuts, m)
		if err != nil {
			return fmt.Errorf("clickhouse rebuild %s: %w", monthStart(m).Format("2006-01"), err)
		}
		if err := r.save(ctx, from, m); err != nil {
			return err
		}
		if r.Progress != nil {
			r.Progress(RebuildProgress{Month: monthStart(m).Format("2006-01"), Done: i + 1, Total: len(months), Attempts: n})
		}
	}
	return r.save(ctx, from, 0)
}

func (r *Rebuild) save(ctx context.Context, from, month int) error {
	err := r.CH.Exec(ctx, fmt.Sprintf("INSERT INTO rebuild_cursor (from_month, seq, month) VALUES (%d, %d, %d)", from, time.Now().UnixNano(), month))
	if err != nil {
		return fmt.Errorf("clickhouse rebuild: save cursor: %w", err)
	}
	return nil
}

// kept is the condition on event_aggregates rows (column hour) or raw
// clicks (column ts) of the workspaces whose click rollups before their cut
// are kept.
func kept(cuts map[string]time.Time, col string) string {
	if len(cuts) == 0 {
		return "0"
	}
	wss := make([]string, 0, len(cuts))
	for ws := range cuts {
		wss = append(wss, ws)
	}
	sort.Strings(wss)
	var or []string
	for _, ws := range wss {
		at := cuts[ws]
		bound := fmt.Sprintf("toDateTime(%d, 'UTC')", at.Unix())
		if col == "ts" {
			bound = strconv.FormatInt(at.UnixMicro(), 10)
		}
		or = append(or, fmt.Sprintf("(workspace_id = %s AND %s < %s)", Quote(ws), col, bound))
	}
	return "(" + strings.Join(or, " OR ") + ")"
}

// month recomputes month m until its check passes; it returns the attempts.
func (r *Rebuild) month(ctx context.Context, views []rollupView, cuts map[string]time.Time, m int) (int, error) {
	start, end := monthStart(m), monthStart(m).AddDate(0, 1, 0)
	for attempt := 1; attempt <= rebuildAttempts; attempt++ {
		if err := r.CH.Exec(ctx, "TRUNCATE TABLE event_aggregates_rebuild"); err != nil {
			return attempt, err
		}
		for _, v := range views {
			// The week and four-week rows of a month's partition hold
			// events up to 27 days past its end; HAVING keeps the rows of
			// this partition.
			cond := fmt.Sprintf("time >= toDateTime(%d, 'UTC') AND time < toDateTime(%d, 'UTC')", start.Unix(), end.AddDate(0, 0, 28).Unix())
			if v.table == "clicks" {
				cond += " AND NOT " + kept(cuts, "ts")
			}
			sel := strings.Replace(v.sel, "\nGROUP BY ", "\nWHERE "+cond+"\nGROUP BY ", 1) + fmt.Sprintf("\nHAVING toYYYYMM(hour) = %d", m)
			if err := r.CH.Exec(ctx, "INSERT INTO event_aggregates_rebuild "+sel); err != nil {
				return attempt, fmt.Errorf("%s: %w", v.table, err)
			}
		}
		if err := r.CH.Exec(ctx, fmt.Sprintf("INSERT INTO event_aggregates_rebuild SELECT workspace_id, event, dim, hour, value, count, amount FROM event_aggregates WHERE toYYYYMM(hour) = %d AND event = 'click' AND %s",
			m, kept(cuts, "hour"))); err != nil {
			return attempt, fmt.Errorf("kept rollups: %w", err)
		}
		if err := r.swap(ctx, "event_aggregates", m); err != nil {
			return attempt, err
		}
		ok, err := r.check(ctx, views, cuts, m)
		if err != nil {
			return attempt, err
		}
		if ok {
			return attempt, r.urlMonth(ctx, m)
		}
	}
	return rebuildAttempts, fmt.Errorf("the rollups differ from the raw rows after %d attempts (live inserts keep racing it; run the command again)", rebuildAttempts)
}

// urlDims are the dimensions whose rows url_aggregates holds by hash, and
// the hourly totals it keeps beside them (migration 01590).
const urlDims = "('total', 'url', 'url@day', 'url@week', 'url@4week')"

// CutAtQuery is the SQL of col's text before its first '?' (all of it
// when it has none): the base URL of top_base_urls and of the URL filters.
func CutAtQuery(col string) string {
	return "if(position(" + col + ", '?') > 0, substring(" + col + ", 1, position(" + col + ", '?') - 1), " + col + ")"
}

// urlHashes is url_aggregates' rows computed from event_aggregates' URL
// rows: what migration 01590's views write for the same events
// (TestClickRollupsMatchRebuild).
var urlHashes = "SELECT workspace_id, event, dim, hour, cityHash64(value) AS value_hash, " +
	"cityHash64(" + CutAtQuery("value") + ") AS base_hash, " +
	"sum(count) AS count, sum(amount) AS amount FROM event_aggregates WHERE dim IN " + urlDims

// urlMonth recomputes month m of url_aggregates (migration 01590) from the
// rollups just rebuilt, swaps it in, checks it counts what the rollups'
// URL rows count (a live insert between the read and the swap would be
// missing; recomputed then), and copies the month's URLs into urls.
func (r *Rebuild) urlMonth(ctx context.Context, m int) error {
	for attempt := 1; attempt <= rebuildAttempts; attempt++ {
		if err := r.CH.Exec(ctx, "TRUNCATE TABLE url_aggregates_rebuild"); err != nil {
			return err
		}
		err := r.CH.Exec(ctx, fmt.Sprintf("INSERT INTO url_aggregates_rebuild %s AND toYYYYMM(hour) = %d GROUP BY workspace_id, event, dim, hour, value_hash, base_hash", urlHashes, m))
		if err != nil {
			return fmt.Errorf("url hashes: %w", err)
		}
		if err := r.swap(ctx, "url_aggregates", m); err != nil {
			return err
		}
		var hashed, rolled string
		if err := r.CH.Query(ctx, fmt.Sprintf("SELECT sum(count) FROM url_aggregates WHERE toYYYYMM(hour) = %d", m), func(cols []string) error { hashed = cols[0]; return nil }); err != nil {
			return err
		}
		if err := r.CH.Query(ctx, fmt.Sprintf("SELECT sum(count) FROM event_aggregates WHERE toYYYYMM(hour) = %d AND dim IN %s", m, urlDims), func(cols []string) error { rolled = cols[0]; return nil }); err != nil {
			return err
		}
		if hashed == rolled {
			err := r.CH.Exec(ctx, fmt.Sprintf("INSERT INTO urls SELECT workspace_id, cityHash64(v) AS value_hash, v AS name FROM event_aggregates "+
				"ARRAY JOIN [value, "+CutAtQuery("value")+"] AS v "+
				"WHERE toYYYYMM(hour) = %d AND dim = 'url@day' GROUP BY workspace_id, value_hash, name", m))
			if err != nil {
				return fmt.Errorf("urls: %w", err)
			}
			return nil
		}
	}
	return fmt.Errorf("the URL hashes differ from the rollups after %d attempts (live inserts keep racing it; run the command again)", rebuildAttempts)
}

// swap replaces month m of table (event_aggregates or url_aggregates) with
// the rebuilt one in table_rebuild (dropped when the rebuilt month has no
// rows).
func (r *Rebuild) swap(ctx context.Context, table string, m int) error {
	var n string
	if err := r.CH.Query(ctx, fmt.Sprintf("SELECT count() FROM %s_rebuild WHERE toYYYYMM(hour) = %d", table, m), func(cols []string) error { n = cols[0]; return nil }); err != nil {
		return err
	}
	if n == "0" {
		return r.CH.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DROP PARTITION %d", table, m))
	}
	return r.CH.Exec(ctx, fmt.Sprintf("ALTER TABLE %s REPLACE PARTITION %d FROM %s_rebuild", table, m, table))
}

// check compares, per event, the month's raw rows with its rollups' totals
// (the workspaces' kept parts left out).
func (r *Rebuild) check(ctx context.Context, views []rollupView, cuts map[string]time.Time, m int) (bool, error) {
	start, end := monthStart(m), monthStart(m).AddDate(0, 1, 0)
	checked := map[string]bool{}
	for _, v := range views {
		if checked[v.table] {
			continue
		}
		checked[v.table] = true
		var rolled, raw string
		q := fmt.Sprintf("SELECT sum(count) FROM event_aggregates WHERE toYYYYMM(hour) = %d AND event = %s AND dim = 'total'", m, Quote(v.event))
		rq := fmt.Sprintf("SELECT count() FROM %s WHERE time >= toDateTime(%d, 'UTC') AND time < toDateTime(%d, 'UTC')", v.table, start.Unix(), end.Unix())
		if v.table == "clicks" {
			q += " AND NOT " + kept(cuts, "hour")
			rq += " AND NOT " + kept(cuts, "ts")
		}
		if err := r.CH.Query(ctx, q, func(cols []string) error { rolled = cols[0]; return nil }); err != nil {
			return false, err
		}
		if err := r.CH.Query(ctx, rq, func(cols []string) error { raw = cols[0]; return nil }); err != nil {
			return false, err
		}
		if rolled != raw {
			return false, nil
		}
	}
	return true, nil
}
