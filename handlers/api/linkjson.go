package api

import (
	"time"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := request.Timestamp(*t)
	return &s
}

// toBulkJSON renders bulk results: links as Link objects, errors as
// LinkError entries whose link is the request item or the stored link.
func (h *Handlers) toBulkJSON(rs []links.BulkResult) []any {
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		if r.Link != nil {
			out = append(out, h.Links.Wire.APILink(r.Link))
			continue
		}
		link := r.Error.Link
		if l, ok := link.(*models.Link); ok {
			link = h.Links.Wire.APILink(l)
		}
		out = append(out, wire.LinkError{Link: link, Error: r.Error.Error, Code: string(r.Error.Code)})
	}
	return out
}
