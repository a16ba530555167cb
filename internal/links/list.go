package links

import (
	"context"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/paging"
	"github.com/relinkhq/relink/models"
)

// ListQuery is GET /links (and /links/count) after query parsing.
type ListQuery struct {
	Domain        string
	TagIDs        []string // tagId and tagIds combined
	TagNames      []string
	FolderID      string // "unsorted": links in no folder
	Search        string
	UserID        string
	TenantID      string
	LinkIDs       []string
	ShowArchived  bool
	WithTags      bool
	AllFolders    bool // with FolderID "": every folder's links (the console's default view)
	Sort          models.LinkSort
	SortSet       bool
	Page          int
	PageSet       bool
	PageSize      int
	StartingAfter string
	EndingBefore  string
}

// MaxPage is the deepest offset page (spec/links.md §5.2).
const MaxPage = paging.MaxPage

// filter checks the query's domain and folder against the workspace (a
// named folder needs folders.read) and builds the model filter with
// upstream's folder visibility: "every folder" is every folder the actor can
// see (spec/parity.md §13.3).
func (s *Service) filter(ctx context.Context, a Actor, q ListQuery) (models.LinkFilter, error) {
	ws := a.Workspace
	f := models.LinkFilter{
		Domain: q.Domain, TagIDs: q.TagIDs, TagNames: q.TagNames, Search: q.Search, UserID: q.UserID,
		TenantID: q.TenantID, ShowArchived: q.ShowArchived, WithTags: q.WithTags, LinkIDs: q.LinkIDs,
	}
	if q.Domain != "" && !s.IsDefaultDomain(q.Domain) {
		d, err := s.DB.DomainByName(ctx, q.Domain)
		if err != nil {
			return f, err
		}
		if d.WorkspaceID != ws.ID {
			return f, apierr.Newf(apierr.Forbidden, "Domain %s does not belong to workspace %s.", q.Domain, ws.PublicID())
		}
	}
	switch q.FolderID {
	case "":
		// Upstream: with no folder given, a plain list shows only links in no
		// folder; any filter widens it to every folder the caller can read.
		f.AllFolders = q.AllFolders || q.Search != "" || q.Domain != "" || len(q.TagIDs) > 0 || len(q.TagNames) > 0 ||
			q.TenantID != "" || len(q.LinkIDs) > 0
		if f.AllFolders {
			v, err := s.visibleTo(ctx, a)
			if err != nil {
				return f, err
			}
			f.VisibleTo = v
		}
	case "unsorted":
		none := ""
		f.FolderID = &none
	default:
		if _, err := s.FolderAccess(ctx, a, q.FolderID, models.PermFolderRead); err != nil {
			return f, err
		}
		id := q.FolderID
		f.FolderID = &id
	}
	return f, nil
}

// List answers GET /links.
func (s *Service) List(ctx context.Context, a Actor, q ListQuery) ([]*models.Link, error) {
	ws := a.Workspace
	pr := paging.Request{PageSet: q.PageSet, Page: q.Page, StartingAfter: q.StartingAfter, EndingBefore: q.EndingBefore,
		SortByCreatedAt: !q.SortSet || q.Sort == models.SortCreatedAt}
	if err := paging.Check(pr); err != nil {
		return nil, err
	}
	if pr.Cursor() {
		id := q.StartingAfter + q.EndingBefore
		if _, err := s.DB.LinkByID(ctx, ws.ID, id); err != nil {
			if apierr.Is(err, apierr.NotFound) {
				return nil, paging.InvalidCursor()
			}
			return nil, err
		}
	}
	f, err := s.filter(ctx, a, q)
	if err != nil {
		return nil, err
	}
	page := q.Page
	if page < 1 {
		page = 1
	}
	return s.DB.ListLinks(ctx, ws.ID, f, models.LinkPage{
		Sort: q.Sort, Offset: (page - 1) * q.PageSize, Limit: q.PageSize,
		StartingAfter: q.StartingAfter, EndingBefore: q.EndingBefore,
	})
}

// Count answers GET /links/count without groupBy. It counts what the
// grouped counts count (countFilter), so the groups of groupBy=domain add up
// to the plain count; upstream leaves links in folders out of the plain count
// (issue 13, docs/parity.md).
func (s *Service) Count(ctx context.Context, a Actor, q ListQuery) (int64, error) {
	f, err := s.countFilter(ctx, a, q)
	if err != nil {
		return 0, err
	}
	return s.DB.CountLinks(ctx, a.Workspace.ID, f)
}

// CountBy answers GET /links/count with groupBy (spec/links.md §5.3).
func (s *Service) CountBy(ctx context.Context, a Actor, q ListQuery, g models.LinkGroupBy) ([]models.LinkGroupCount, error) {
	switch g {
	case models.GroupByDomain:
		q.Domain = ""
	case models.GroupByUserID:
		q.UserID = ""
	case models.GroupByTagID:
		q.TagIDs, q.TagNames = nil, nil
	}
	f, err := s.countFilter(ctx, a, q)
	if err != nil {
		return nil, err
	}
	return s.DB.CountLinksBy(ctx, a.Workspace.ID, f, g)
}

// countFilter is the one folder rule of every count: with no folderId,
// links in no folder plus links in every folder the caller can read.
func (s *Service) countFilter(ctx context.Context, a Actor, q ListQuery) (models.LinkFilter, error) {
	if q.FolderID == "" {
		q.AllFolders = true
	}
	return s.filter(ctx, a, q)
}
