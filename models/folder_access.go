package models

import (
	"context"
	"time"

	"gorm.io/gorm/clause"
)

// FolderRole is a user's role in a folder (spec/parity.md §13.1).
type FolderRole string

// The folder roles.
const (
	FolderOwner  FolderRole = "owner"
	FolderEditor FolderRole = "editor"
	FolderViewer FolderRole = "viewer"
)

// FolderRoles lists the roles in the order the console offers them.
var FolderRoles = []FolderRole{FolderOwner, FolderEditor, FolderViewer}

// FolderPerm is a folder permission (upstream's FOLDER_PERMISSIONS).
type FolderPerm string

// The folder permissions.
const (
	PermFolderRead       FolderPerm = "folders.read"
	PermFolderWrite      FolderPerm = "folders.write"
	PermFolderLinksWrite FolderPerm = "folders.links.write"
	PermFolderUsersWrite FolderPerm = "folders.users.write"
)

// Can reports whether role r holds permission p (upstream's
// FOLDER_USER_ROLE_TO_PERMISSIONS); the empty role holds none.
func (r FolderRole) Can(p FolderPerm) bool {
	switch r {
	case FolderOwner:
		return true
	case FolderEditor:
		return p == PermFolderRead || p == PermFolderLinksWrite
	case FolderViewer:
		return p == PermFolderRead
	}
	return false
}

// FolderUser is a user's own role in a folder; Role nil is an explicit "no
// access" that overrides the folder's accessLevel.
type FolderUser struct {
	FolderID  string  `gorm:"primaryKey"`
	UserID    string  `gorm:"primaryKey"`
	Role      *string // owner | editor | viewer | nil
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName pins the table.
func (FolderUser) TableName() string { return "folder_users" }

// EffectiveFolderRole is upstream's findFolderUserRole: a workspace owner
// owns every folder; else the user's own row decides (nil role: none);
// else the folder's accessLevel (write → editor, read → viewer, null → none).
// "" means no access.
func EffectiveFolderRole(accessLevel *string, own *FolderUser, wsRole Role) FolderRole {
	if wsRole == RoleOwner {
		return FolderOwner
	}
	if own != nil {
		if own.Role == nil {
			return ""
		}
		return FolderRole(*own.Role)
	}
	if accessLevel == nil {
		return ""
	}
	switch *accessLevel {
	case "write":
		return FolderEditor
	case "read":
		return FolderViewer
	}
	return ""
}

// FolderUsersOf returns the user's rows among the folders, by folder id.
func (db *DB) FolderUsersOf(ctx context.Context, userID string, folderIDs []string) (map[string]*FolderUser, error) {
	out := map[string]*FolderUser{}
	if len(folderIDs) == 0 || userID == "" {
		return out, nil
	}
	var rows []FolderUser
	if err := db.WithContext(ctx).Where("user_id = ? AND folder_id IN ?", userID, folderIDs).Find(&rows).Error; err != nil {
		return nil, dbErr(err, "get folder users", "", "")
	}
	for i := range rows {
		out[rows[i].FolderID] = &rows[i]
	}
	return out, nil
}

// FolderUsers returns every row of a folder, by user id.
func (db *DB) FolderUsers(ctx context.Context, folderID string) (map[string]*FolderUser, error) {
	var rows []FolderUser
	if err := db.WithContext(ctx).Where("folder_id = ?", folderID).Find(&rows).Error; err != nil {
		return nil, dbErr(err, "list folder users", "", "")
	}
	out := make(map[string]*FolderUser, len(rows))
	for i := range rows {
		out[rows[i].UserID] = &rows[i]
	}
	return out, nil
}

// SetFolderUserRole upserts a user's role in a folder (nil: no access).
func (db *DB) SetFolderUserRole(ctx context.Context, folderID, userID string, role *string, now time.Time) error {
	row := FolderUser{FolderID: folderID, UserID: userID, Role: role, CreatedAt: now, UpdatedAt: now}
	err := db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "folder_id"}, {Name: "user_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"role", "updated_at"}),
	}).Create(&row).Error
	return dbErr(err, "set folder user role", "", "")
}

// folderVisibleSQL is upstream getFolders' filter for a non-owner (one
// argument: the user id, twice): folders with an accessLevel or a role of
// the user's own, minus those where the user's role is explicitly null.
const folderVisibleSQL = `((folders.access_level IS NOT NULL AND NOT EXISTS (SELECT 1 FROM folder_users fu WHERE fu.folder_id = folders.id AND fu.user_id = ? AND fu.role IS NULL))` +
	` OR EXISTS (SELECT 1 FROM folder_users fu WHERE fu.folder_id = folders.id AND fu.user_id = ? AND fu.role IS NOT NULL))`

// visibleFolderIDsSQL selects the ids of the workspace's folders visible to
// a user (arguments: workspace id, user id, user id).
const visibleFolderIDsSQL = `SELECT folders.id FROM folders WHERE folders.workspace_id = ? AND ` + folderVisibleSQL
