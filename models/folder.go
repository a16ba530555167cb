package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Folder groups links within a workspace (spec/links.md §8).
type Folder struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string `gorm:"column:workspace_id"`
	Name        string
	Description *string
	Type        string  // "default" | "mega"
	AccessLevel *string `gorm:"column:access_level"` // "write" | "read" | nil
	UserID      *string `gorm:"column:user_id"`
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TableName pins the table.
func (Folder) TableName() string { return "folders" }

// FolderByID loads a folder by id. A folder of another workspace is 404
// "Folder does not belong to the workspace." (spec/links.md §4.6).
func (db *DB) FolderByID(ctx context.Context, workspaceID, id string) (*Folder, error) {
	var f Folder
	err := db.WithContext(ctx).Where("id = ?", id).Take(&f).Error
	if err != nil {
		return nil, dbErr(err, "get folder", "Folder not found.", "")
	}
	if f.WorkspaceID != workspaceID {
		return nil, apierr.New(apierr.NotFound, "Folder does not belong to the workspace.")
	}
	return &f, nil
}

// FoldersByIDs returns the workspace's folders among ids.
func (db *DB) FoldersByIDs(ctx context.Context, workspaceID string, ids []string) (map[string]Folder, error) {
	out := map[string]Folder{}
	if len(ids) == 0 {
		return out, nil
	}
	var fs []Folder
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, ids).Find(&fs).Error; err != nil {
		return nil, dbErr(err, "get folders", "", "")
	}
	for _, f := range fs {
		out[f.ID] = f
	}
	return out, nil
}

// FolderFilter selects folders for GET /folders.
type FolderFilter struct {
	Search        string
	Offset, Limit int
	// VisibleTo, when set, keeps the folders that user (a non-owner member)
	// can see (spec/links.md §8.2, spec/parity.md §13.3).
	VisibleTo string
}

// ListFolders returns one page of a workspace's folders, oldest first.
func (db *DB) ListFolders(ctx context.Context, workspaceID string, f FolderFilter) ([]Folder, error) {
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.VisibleTo != "" {
		q = q.Where(folderVisibleSQL, f.VisibleTo, f.VisibleTo)
	}
	if f.Search != "" {
		q = q.Where(`lower(name) LIKE ? ESCAPE '\'`, "%"+likeEscape(strings.ToLower(f.Search))+"%")
	}
	var fs []Folder
	err := q.Order("created_at, id").Offset(f.Offset).Limit(f.Limit).Find(&fs).Error
	return fs, dbErr(err, "list folders", "", "")
}

// HasFolders reports whether the workspace has any folder.
func (db *DB) HasFolders(ctx context.Context, workspaceID string) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Folder{}).Where("workspace_id = ?", workspaceID).Limit(1).Count(&n).Error
	return n > 0, dbErr(err, "count folders", "", "")
}

// folderExists is the taken-name 409: POST words it bare, PATCH quotes the
// name (upstream's two routes differ).
func folderExists(name string, quoted bool) string {
	if quoted {
		return "A folder with the name \"" + name + "\" already exists."
	}
	return fmt.Sprintf("A folder with the name %s already exists.", name)
}

// InsertFolder stores a new folder, its creator (if any) as its owner; a
// taken name is a 409.
func (db *DB) InsertFolder(ctx context.Context, f *Folder) error {
	if f.ID == "" {
		f.ID = ids.New(ids.Folder)
	}
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.folderNameFree(ctx, f, false); err != nil {
			return err
		}
		if err := tx.WithContext(ctx).Create(f).Error; err != nil {
			return dbErr(err, "create folder", "", folderExists(f.Name, false))
		}
		if f.UserID == nil {
			return nil
		}
		// The creator is the folder's owner (spec/parity.md §13.1).
		owner := string(FolderOwner)
		return tx.SetFolderUserRole(ctx, f.ID, *f.UserID, &owner, f.CreatedAt)
	})
}

// SaveFolder writes a folder's name, description and access level.
func (db *DB) SaveFolder(ctx context.Context, f *Folder) error {
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.folderNameFree(ctx, f, true); err != nil {
			return err
		}
		res := tx.WithContext(ctx).Model(f).Where("workspace_id = ?", f.WorkspaceID).Select("name", "description", "access_level", "updated_at").Updates(f)
		if res.Error == nil && res.RowsAffected == 0 {
			return apierr.New(apierr.NotFound, "Folder not found.")
		}
		return dbErr(res.Error, "update folder", "", folderExists(f.Name, true))
	})
}

func (db *DB) folderNameFree(ctx context.Context, f *Folder, quoted bool) error {
	var n int64
	err := db.WithContext(ctx).Model(&Folder{}).Where("workspace_id = ? AND name = ? AND id <> ?", f.WorkspaceID, f.Name, f.ID).Count(&n).Error
	if err != nil {
		return dbErr(err, "check folder name", "", "")
	}
	if n > 0 {
		return apierr.New(apierr.Conflict, folderExists(f.Name, quoted))
	}
	return nil
}

// DeleteFolder removes one of the workspace's folders; its links move to no
// folder.
func (db *DB) DeleteFolder(ctx context.Context, workspaceID, id string) error {
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND folder_id = ?", workspaceID, id).Update("folder_id", nil).Error; err != nil {
			return dbErr(err, "unfile folder links", "", "")
		}
		res := tx.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Folder{})
		if res.Error != nil {
			return dbErr(res.Error, "delete folder", "", "")
		}
		if res.RowsAffected == 0 {
			return apierr.New(apierr.NotFound, "Folder not found.")
		}
		return nil
	})
}
