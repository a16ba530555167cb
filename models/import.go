package models

import (
	"context"
	"strings"
	"time"
)

// FolderByName finds one of the workspace's folders by name, compared
// case-insensitively (importers file links into folders by name).
func (db *DB) FolderByName(ctx context.Context, workspaceID, name string) (*Folder, error) {
	var f Folder
	err := db.WithContext(ctx).Where("workspace_id = ? AND lower(name) = ?", workspaceID, strings.ToLower(name)).
		Order("created_at").Take(&f).Error
	if err != nil {
		return nil, dbErr(err, "get folder by name", "Folder not found.", "")
	}
	return &f, nil
}

// SetLinkCreatedAt backdates an imported link to its creation time at the
// source, so exports and date filters see the original date.
func (db *DB) SetLinkCreatedAt(ctx context.Context, workspaceID, linkID string, at time.Time) error {
	err := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND id = ?", workspaceID, linkID).
		Update("created_at", at.UTC()).Error
	return dbErr(err, "set link created_at", "", "")
}
