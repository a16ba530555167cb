package models

import (
	"context"
	"time"
)

// LinkCreated bounds the links an export takes by their creation time (nil:
// unbounded).
type LinkCreated struct{ From, To *time.Time }

// EachLink calls fn with the workspace's links matching f, newest first (ids
// are time-ordered), batch at a time with their tags, reading by id ranges so
// that a million links never sit in memory and no page is read twice. fn's
// error stops the walk and is returned.
func (db *DB) EachLink(ctx context.Context, workspaceID string, f LinkFilter, created LinkCreated, batch int, fn func([]*Link) error) error {
	after := ""
	for {
		q := db.filterLinks(ctx, workspaceID, f, true).DB
		if created.From != nil {
			q = q.Where("links.created_at >= ?", *created.From)
		}
		if created.To != nil {
			q = q.Where("links.created_at <= ?", *created.To)
		}
		if after != "" {
			q = q.Where("links.id < ?", after)
		}
		var rows []*Link
		if err := q.Order("links.id DESC").Limit(batch).Find(&rows).Error; err != nil {
			return dbErr(err, "export links", "", "")
		}
		if len(rows) == 0 {
			return nil
		}
		if err := db.LoadTags(ctx, rows); err != nil {
			return err
		}
		if err := fn(rows); err != nil {
			return err
		}
		if len(rows) < batch {
			return nil
		}
		after = rows[len(rows)-1].ID
	}
}
