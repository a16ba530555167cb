package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
	sqlite3 "modernc.org/sqlite/lib"
)

// withPostgresTimeouts adds statement_timeout (a query the server runs too
// long is cancelled by the server) and connect_timeout (an unreachable
// server fails the dial) to a postgres:// URL, unless the URL sets them.
func withPostgresTimeouts(databaseURL string, timeout time.Duration) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("open postgres: parse URL: %w", err)
	}
	q := u.Query()
	if q.Get("statement_timeout") == "" {
		q.Set("statement_timeout", strconv.FormatInt(timeout.Milliseconds(), 10))
	}
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", strconv.Itoa(max(1, int((timeout+time.Second-1)/time.Second))))
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

const deadlineCancel = "relink:deadline_cancel"

// registerDeadlines gives every GORM call whose context has no deadline one
// of timeout: a hung database (a stopped process holds its sockets open, so
// statement_timeout never fires) then fails the call instead of holding the
// request forever. Row/Rows calls get the deadline without an early cancel
// (the caller reads the rows after the callback returns; the timer ends it).
func registerDeadlines(g *gorm.DB, timeout time.Duration) error {
	before := func(cancelAfter bool) func(*gorm.DB) {
		return func(tx *gorm.DB) {
			ctx := tx.Statement.Context
			if ctx == nil {
				ctx = context.Background()
			}
			if _, ok := ctx.Deadline(); ok {
				return
			}
			ctx, cancel := context.WithTimeout(ctx, timeout)
			tx.Statement.Context = ctx
			if cancelAfter {
				tx.InstanceSet(deadlineCancel, cancel)
			} else {
				_ = cancel // released by its timer; the rows outlive the callback
			}
		}
	}
	after := func(tx *gorm.DB) {
		if v, ok := tx.InstanceGet(deadlineCancel); ok {
			if cancel, ok := v.(context.CancelFunc); ok {
				cancel()
			}
		}
	}
	cb := g.Callback()
	var errs []error
	reg := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("register %s: %w", name, err))
		}
	}
	reg("create", cb.Create().Before("gorm:create").Register("relink:deadline", before(true)))
	reg("create", cb.Create().After("gorm:create").Register("relink:deadline_end", after))
	reg("query", cb.Query().Before("gorm:query").Register("relink:deadline", before(true)))
	reg("query", cb.Query().After("gorm:query").Register("relink:deadline_end", after))
	reg("update", cb.Update().Before("gorm:update").Register("relink:deadline", before(true)))
	reg("update", cb.Update().After("gorm:update").Register("relink:deadline_end", after))
	reg("delete", cb.Delete().Before("gorm:delete").Register("relink:deadline", before(true)))
	reg("delete", cb.Delete().After("gorm:delete").Register("relink:deadline_end", after))
	reg("raw", cb.Raw().Before("gorm:raw").Register("relink:deadline", before(true)))
	reg("raw", cb.Raw().After("gorm:raw").Register("relink:deadline_end", after))
	reg("row", cb.Row().Before("gorm:row").Register("relink:deadline", before(false)))
	return errors.Join(errs...)
}

// IsUnavailable reports an error that means the database did not answer in
// time or could not be reached (as opposed to a bad query): a deadline, a
// statement timeout or cancellation, a refused or broken connection, SQLite
// busy past its timeout, a SQLite statement its deadline interrupted.
// Callers answer it with 503 and Retry-After.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// 57014 query_canceled (statement_timeout), 57P01-57P03 shutdown
		// and cannot-connect-now, class 08 connection exceptions.
		return pgErr.Code == "57014" || strings.HasPrefix(pgErr.Code, "57P") || strings.HasPrefix(pgErr.Code, "08")
	}
	// SQLite has no server to time a statement out: the deadline above
	// interrupts it (sqlite3_interrupt), and the driver answers "interrupted
	// (9)" rather than the context's error.
	var sqliteErr interface{ Code() int }
	if errors.As(err, &sqliteErr) && sqliteErr.Code()&0xff == sqlite3.SQLITE_INTERRUPT {
		return true
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY") ||
		strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection refused") ||
		strings.Contains(msg, "timeout: context") || strings.Contains(msg, "failed to connect")
}
