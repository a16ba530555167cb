package models

import (
	"context"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// TagColors is the closed set of tag colours the SDK accepts (spec/links.md §2.2).
var TagColors = []string{"red", "yellow", "green", "blue", "purple", "brown", "gray", "pink"}

// Tag labels links within a workspace; names are unique case-insensitively.
type Tag struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string `gorm:"column:workspace_id"`
	Name        string
	Color       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TableName pins the table.
func (Tag) TableName() string { return "tags" }

// LinkTag associates a tag with a link.
type LinkTag struct {
	LinkID    string `gorm:"primaryKey;column:link_id"`
	TagID     string `gorm:"primaryKey;column:tag_id"`
	CreatedAt time.Time
}

// TableName pins the table.
func (LinkTag) TableName() string { return "link_tags" }

// MsgTagExists is the conflict for a taken tag name.
const MsgTagExists = "A tag with that name already exists."

// TagFilter selects tags for GET /tags.
type TagFilter struct {
	Search        string
	IDs           []string
	SortBy        string // "name" | "createdAt"
	Desc          bool
	Offset, Limit int
}

// ListTags returns one page of a workspace's tags.
func (db *DB) ListTags(ctx context.Context, workspaceID string, f TagFilter) ([]Tag, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.Search != "" {
		q = q.Where(`lower(name) LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.Search))+"%")
	}
	if len(f.IDs) > 0 {
		q = q.Where("id IN ?", f.IDs)
	}
	col := "lower(name)" // the same order on SQLite and PostgreSQL
	if f.SortBy == "createdAt" {
		col = "created_at"
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	var ts []Tag
	err := q.Order(col + dir).Order("id" + dir).Offset(f.Offset).Limit(f.Limit).Find(&ts).Error
	return ts, dbErr(err, "list tags", "", "")
}

// TagsByIDs returns the workspace's tags among ids, in the order of ids.
func (db *DB) TagsByIDs(ctx context.Context, workspaceID string, ids []string) ([]Tag, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var ts []Tag
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, ids).Find(&ts).Error; err != nil {
		return nil, dbErr(err, "get tags", "", "")
	}
	byID := map[string]Tag{}
	for _, t := range ts {
		byID[t.ID] = t
	}
	out := make([]Tag, 0, len(ts))
	for _, id := range ids {
		if t, ok := byID[id]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// TagsByNames returns the workspace's tags whose names are among names
// (case-insensitive), in the order of names.
func (db *DB) TagsByNames(ctx context.Context, workspaceID string, names []string) ([]Tag, error) {
	if len(names) == 0 {
		return nil, nil
	}
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	var ts []Tag
	if err := db.WithContext(ctx).Where("workspace_id = ? AND lower(name) IN ?", workspaceID, lower).Find(&ts).Error; err != nil {
		return nil, dbErr(err, "get tags by name", "", "")
	}
	byName := map[string]Tag{}
	for _, t := range ts {
		byName[strings.ToLower(t.Name)] = t
	}
	out := make([]Tag, 0, len(ts))
	for _, n := range lower {
		if t, ok := byName[n]; ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// TagByID loads one of the workspace's tags.
func (db *DB) TagByID(ctx context.Context, workspaceID, id string) (*Tag, error) {
	var t Tag
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&t).Error
	if err != nil {
		return nil, dbErr(err, "get tag", "Tag not found.", "")
	}
	return &t, nil
}

// InsertTag stores a new tag; a taken name (case-insensitive) is a 409.
func (db *DB) InsertTag(ctx context.Context, t *Tag) error {
	if t.ID == "" {
		t.ID = ids.New(ids.Tag)
	}
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.tagNameFree(ctx, t); err != nil {
			return err
		}
		return dbErr(tx.WithContext(ctx).Create(t).Error, "create tag", "", MsgTagExists)
	})
}

// SaveTag writes a tag's name and color; a taken name is a 409.
func (db *DB) SaveTag(ctx context.Context, t *Tag) error {
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.tagNameFree(ctx, t); err != nil {
			return err
		}
		res := tx.WithContext(ctx).Model(t).Where("workspace_id = ?", t.WorkspaceID).Select("name", "color", "updated_at").Updates(t)
		if res.Error == nil && res.RowsAffected == 0 {
			return apierr.New(apierr.NotFound, "Tag not found.")
		}
		return dbErr(res.Error, "update tag", "", MsgTagExists)
	})
}

func (db *DB) tagNameFree(ctx context.Context, t *Tag) error {
	var n int64
	err := db.WithContext(ctx).Model(&Tag{}).Where("workspace_id = ? AND lower(name) = ? AND id <> ?", t.WorkspaceID, strings.ToLower(t.Name), t.ID).Count(&n).Error
	if err != nil {
		return dbErr(err, "check tag name", "", "")
	}
	if n > 0 {
		return apierr.New(apierr.Conflict, MsgTagExists)
	}
	return nil
}

// DeleteTag removes one of the workspace's tags; links lose it.
func (db *DB) DeleteTag(ctx context.Context, workspaceID, id string) error {
	res := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Tag{})
	if res.Error != nil {
		return dbErr(res.Error, "delete tag", "", "")
	}
	if res.RowsAffected == 0 {
		return apierr.New(apierr.NotFound, "Tag not found.")
	}
	return nil
}
