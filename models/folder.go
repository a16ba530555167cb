package models

import "time"

// Folder groups links within a workspace (links.md §8).
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
