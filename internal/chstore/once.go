package chstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// keyed is an event row with its identity: workspace, time (µs) and id.
type keyed interface {
	rowKey() (ws string, ts int64, id string)
}

func (r clickRow) rowKey() (string, int64, string) { return r.WorkspaceID, r.TS, r.ClickID }
func (r leadRow) rowKey() (string, int64, string)  { return r.WorkspaceID, r.TS, r.EventID }

// idColumn is each event table's id column.
var idColumn = map[string]string{"clicks": "click_id", "lead_events": "event_id", "sale_events": "event_id"}

// InsertOnce inserts the event rows (ClickRow, LeadRow, SaleRow values) of
// table that ClickHouse does not hold yet, so that an event is written
// exactly once however often its batch is retried. This is what lets the
// rollups and the raw reads do without FINAL: the rollups add every
// inserted row, and 18.16 deduplicates repeated insert blocks only for
// replicated tables. Leads and sales are counted into the rollups by
// materialized views (migration 01550); clicks go in with their rollups,
// summed here from the new rows only, in the same INSERT (clickRollups,
// migration 01570).
//
// It reads which of the batch's ids are stored (one primary-key range read:
// the batch's workspaces and time span), and inserts the others under a
// fresh query_id. When the insert's outcome is unknown (the connection
// broke or timed out, so the server may still be writing it) it waits until
// that query is no longer running before it returns the error: the retry's
// read then sees every row the first attempt wrote. One writer per event is
// the callers' part: a click is retried only by the instance whose journal
// holds it, an outbox entry is copied under a row lock (Outbox), the
// backfill copies what the live path did not.
func (c *Client) InsertOnce(ctx context.Context, table string, rows []any) error {
	if _, ok := idColumn[table]; !ok {
		return fmt.Errorf("clickhouse: insert once into %s: not an event table", table)
	}
	if table == "clicks" { // insertClicksOnce keys the clicks itself
		cs := make([]models.Click, len(rows))
		for i, r := range rows {
			k, ok := r.(clickRow)
			if !ok {
				return fmt.Errorf("clickhouse: insert once into clicks: row %T is not a ClickRow", r)
			}
			cs[i] = k.click()
		}
		return c.insertClicksOnce(ctx, cs)
	}
	keys := make([]rowKey, len(rows))
	for i, r := range rows {
		k, ok := r.(keyed)
		if !ok {
			return fmt.Errorf("clickhouse: insert once into %s: row %T has no key", table, r)
		}
		keys[i].ws, keys[i].ts, keys[i].id = k.rowKey()
	}
	fresh, err := c.freshRows(ctx, table, keys)
	if err != nil || len(fresh) == 0 {
		return err
	}
	if len(fresh) < len(rows) {
		kept := make([]any, len(fresh))
		for i, j := range fresh {
			kept[i] = rows[j]
		}
		rows = kept
	}
	return c.insertQuery(ctx, func(params url.Values) error { return c.insert(ctx, table, rows, params) })
}

// insertClicksOnce is InsertOnce for clicks: the batch's clicks ClickHouse
// does not hold yet and their rollups (clickRollups), in one INSERT into
// clicks_ingest (migration 01570).
func (c *Client) insertClicksOnce(ctx context.Context, batch []models.Click) error {
	keys := make([]rowKey, len(batch))
	for i := range batch {
		keys[i] = rowKey{batch[i].WorkspaceID, Micros(batch[i].Timestamp), batch[i].ClickID}
	}
	fresh, err := c.freshRows(ctx, "clicks", keys)
	if err != nil || len(fresh) == 0 {
		return err
	}
	if len(fresh) < len(batch) {
		kept := make([]models.Click, len(fresh))
		for i, j := range fresh {
			kept[i] = batch[j]
		}
		batch = kept
	}
	rolled := clickRollups(batch)
	return c.insertQuery(ctx, func(params url.Values) error { return c.insertClicks(ctx, batch, rolled, params) })
}

// rowKey is an event's identity: workspace, time (µs) and id.
type rowKey struct {
	ws string
	ts int64
	id string
}

