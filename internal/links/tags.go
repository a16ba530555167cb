package links

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/models"
)

// TagInput is a POST/PATCH /tags body after validation.
type TagInput struct {
	Name  string
	Color Field[string]
}

const msgBadColor = "Invalid color. Must be one of: red, yellow, green, blue, purple, brown, gray, pink"

// ParseTagInput validates a tag body (spec/links.md §7): name (or the deprecated
// tag) is required, trimmed, 1..190; color from the closed set.
func ParseTagInput(body []byte) (*TagInput, error) {
	d, err := input.Decode(body)
	if err != nil {
		return nil, err
	}
	name := d.Str("name", input.Str{Trim: true, Max: 190})
	color := d.Str("color", input.Str{})
	tag := d.Str("tag", input.Str{Trim: true, Max: 190})
	if d.Err() != nil {
		return nil, d.Err()
	}
	if color.Has() && !slices.Contains(models.TagColors, color.Value) {
		return nil, apierr.Validation("invalid_value", "color", msgBadColor)
	}
	in := &TagInput{Name: name.Value, Color: color}
	if in.Name == "" {
		in.Name = tag.Value
	}
	if in.Name == "" {
		return nil, apierr.Validation("custom", "name", "Name is required.")
	}
	return in, nil
}

// CreateTag answers POST /tags; an absent color is picked at random from the
// seven non-pink colors.
func (s *Service) CreateTag(ctx context.Context, ws *models.Workspace, in *TagInput) (*models.Tag, error) {
	color := in.Color.Value
	if !in.Color.Has() {
		color = models.TagColors[rand.IntN(len(models.TagColors)-1)]
	}
	now := s.now()
	t := &models.Tag{ID: ids.New(ids.Tag), WorkspaceID: ws.ID, Name: in.Name, Color: color, CreatedAt: now, UpdatedAt: now}
	if err := s.DB.InsertTag(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// UpdateTag answers PATCH /tags/{id}.
func (s *Service) UpdateTag(ctx context.Context, ws *models.Workspace, id string, in *TagInput) (*models.Tag, error) {
	t, err := s.DB.TagByID(ctx, ws.ID, id)
	if err != nil {
		return nil, err
	}
	t.Name = in.Name
	if in.Color.Has() {
		t.Color = in.Color.Value
	}
	t.UpdatedAt = s.now()
	if err := s.DB.SaveTag(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// DeleteTag removes one of the workspace's tags; its links lose it.
func (s *Service) DeleteTag(ctx context.Context, ws *models.Workspace, id string) error {
	return s.DB.DeleteTag(ctx, ws.ID, id)
}

// FolderInput is a POST/PATCH /folders body after validation.
type FolderInput struct {
	Name        Field[string]
	Description Field[string]
	AccessLevel Field[string]
}

// ParseFolderInput validates a folder body (spec/links.md §8.2).
func ParseFolderInput(body []byte, create bool) (*FolderInput, error) {
	d, err := input.Decode(body)
	if err != nil {
		return nil, err
	}
	in := &FolderInput{}
	in.Name = d.Str("name", input.Str{Required: create, Trim: true, Min: 1, Max: 190})
	in.Description = d.Str("description", input.Str{Nullable: true, Max: 500})
	in.AccessLevel = d.Str("accessLevel", input.Str{Nullable: true})
	if d.Err() != nil {
		return nil, d.Err()
	}
	if in.AccessLevel.Has() && in.AccessLevel.Value != "write" && in.AccessLevel.Value != "read" {
		return nil, apierr.Validation("invalid_value", "accessLevel", `Invalid option: expected one of "write"|"read"`)
	}
	return in, nil
}

// folderAccessGate refuses an accessLevel other than write below Business,
// in POST's or PATCH's words (upstream words them differently). PATCH with
// accessLevel null is refused too (upstream lets it through below Business,
// leaving a folder nobody but owners may see once bulk checks apply).
func folderAccessGate(ws *models.Workspace, in *FolderInput, create bool) error {
	if in.AccessLevel.Set && (in.AccessLevel.Null || in.AccessLevel.Value != "write") && !ws.Plan.AtLeast(models.PlanBusiness) {
		if !create {
			return apierr.New(apierr.Forbidden, "You can only set access levels for folders on Business plans and above. Upgrade to Business to continue.")
		}
		return apierr.New(apierr.Forbidden, "You can only change the access level of a folder on Business and above plans.")
	}
	return nil
}

// CreateFolder answers POST /folders; accessLevel defaults to write.
func (s *Service) CreateFolder(ctx context.Context, a Actor, in *FolderInput) (*models.Folder, error) {
	if err := folderAccessGate(a.Workspace, in, true); err != nil {
		return nil, err
	}
	access := "write"
	level := &access
	if in.AccessLevel.Set {
		level = in.AccessLevel.Ptr()
	}
	now := s.now()
	f := &models.Folder{
		ID: ids.New(ids.Folder), WorkspaceID: a.Workspace.ID, Name: in.Name.Value, Description: in.Description.Ptr(),
		Type: "default", AccessLevel: level, UserID: a.UserID, CreatedAt: now, UpdatedAt: now,
	}
	if err := s.DB.InsertFolder(ctx, f); err != nil {
		return nil, err
	}
	return f, nil
}

// GetFolder answers GET /folders/{id}: folders.read there.
func (s *Service) GetFolder(ctx context.Context, a Actor, id string) (*models.Folder, error) {
	return s.FolderAccess(ctx, a, id, models.PermFolderRead)
}

// UpdateFolder answers PATCH /folders/{id}: the plan's access-level gate,
// then folders.write there (folder owners).
func (s *Service) UpdateFolder(ctx context.Context, a Actor, id string, in *FolderInput) (*models.Folder, error) {
	if err := folderAccessGate(a.Workspace, in, false); err != nil {
		return nil, err
	}
	f, err := s.FolderAccess(ctx, a, id, models.PermFolderWrite)
	if err != nil {
		return nil, err
	}
	if in.Name.Has() {
		f.Name = strings.TrimSpace(in.Name.Value)
	}
	if in.Description.Set {
		f.Description = in.Description.Ptr()
	}
	if in.AccessLevel.Set {
		f.AccessLevel = in.AccessLevel.Ptr()
	}
	f.UpdatedAt = s.now()
	if err := s.DB.SaveFolder(ctx, f); err != nil {
		return nil, err
	}
	return f, nil
}

// DeleteFolder answers DELETE /folders/{id} (folders.write there); its
// links move to no folder.
func (s *Service) DeleteFolder(ctx context.Context, a Actor, id string) error {
	if _, err := s.FolderAccess(ctx, a, id, models.PermFolderWrite); err != nil {
		return err
	}
	return s.DB.DeleteFolder(ctx, a.Workspace.ID, id)
}
