package models_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/relinkhq/relink/models"
)

// TestSQLiteDeadlineIsUnavailable: a SQLite statement that runs past the
// database's timeout is interrupted by its deadline, and the error it ends
// with counts as the database being unavailable (the handlers answer 503
// with Retry-After), as PostgreSQL's statement timeout does — not as a
// failure of the request (500). A bad statement still is not unavailable.
func TestSQLiteDeadlineIsUnavailable(t *testing.T) {
	db, err := models.OpenTimeout("sqlite:"+filepath.Join(t.TempDir(), "slow.db"), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var n int64
	// Counts to a billion: minutes of work, stopped by the 100 ms deadline.
	// (A statement, not a query: the driver steps a query's last statement
	// in rows.Next, after its interrupt on the context's end is disarmed.)
	err = db.WithContext(context.Background()).Exec("CREATE TABLE slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) AS n FROM c").Error
	if err == nil {
		t.Fatal("a billion-row count finished within the 100 ms deadline")
	}
	if !models.IsUnavailable(err) {
		t.Fatalf("a statement its deadline interrupted (%v) is not reported unavailable", err)
	}
	if err := db.Raw("SELECT no_such_column FROM no_such_table").Scan(&n).Error; err == nil || models.IsUnavailable(err) {
		t.Fatalf("a bad statement: %v, reported unavailable %v; want an error that is not", err, models.IsUnavailable(err))
	}
	// The connection the interrupt stopped serves the next statement.
	if err := db.Raw("SELECT 42").Scan(&n).Error; err != nil || n != 42 {
		t.Fatalf("after the interrupt: %d, %v", n, err)
	}
}
