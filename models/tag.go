package models

import "time"

// TagColors is the closed set of tag colours the SDK accepts (links.md §2.2).
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
