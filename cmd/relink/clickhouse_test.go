package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/chstore"
	"github.com/relinkhq/relink/internal/chstore/chtest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// runMain runs the real main() in a child process with only env's RELINK_*
// variables, as production starts the binary.
func runMain(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = baseEnv(env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestClickHouseCommands: `relink clickhouse rebuild-rollups --from`
// replaces the rollups of the months from --from on with what the raw
// events say, with a line of progress per month, and `relink clickhouse
// status` reports the server, the tables, the outbox and the positions.
func TestClickHouseCommands(t *testing.T) {
	chURL := chtest.URL(t)
	env := map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, "sqlite"), "RELINK_CLICKHOUSE_URL": chURL}
	if code, _, stderr := runMain(t, env, "clickhouse", "status"); code != 0 {
		t.Fatalf("status on a new database: exit %d: %s", code, stderr)
	}
	ch, err := chstore.Open(chURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var batch []models.Click
	for _, at := range []string{"2026-09-10T10:00:00Z", "2026-10-05T10:00:00Z", "2026-11-20T08:00:00Z"} {
		ts, _ := time.Parse(time.RFC3339, at)
		batch = append(batch, models.Click{ClickID: at, Timestamp: ts, WorkspaceID: "ws_cli", LinkID: "link_1", Country: "US"})
	}
	if err := ch.InsertClicks(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// Rollups that the raw events do not support, in September and October.
	for _, h := range []string{"2026-09-14 00:00:00", "2026-10-12 00:00:00"} {
		if err := ch.Exec(ctx, "INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) VALUES ('ws_cli', 'click', 'total', toDateTime('"+h+"', 'UTC'), '', 7, 0)"); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runMain(t, env, "clickhouse", "rebuild-rollups", "--from", "2026-10")
	if code != 0 || !strings.Contains(stdout, "rebuild done: 2 months") || !strings.Contains(stderr, "rollups 2026-10  month 1/2") || !strings.Contains(stderr, "rollups 2026-11  month 2/2") {
		t.Fatalf("rebuild-rollups: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var total string
	if err := ch.Query(ctx, "SELECT sum(count) FROM event_aggregates WHERE dim = 'total'", func(c []string) error { total = c[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	if total != "10" { // 3 clicks and September's 7, which --from left alone
		t.Fatalf("after the rebuild from October the rollups count %s clicks, want 10", total)
	}
	code, stdout, stderr = runMain(t, env, "clickhouse", "status")
	for _, want := range []string{"server      ClickHouse 1", "01560_rebuild.sql", "  clicks ", "  event_aggregates ", "outbox      0 leads and sales waiting", "backfill    clicks       0/0 copied", "rebuild     from 2026-10: finished at "} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Fatalf("status: exit %d, no %q in\n%s\n%s", code, want, stdout, stderr)
		}
	}
	if code, _, stderr := runMain(t, env, "clickhouse", "rebuild-rollups", "--from", "October"); code != 2 || !strings.Contains(stderr, "--from \"October\": want YYYY-MM") {
		t.Fatalf("a bad --from: exit %d: %s", code, stderr)
	}
}

// closedMonthInTwoParts writes a closed month (two months ago) of
// event_aggregates in two parts, 4 and 5 clicks, and gives the month, the
// environment of a relink process on it and a count of the month's parts.
func closedMonthInTwoParts(t *testing.T) (month time.Time, env map[string]string, ch *chstore.Client, parts func() string) {
	chURL := chtest.URL(t)
	ctx := context.Background()
	ch, err := chstore.Open(chURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	month = time.Now().UTC().AddDate(0, -2, 0)
	for i, day := range []int{3, 17} {
		h := time.Date(month.Year(), month.Month(), day, 10, 0, 0, 0, time.UTC).Format(time.DateTime)
		if err := ch.Exec(ctx, fmt.Sprintf("INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) VALUES ('ws', 'click', 'total', toDateTime('%s', 'UTC'), '', %d, 0)", h, i+4)); err != nil {
			t.Fatal(err)
		}
	}
	parts = func() string {
		var n string
		q := fmt.Sprintf("SELECT count() FROM system.parts WHERE database = currentDatabase() AND active AND table = 'event_aggregates' AND partition = '%s'", month.Format("200601"))
		if err := ch.Query(ctx, q, func(c []string) error { n = c[0]; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	env = map[string]string{"RELINK_DATABASE_URL": testdb.URL(t, "sqlite"), "RELINK_CLICKHOUSE_URL": chURL}
	// Two small parts are below what ClickHouse's own merges take up: they
	// stay two until the job merges them (if the server merged them first,
	// the job would log nothing and the tests fail, not pass).
	_, stdout, _ := runMain(t, env, "clickhouse", "status")
	if want := "compaction  1 closed months wait for the server's hourly merge: event_aggregates " + month.Format("2006-01") + " (2 parts) (or run relink clickhouse compact)"; !strings.Contains(stdout, want) {
		t.Fatalf("status before the merge: no %q in\n%s", want, stdout)
	}
	return month, env, ch, parts
}

// rollupSum is the clicks event_aggregates counts in all.
func rollupSum(t *testing.T, ch *chstore.Client) string {
	var sum string
	if err := ch.Query(context.Background(), "SELECT sum(count) FROM event_aggregates", func(c []string) error { sum = c[0]; return nil }); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestServeCompactsRollups: `relink serve` with RELINK_CLICKHOUSE_URL runs
// the rollup compaction job: a closed month of event_aggregates written in
// two parts is merged into one (the job logs it), its sums unchanged, and
// `relink clickhouse status` says whether months wait for it.
func TestServeCompactsRollups(t *testing.T) {
	month, env, ch, parts := closedMonthInTwoParts(t)
	srv := startInstance(t, "compaction", env)
	deadline := time.Now().Add(30 * time.Second)
	// The job's own line for this month (a failing run logs the job's name
	// too, and ClickHouse could have merged the parts itself).
	merged := regexp.MustCompile(`clickhouse rollup compaction.*event_aggregates\W+month\W+` + month.Format("200601") + `\b`)
	for !merged.MatchString(srv.Logs()) || parts() != "1" {
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the closed month is in %s parts; server log:\n%s", parts(), srv.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if sum := rollupSum(t, ch); sum != "9" {
		t.Fatalf("after the merge the rollups count %s, want 9", sum)
	}
	if _, stdout, _ := runMain(t, env, "clickhouse", "status"); !strings.Contains(stdout, "compaction  every closed month of the rollups is in one part") {
		t.Fatalf("status after the merge:\n%s", stdout)
	}
}

// TestClickhouseCompact: `relink clickhouse compact` merges the closed
// months now, a line per month on stderr, the sums unchanged; run again it
// says there was nothing to merge.
func TestClickhouseCompact(t *testing.T) {
	month, env, ch, parts := closedMonthInTwoParts(t)
	code, stdout, stderr := runMain(t, env, "clickhouse", "compact")
	if code != 0 || !strings.Contains(stdout, "compact done: 1 months in ") {
		t.Fatalf("compact: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if want := "compact event_aggregates " + month.Format("2006-01") + "  2 parts -> 1  "; !strings.Contains(stderr, want) || !strings.Contains(stderr, "month 1/1") {
		t.Fatalf("compact's progress: no %q and month 1/1 in\n%s", want, stderr)
	}
	if n := parts(); n != "1" {
		t.Fatalf("after compact the month is in %s parts", n)
	}
	if sum := rollupSum(t, ch); sum != "9" {
		t.Fatalf("after compact the rollups count %s, want 9", sum)
	}
	// Run again, with a SQL database that does not exist: compact needs
	// only the event store, and leaves no empty database file behind.
	absent := filepath.Join(t.TempDir(), "absent.db")
	again := map[string]string{"RELINK_DATABASE_URL": "sqlite:" + absent, "RELINK_CLICKHOUSE_URL": env["RELINK_CLICKHOUSE_URL"]}
	if code, stdout, _ := runMain(t, again, "clickhouse", "compact"); code != 0 || !strings.Contains(stdout, "every closed month of the rollups was already in one part") {
		t.Fatalf("compact again: exit %d: %s", code, stdout)
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Fatalf("compact opened the SQL database: %s exists (%v)", absent, err)
	}
}
