package analytics

import (
	"context"
	"fmt"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// prepare runs the steps between parsing and counting (spec 4.0 steps 3-7):
// programId validation, link resolution, folder access, the plan's window
// cap, window resolution and the link-level filters → link ids.
func (e *SQLEngine) prepare(ctx context.Context, ws *models.Workspace, q *Query) (*scope, error) {
	now := e.Now()
	if q.Endpoint == EndpointAnalytics && q.ProgramID != "" {
		if err := e.checkProgram(ctx, ws, q.ProgramID); err != nil {
			return nil, err
		}
	}
	folderToCheck := ""
	if len(q.FolderID.Values) > 0 {
		folderToCheck = q.FolderID.Values[0]
	}
	if !q.LinkID.Set() && (q.ExternalID != "" || (q.Domain.Set() && q.Key != "")) {
		id, folder, err := e.resolveLink(ctx, ws, q)
		if err != nil {
			return nil, err
		}
		q.LinkID = Filter{Values: []string{id}}
		q.Domain = Filter{}
		if folderToCheck == "" {
			folderToCheck = folder
		}
	}
	if folderToCheck != "" {
		if err := e.checkFolder(ctx, ws, folderToCheck); err != nil {
			return nil, err
		}
		if q.FolderAccess != nil {
			if err := q.FolderAccess(ctx, folderToCheck); err != nil {
				return nil, err
			}
		}
	}
	if err := q.CheckPlanWindow(string(ws.Plan), now, ws.CreatedAt); err != nil {
		return nil, err
	}
	s := &scope{wsID: ws.ID, q: q, win: q.Resolve(now, ws.CreatedAt), d: dialect(e.DB.Dialect)}
	if q.LinkFiltered() {
		ids, err := e.linkIDs(ctx, ws.ID, q)
		if err != nil {
			return nil, err
		}
		s.links, s.linksSet = ids, true
	}
	return s, nil
}

func (e *SQLEngine) checkProgram(ctx context.Context, ws *models.Workspace, programID string) error {
	var ids []string
	err := e.DB.WithContext(ctx).Raw("SELECT id FROM programs WHERE workspace_id = ? ORDER BY created_at LIMIT 1", ws.ID).Scan(&ids).Error
	if err != nil {
		return fmt.Errorf("get default program: %w", err)
	}
	if len(ids) == 0 {
		return apierr.New(apierr.NotFound, "Program not found")
	}
	if ids[0] != programID {
		return apierr.Newf(apierr.Forbidden, "Program %s does not belong to workspace %s.", programID, ws.PublicID())
	}
	return nil
}

type linkRef struct {
	ID          string
	WorkspaceID string
	FolderID    *string
}

// resolveLink finds the link named by externalId or domain+key (spec 4.3).
func (e *SQLEngine) resolveLink(ctx context.Context, ws *models.Workspace, q *Query) (string, string, error) {
	var refs []linkRef
	db := e.DB.WithContext(ctx).Table("links").Select("id, workspace_id, folder_id")
	var err error
	switch {
	case strings.HasPrefix(q.ExternalID, "ext_"):
		err = db.Where("workspace_id = ? AND lower(external_id) = lower(?)", ws.ID, strings.TrimPrefix(q.ExternalID, "ext_")).Limit(1).Scan(&refs).Error
	case q.ExternalID != "":
		err = db.Where("id = ?", q.ExternalID).Limit(1).Scan(&refs).Error
	default:
		err = db.Where("domain = ? AND lower(key) = lower(?)", strings.ToLower(q.Domain.Values[0]), q.Key).Limit(1).Scan(&refs).Error
	}
	if err != nil {
		return "", "", fmt.Errorf("resolve link: %w", err)
	}
	if len(refs) == 0 {
		if q.ExternalID != "" && !strings.HasPrefix(q.ExternalID, "ext_") {
			return "", "", apierr.New(apierr.BadRequest, "Invalid externalId. Did you forget to prefix it with `ext_`?")
		}
		return "", "", apierr.New(apierr.NotFound, "Link not found.")
	}
	if refs[0].WorkspaceID != ws.ID {
		return "", "", apierr.Newf(apierr.Unauthorized, "Link does not belong to workspace %s.", ws.PublicID())
	}
	folder := ""
	if refs[0].FolderID != nil {
		folder = *refs[0].FolderID
	}
	return refs[0].ID, folder, nil
}

func (e *SQLEngine) checkFolder(ctx context.Context, ws *models.Workspace, id string) error {
	var owners []string
	if err := e.DB.WithContext(ctx).Raw("SELECT workspace_id FROM folders WHERE id = ?", id).Scan(&owners).Error; err != nil {
		return fmt.Errorf("check folder: %w", err)
	}
	switch {
	case len(owners) == 0:
		return apierr.New(apierr.NotFound, "Folder not found.")
	case owners[0] != ws.ID:
		return apierr.New(apierr.NotFound, "Folder does not belong to the workspace.")
	}
	return nil
}

// linkIDs resolves the link-level filters to the ids of the workspace's
// existing links matching all of them.
func (e *SQLEngine) linkIDs(ctx context.Context, wsID string, q *Query) ([]string, error) {
	var w where
	w.add("workspace_id = ?", wsID)
	w.in("domain", q.Domain)
	w.in("COALESCE(tenant_id, '')", q.TenantID)
	w.in("COALESCE(folder_id, '')", q.FolderID)
	w.in("COALESCE(partner_id, '')", q.PartnerID)
	if q.TagID.Set() {
		op := "IN"
		if q.TagID.Negate {
			op = "NOT IN"
		}
		w.add("id "+op+" (SELECT link_id FROM link_tags WHERE tag_id IN ?)", q.TagID.Values)
	}
	if q.GroupID.Set() {
		w.in("COALESCE((SELECT pe.group_id FROM program_enrollments pe WHERE pe.program_id = links.program_id AND pe.partner_id = links.partner_id), '')", q.GroupID)
	}
	// Partner tags are not modelled: no link has any, so IN matches none and
	// NOT IN matches all.
	if q.PartnerTagID.Set() && !q.PartnerTagID.Negate {
		return []string{}, nil
	}
	if q.ProgramID != "" {
		w.add("program_id = ?", q.ProgramID)
	}
	if q.Root != nil {
		if *q.Root {
			w.add("key = ?", models.RootKey)
		} else {
			w.add("key <> ?", models.RootKey)
		}
	}
	ids := []string{}
	err := e.DB.WithContext(ctx).Raw("SELECT id FROM links WHERE "+w.sql(), w.args...).Scan(&ids).Error
	if err != nil {
		return nil, fmt.Errorf("resolve link filters: %w", err)
	}
	return ids, nil
}

// linksByID loads the workspace's existing links among ids.
func (e *SQLEngine) linksByID(ctx context.Context, wsID string, ids []string) (map[string]*models.Link, error) {
	out := make(map[string]*models.Link, len(ids))
	for start := 0; start < len(ids); start += 5000 {
		var ls []models.Link
		chunk := ids[start:min(start+5000, len(ids))]
		if err := e.DB.WithContext(ctx).Where("workspace_id = ? AND id IN ?", wsID, chunk).Find(&ls).Error; err != nil {
			return nil, fmt.Errorf("load links: %w", err)
		}
		for i := range ls {
			out[ls[i].ID] = &ls[i]
		}
	}
	return out, nil
}
