package webhooks

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/relinkhq/relink/models"
)

// attemptsPerInsert is how many delivery-log rows one INSERT writes.
const attemptsPerInsert = 100

const sqliteAttemptInsert = "INSERT INTO webhook_attempts (delivery_id, webhook_id, event_id, event, message_id, url, " +
	"http_status, request_body, response_body, error, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

// insertAttempts writes the delivery log rows of one recording round. At
// click volume this is a row per click, and on SQLite a gorm batch insert of
// 100 rows × 12 bound parameters cost about 16 µs of CPU per row (the
// driver matches parameters to arguments in quadratic time, and every
// statement is parsed anew): there one single-row statement is prepared per
// round and executed for each row. PostgreSQL keeps gorm's batches.
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
	// One statement prepared per round and executed per row: parsing a
	// 100-row VALUES list of literals cost as much as the batch saved.
	pool, ok := tx.Statement.ConnPool.(interface {
		PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	})
	if !ok {
		return tx.WithContext(ctx).Omit("id").CreateInBatches(logs, attemptsPerInsert).Error
	}
	ctx = context.WithoutCancel(ctx) // bounded by the transaction's context already
	stmt, err := pool.PrepareContext(ctx, sqliteAttemptInsert)
	if err != nil {
		return fmt.Errorf("prepare delivery log insert: %w", err)
	}
	defer stmt.Close()
	for i := range logs {
		a := &logs[i]
		if _, err := stmt.ExecContext(ctx, a.DeliveryID, a.WebhookID, a.EventID, a.Event, a.MessageID, a.URL,
			a.HTTPStatus, a.RequestBody, a.ResponseBody, a.Error, a.DurationMS,
			a.CreatedAt.UTC().Format(models.SQLiteTimeLayout)); err != nil {
			return fmt.Errorf("insert delivery log row: %w", err)
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
