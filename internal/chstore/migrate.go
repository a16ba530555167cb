package chstore

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/migrations"
)

// MinVersion is the oldest ClickHouse server Relink runs on (Debian 12's
// clickhouse-server); docs/clickhouse.md lists what the SQL avoids for it.
var MinVersion = []int{18, 16}

// migration is one file of migrations/clickhouse: statements separated by
// ";" at the end of a line, optionally headed "-- min_version: X.Y" (it
// waits until the server is at least that version) and
// "-- settings_if_known: name=value ..." (settings its statements run with
// on servers that have them; others run them without).
type migration struct {
	version  int
	name     string
	min      []int
	settings url.Values
	stmts    []string
}

func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("clickhouse migrations: %w", err)
	}
	sort.Strings(names)
	var out []migration
	for _, n := range names {
		v, err := strconv.Atoi(strings.SplitN(n, "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("clickhouse migration %s: no version number", n)
		}
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("clickhouse migration %s: %w", n, err)
		}
		m := migration{version: v, name: n}
		var cur []string
		for _, line := range strings.Split(string(b), "\n") {
			t := strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(t, "-- min_version:"); ok {
				if m.min, err = parseVersion(strings.TrimSpace(rest)); err != nil {
					return nil, fmt.Errorf("clickhouse migration %s: %w", n, err)
				}
				continue
			}
			if rest, ok := strings.CutPrefix(t, "-- settings_if_known:"); ok {
				m.settings = url.Values{}
				for _, kv := range strings.Fields(rest) {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || !validIdent(k) {
						return nil, fmt.Errorf("clickhouse migration %s: setting %q is not name=value", n, kv)
					}
					m.settings.Set(k, v)
				}
				continue
			}
			if strings.HasPrefix(t, "--") || t == "" {
				continue
			}
			cur = append(cur, line)
			if strings.HasSuffix(t, ";") {
				m.stmts = append(m.stmts, strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ";"))
				cur = nil
			}
		}
		if len(cur) > 0 {
			m.stmts = append(m.stmts, strings.Join(cur, "\n"))
		}
		out = append(out, m)
	}
	return out, nil
}

// Migrate creates the database when missing and applies the migrations
// not applied yet, in order, recording each in schema_migrations. Every
// statement is idempotent (IF NOT EXISTS, MODIFY COLUMN), so two instances
// starting at once do no harm. A migration whose min_version the server
// does not reach is skipped and applied after an upgrade.
func (c *Client) Migrate(ctx context.Context, log *slog.Logger) error {
	return c.migrate(ctx, log, 0)
}

// migrate applies the migrations before version below (every one when
// below is 0; tests start from an older schema with it).
func (c *Client) migrate(ctx context.Context, log *slog.Logger, below int) error {
	v, err := c.Version(ctx)
	if err != nil {
		return err
	}
	if !atLeast(v, MinVersion) {
		return fmt.Errorf("clickhouse %v is older than the minimum %v (docs/clickhouse.md)", v, MinVersion)
	}
	if err := c.exec(ctx, "CREATE DATABASE IF NOT EXISTS "+c.Database, false); err != nil {
		return err
	}
	if err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, applied DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY version"); err != nil {
		return err
	}
	done, err := c.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	ms, err := loadMigrations(migrations.ClickHouse())
	if err != nil {
		return err
	}
	for _, m := range ms {
		if done[m.version] || below > 0 && m.version >= below {
			continue
		}
		if m.min != nil && !atLeast(v, m.min) {
			log.Info("clickhouse migration waits for a newer server", "migration", m.name, "needs", m.min, "server", v)
			continue
		}
		params, err := c.knownSettings(ctx, m.settings)
		if err != nil {
			return fmt.Errorf("clickhouse migration %s: %w", m.name, err)
		}
		for _, s := range m.stmts {
			if err := c.execWith(ctx, s, params); err != nil {
				return fmt.Errorf("clickhouse migration %s: %w", m.name, err)
			}
		}
		if err := c.Exec(ctx, fmt.Sprintf("INSERT INTO schema_migrations (version) VALUES (%d)", m.version)); err != nil {
			return fmt.Errorf("clickhouse migration %s: record: %w", m.name, err)
		}
		log.Info("clickhouse migration applied", "migration", m.name)
	}
	return nil
}

// knownSettings is the part of settings the server knows (system.settings).
func (c *Client) knownSettings(ctx context.Context, settings url.Values) (url.Values, error) {
	known := url.Values{}
	if len(settings) == 0 {
		return known, nil
	}
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	err := c.query(ctx, "SELECT name FROM system.settings WHERE name IN "+quoteList(names), url.Values{}, false, func(cols []string) error {
		known.Set(cols[0], settings.Get(cols[0]))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	return known, nil
}

// appliedMigrations is the set of versions recorded in schema_migrations.
func (c *Client) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	done := map[int]bool{}
	err := c.Query(ctx, "SELECT DISTINCT version FROM schema_migrations", func(cols []string) error {
		n, err := strconv.Atoi(cols[0])
		done[n] = true
		return err
	})
	return done, err
}