// freshRows is the indexes of the rows whose ids table does not hold.
func (c *Client) freshRows(ctx context.Context, table string, keys []rowKey) ([]int, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	wss := map[string]bool{}
	ids := make([]string, len(keys))
	lo, hi := keys[0].ts, keys[0].ts
	for i, k := range keys {
		wss[k.ws] = true
		ids[i] = k.id
		lo, hi = min(lo, k.ts), max(hi, k.ts)
	}
	ws := make([]string, 0, len(wss))
	for w := range wss {
		ws = append(ws, w)
	}
	have, err := c.storedIDs(ctx, table, ws, lo, hi, ids)
	if err != nil {
		return nil, fmt.Errorf("insert once into %s: %w", table, err)
	}
	fresh := make([]int, 0, len(keys))
	for i, id := range ids {
		if !have[id] {
			fresh = append(fresh, i)
		}
	}
	return fresh, nil
}

// insertQuery runs an insert under a fresh query_id; when its outcome is
// unknown (no answer) it waits until that query is no longer running
// before it returns the error.
func (c *Client) insertQuery(ctx context.Context, insert func(params url.Values) error) error {
	qid := newQueryID()
	err := insert(url.Values{"query_id": {qid}})
	var answered *Error
	if err != nil && !errors.As(err, &answered) {
		c.awaitQuery(qid)
	}
	return err
}

// storedIDs is which of ids table holds, read over the workspaces ws and
// the time span [lo, hi] (µs): one primary-key range read.
//
// A batch's span usually holds few rows besides its own (the pipeline's
// batches follow the clock), so the ids of the whole span are read and
// matched here: ClickHouse 18.16 spent ~30 µs per id parsing and hashing
// an IN list of a 10,000-click batch, a third of the insert's time
// (bench/README.md, issue 34). A span holding more rows than
// spanReadFactor × the batch (a batch mixing old and new events) is read
// with the IN list instead.
func (c *Client) storedIDs(ctx context.Context, table string, ws []string, lo, hi int64, ids []string) (map[string]bool, error) {
	idCol := idColumn[table]
	// time (whole seconds) prunes by the primary key; ts (µs) keeps out
	// the rows of the span's first and last seconds outside it, which are
	// usually the previous batch's: a batch nothing has written before
	// then reads no row.
	span := fmt.Sprintf("SELECT %s FROM %s WHERE workspace_id IN %s AND time >= toDateTime(%d) AND time <= toDateTime(%d) AND ts >= %d AND ts <= %d",
		idCol, table, quoteList(ws), floorDiv(lo, 1e6), floorDiv(hi, 1e6), lo, hi)
	var want map[string]bool // built at the first row read
	have := map[string]bool{}
	limit := spanReadFactor*len(ids) + 1000
	read := 0
	err := c.Query(ctx, fmt.Sprintf("%s LIMIT %d", span, limit+1), func(cols []string) error {
		read++
		if want == nil {
			want = make(map[string]bool, len(ids))
			for _, id := range ids {
				want[id] = true
			}
		}
		if want[cols[0]] {
			have[cols[0]] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("stored ids: %w", err)
	}
	if read <= limit {
		return have, nil
	}
	clear(have)
	if err := c.Query(ctx, span+" AND "+idCol+" IN "+quoteList(ids), func(cols []string) error { have[cols[0]] = true; return nil }); err != nil {
		return nil, fmt.Errorf("stored ids: %w", err)
	}
	return have, nil
}

// spanReadFactor bounds storedIDs' read of a whole span, in rows per id.
const spanReadFactor = 4

func newQueryID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "relink-" + hex.EncodeToString(b)
}

// awaitQuery waits (up to a minute) until the query is no longer running
// on the server.
func (c *Client) awaitQuery(qid string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		running := true
		err := c.Query(ctx, "SELECT count() FROM system.processes WHERE query_id = "+Quote(qid), func(cols []string) error {
			running = cols[0] != "0"
			return nil
		})
		if err == nil && !running {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = Quote(v)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
