package webhooks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/relinkhq/relink/models"
)

// attemptsPerInsert is how many delivery-log rows one INSERT writes.
const attemptsPerInsert = 100

var sqliteAttemptsPrefix = "INSERT INTO webhook_attempts (delivery_id, webhook_id, event_id, event, message_id, url, " +
	"http_status, request_body, response_body, error, duration_ms, created_at) VALUES "

// insertAttempts writes the delivery log rows of one recording round. At
// click volume this is a row per click, and on SQLite a gorm batch insert of
// 100 rows × 12 bound parameters cost about 16 µs of CPU per row (the
// driver matches parameters to arguments in quadratic time, and every
// statement is parsed anew): there the rows are written as SQL literals, as
// the click writer does (models.InsertClicksSQLite), with NUL bytes and
// invalid UTF-8 replaced (a receiver's response body may hold either).
// PostgreSQL keeps gorm's batches.
func insertAttempts(ctx context.Context, tx *models.DB, logs []Attempt) error {
	if len(logs) == 0 {
		return nil
	}
	// A receiver's answer is stored as text: PostgreSQL refuses NUL bytes
	// and invalid UTF-8 in text, and one such answer would fail the whole
	// round's transaction, leaving its deliveries to be sent again forever.
	for i := range logs {
		logs[i].ResponseBody, logs[i].Error = validText(logs[i].ResponseBody), validText(logs[i].Error)
	}
	if tx.Dialect != "sqlite" {
		return tx.WithContext(ctx).Omit("id").CreateInBatches(logs, attemptsPerInsert).Error
	}
	pool := tx.Statement.ConnPool    // the caller's transaction
	ctx = context.WithoutCancel(ctx) // bounded by the transaction's context already
	var b strings.Builder
	var num [24]byte
	for start := 0; start < len(logs); start += attemptsPerInsert {
		chunk := logs[start:min(start+attemptsPerInsert, len(logs))]
		b.Reset()
		b.WriteString(sqliteAttemptsPrefix)
		for i := range chunk {
			a := &chunk[i]
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			b.Write(strconv.AppendInt(num[:0], a.DeliveryID, 10))
			for _, s := range [...]string{a.WebhookID, a.EventID, a.Event, a.MessageID, a.URL} {
				b.WriteByte(',')
				models.WriteSQLiteString(&b, s)
			}
			b.WriteByte(',')
			b.Write(strconv.AppendInt(num[:0], int64(a.HTTPStatus), 10))
			for _, s := range [...]string{a.RequestBody, a.ResponseBody, a.Error} {
				b.WriteByte(',')
				models.WriteSQLiteString(&b, s)
			}
			b.WriteByte(',')
			b.Write(strconv.AppendInt(num[:0], a.DurationMS, 10))
			b.WriteString(",'")
			b.WriteString(a.CreatedAt.UTC().Format(models.SQLiteTimeLayout))
			b.WriteString("')")
		}
		if _, err := pool.ExecContext(ctx, b.String()); err != nil {
			return fmt.Errorf("insert delivery log rows: %w", err)
		}
	}
	return nil
}

// validText is s with invalid UTF-8 and NUL bytes replaced by U+FFFD.
func validText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
