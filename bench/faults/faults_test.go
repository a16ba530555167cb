package main

import (
	"os"
	"testing"
)

// TestFaultsShort is the CI form of the fault benchmark (make test runs it):
// SIGTERM and SIGKILL under load on SQLite and on a private PostgreSQL, the
// database stopped and hung for a few seconds. It fails when a scenario
// loses more than its bound (SIGTERM and database outages: none; SIGKILL:
// one group-commit window plus the requests in flight).
func TestFaultsShort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real binary under load")
	}
	rep, err := Run(Config{Short: true, Conns: 8, Out: os.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) < 2 {
		t.Fatalf("only %d scenarios ran", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Lost > r.Bound {
			t.Errorf("%s on %s: %d of %d answered clicks lost (bound %d)", r.Scenario, r.DB, r.Lost, r.Seen, r.Bound)
		}
		if r.Seen == 0 {
			t.Errorf("%s on %s: no redirect answered", r.Scenario, r.DB)
		}
	}
}
