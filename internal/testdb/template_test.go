package testdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// schemaOf lists a database's tables, columns and indexes as text.
func schemaOf(t *testing.T, db *models.DB) []string {
	t.Helper()
	var rows []string
	q := "SELECT type || ' ' || name || ' ' || COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
	if db.Dialect == "postgres" {
		q = `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '')
		       FROM information_schema.columns WHERE table_schema = current_schema()
		     UNION ALL
		     SELECT 'index ' || indexname || ' ' || regexp_replace(indexdef, ' ON [a-z0-9_]+\.', ' ON ')
		       FROM pg_indexes WHERE schemaname = current_schema()
		     ORDER BY 1`
	}
	if err := db.Raw(q).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestFreshMigrationMatchesTemplate: the copies Open hands out have the
// schema the migrations build from an empty database, and are current.
func TestFreshMigrationMatchesTemplate(t *testing.T) {
	for _, d := range testdb.Dialects() {
		t.Run(d, func(t *testing.T) {
			copied := testdb.Open(t, d)
			fresh, err := models.Open(testdb.URL(t, d))
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			if err := fresh.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			a, b := schemaOf(t, copied), schemaOf(t, fresh)
			if len(a) < 100 {
				t.Fatalf("only %d schema rows in the copy", len(a))
			}
			if strings.Join(a, "\n") != strings.Join(b, "\n") {
				for i := 0; i < len(a) && i < len(b); i++ {
					if a[i] != b[i] {
						t.Fatalf("schema differs at row %d:\ncopy  %s\nfresh %s", i, a[i], b[i])
					}
				}
				t.Fatalf("schema differs: %d rows in the copy, %d fresh", len(a), len(b))
			}
			st, err := copied.Migrations(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range st {
				if !s.Applied {
					t.Fatalf("migration %s not applied in the copy", s.File)
				}
			}
		})
	}
}
