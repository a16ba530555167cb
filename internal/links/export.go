package links

import (
	"context"

	"github.com/relinkhq/relink/models"
)

// ExportBatch is how many links an export reads at a time.
const ExportBatch = 1000

// LinkWalk calls fn with an export's links, newest first, ExportBatch at a
// time.
type LinkWalk func(ctx context.Context, fn func([]*models.Link) error) error

// Export checks the filters of GET /links/export (a foreign domain, an
// unknown or unreadable folder) and returns the walk over the links it takes: the list's
// filters, every readable folder's links unless a folder is named (an export is of
// everything the filters select, not of the list's first view), created
// within created.
func (s *Service) Export(ctx context.Context, a Actor, q ListQuery, created models.LinkCreated) (LinkWalk, error) {
	ws := a.Workspace
	if q.FolderID == "" {
		q.AllFolders = true
	}
	f, err := s.filter(ctx, a, q)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, fn func([]*models.Link) error) error {
		return s.DB.EachLink(ctx, ws.ID, f, created, ExportBatch, fn)
	}, nil
}
