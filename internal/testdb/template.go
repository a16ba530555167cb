package testdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/migrations"
	"github.com/relinkhq/relink/models"
)

// Migrating a database from nothing costs about 100 ms on SQLite and 1–4 s
// on PostgreSQL (catalog work, not fsync), and the suite opens hundreds of
// them: that was most of `make test`'s time. So each dialect is migrated
// once, and every test gets a copy: SQLite a copy of the migrated file
// (one per test process), PostgreSQL a database cloned from a migrated
// template database (CREATE DATABASE … TEMPLATE, about 0.2 s) shared by
// every process whose migrations are the same (its name carries their
// hash). The copies are the same migrated schema Migrate would build; the
// migrations themselves are tested from an empty database by
// TestFreshMigrationMatchesTemplate, cmd/relink's migrate tests and every
// built-binary test (URL gives an empty database).

var sqliteTemplate struct {
	once sync.Once
	path string
	err  error
}

// openSQLite copies the process's migrated SQLite file into the test's
// temporary directory.
func openSQLite(t testing.TB) string {
	t.Helper()
	sqliteTemplate.once.Do(func() {
		dir, err := os.MkdirTemp("", "relink-testdb-")
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		path := filepath.Join(dir, "template.db")
		db, err := models.Open("sqlite:" + path)
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		err = db.Migrate(context.Background())
		// Closing the last connection checkpoints the WAL into the file.
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		sqliteTemplate.path, sqliteTemplate.err = path, err
	})
	if sqliteTemplate.err != nil {
		t.Fatalf("sqlite template: %v", sqliteTemplate.err)
	}
	dst := filepath.Join(t.TempDir(), "relink.db")
	if err := copyFile(sqliteTemplate.path, dst); err != nil {
		t.Fatalf("sqlite template: %v", err)
	}
	return "sqlite:" + dst
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("create %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

var pgTemplate struct {
	once sync.Once
	name string
	err  error
}

// migrationsHash names the template: a change to any migration file makes
// a new template, so runs of different checkouts never share one.
func migrationsHash(dialect string) (string, error) {
	fsys, err := migrations.FS(dialect)
	if err != nil {
		return "", err
	}
	var names []string
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	}); err != nil {
		return "", fmt.Errorf("migrations: %w", err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", fmt.Errorf("migrations: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// withDatabase is base with its database name replaced.
func withDatabase(base, name string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("RELINK_TEST_DATABASE_URL: %w", err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// pgTemplateName makes sure the migrated template database exists and
// returns its name. Processes running side by side (go test runs packages
// in parallel) serialise on an advisory lock; the first builds it under a
// temporary name and renames it when complete, so no one clones a half-
// migrated template.
func pgTemplateName(admin *sql.DB, base string) (string, error) {
	pgTemplate.once.Do(func() {
		sum, err := migrationsHash("postgres")
		if err != nil {
			pgTemplate.err = err
			return
		}
		name := "relink_tpl_" + sum
		pgTemplate.name, pgTemplate.err = name, buildPGTemplate(admin, base, name)
	})
	return pgTemplate.name, pgTemplate.err
}

func buildPGTemplate(admin *sql.DB, base, name string) error {
	ctx := context.Background()
	conn, err := admin.Conn(ctx) // the advisory lock belongs to one session
	if err != nil {
		return fmt.Errorf("connect postgres: %w", err)
	}
	defer conn.Close()
	h := fnv.New64a()
	h.Write([]byte(name))
	key := int64(h.Sum64() >> 1)
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return fmt.Errorf("lock template: %w", err)
	}
	defer conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", key) //nolint:errcheck // the session ends next
	var exists bool
	if err := conn.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look for template: %w", err)
	}
	if exists {
		return nil
	}
	building := name + "_build"
	if _, err := conn.ExecContext(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop half-built template: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "CREATE DATABASE "+building); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	u, err := withDatabase(base, building)
	if err != nil {
		return err
	}
	db, err := models.Open(u)
	if err != nil {
		return fmt.Errorf("open template: %w", err)
	}
	err = db.Migrate(ctx)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "ALTER DATABASE "+building+" RENAME TO "+name); err != nil {
		return fmt.Errorf("rename template: %w", err)
	}
	return nil
}

// openPostgres clones the migrated template into a database of the test's
// own. DROP DATABASE waits for a checkpoint (0.2 s to many seconds on a
// busy machine), so the test does not wait for it: the drop runs in the
// background, and databases a finished process left behind (it exited
// before its drops ran) are dropped by the next process that opens one:
// each name carries its process id.
func openPostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv("RELINK_TEST_DATABASE_URL")
	if base == "" {
		t.Skip("RELINK_TEST_DATABASE_URL not set")
	}
	admin := pgAdmin(t, base)
	tpl, err := pgTemplateName(admin, base)
	if err != nil {
		t.Fatalf("postgres template: %v", err)
	}
	collectOrphans(admin)
	name := fmt.Sprintf("t_%d_%s", os.Getpid(), strings.ToLower(ids.Nano(10)))
	if _, err := admin.Exec("CREATE DATABASE " + name + " TEMPLATE " + tpl + " STRATEGY WAL_LOG"); err != nil {
		t.Fatalf("clone template: %v", err)
	}
	t.Cleanup(func() { dropLater(admin, name) })
	u, err := withDatabase(base, name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

var admins struct {
	sync.Mutex
	db   *sql.DB
	drop sync.WaitGroup
	gc   sync.Once
}

// pgAdmin is the process's connection pool for creating and dropping
// databases.
func pgAdmin(t testing.TB, base string) *sql.DB {
	t.Helper()
	admins.Lock()
	defer admins.Unlock()
	if admins.db == nil {
		db, err := sql.Open("pgx", base)
		if err != nil {
			t.Fatalf("connect postgres: %v", err)
		}
		admins.db = db
	}
	return admins.db
}

func dropLater(admin *sql.DB, name string) {
	admins.drop.Add(1)
	go func() {
		defer admins.drop.Done()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "testdb: drop database %s: %v\n", name, err)
		}
	}()
}

// collectOrphans drops, in the background, the test databases of
// processes that no longer run.
func collectOrphans(admin *sql.DB) {
	admins.gc.Do(func() {
		rows, err := admin.Query(`SELECT datname FROM pg_database WHERE datname LIKE 't\_%\_%'`)
		if err != nil {
			return
		}
		var names []string
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil {
				names = append(names, n)
			}
		}
		rows.Close()
		for _, n := range names {
			var pid int
			if _, err := fmt.Sscanf(strings.SplitN(n, "_", 3)[1], "%d", &pid); err != nil || pid == os.Getpid() || alive(pid) {
				continue
			}
			dropLater(admin, n)
		}
	})
}

// alive reports whether a process with the id runs (signal 0 checks
// without sending anything).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
