package api

import (
	"time"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
)

// linkJSON is the Link object of spec/links.md §2, every key the SDK requires
// present (nullable ones as null, deprecated ones too): the webhook form
// (webhooks.Link, one builder for both) plus the two keys the webhook
// schema drops, always null in Relink.
type linkJSON struct {
	webhooks.Link
	Identifier                     *string `json:"identifier"`
	LinkRetentionCleanupDisabledAt *string `json:"linkRetentionCleanupDisabledAt"`
}

// tagJSON is a Tag (spec/links.md §2.2, §7).
type tagJSON struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

func toTagJSON(t *models.Tag) tagJSON { return tagJSON{ID: t.ID, Name: t.Name, Color: t.Color} }

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := request.Timestamp(*t)
	return &s
}

func (h *Handlers) toLinkJSON(l *models.Link) linkJSON {
	return linkJSON{Link: h.LinkJSON.Link(l)}
}

func (h *Handlers) toLinksJSON(ls []*models.Link) []linkJSON {
	out := make([]linkJSON, len(ls))
	for i, l := range ls {
		out[i] = h.toLinkJSON(l)
	}
	return out
}

// linkErrorJSON is a bulk error entry (spec/links.md §2.3).
type linkErrorJSON struct {
	Link  any    `json:"link"`
	Error string `json:"error"`
	Code  string `json:"code"`
}

// toBulkJSON renders bulk results: links as Link objects, errors as
// LinkError entries whose link is the request item or the stored link.
func (h *Handlers) toBulkJSON(rs []links.BulkResult) []any {
	out := make([]any, 0, len(rs))
	for _, r := range rs {
		if r.Link != nil {
			out = append(out, h.toLinkJSON(r.Link))
			continue
		}
		link := r.Error.Link
		if l, ok := link.(*models.Link); ok {
			link = h.toLinkJSON(l)
		}
		out = append(out, linkErrorJSON{Link: link, Error: r.Error.Error, Code: string(r.Error.Code)})
	}
	return out
}

// domainJSON is a Domain (spec/links.md §6.1).
type domainJSON struct {
	ID                      string    `json:"id"`
	Slug                    string    `json:"slug"`
	Verified                bool      `json:"verified"`
	Primary                 bool      `json:"primary"`
	Archived                bool      `json:"archived"`
	Placeholder             *string   `json:"placeholder"`
	ExpiredURL              *string   `json:"expiredUrl"`
	NotFoundURL             *string   `json:"notFoundUrl"`
	Logo                    *string   `json:"logo"`
	AssetLinks              *string   `json:"assetLinks"`
	AppleAppSiteAssociation *string   `json:"appleAppSiteAssociation"`
	CreatedAt               string    `json:"createdAt"`
	UpdatedAt               string    `json:"updatedAt"`
	RegisteredDomain        *struct{} `json:"registeredDomain"`
	DeepviewData            *string   `json:"deepviewData"` // not in the SDKs, which ignore it (spec/parity.md §11.4)
}

func toDomainJSON(d *models.Domain) domainJSON {
	return domainJSON{
		ID: d.ID, Slug: d.Slug, Verified: d.Verified, Primary: d.Primary, Archived: d.Archived,
		Placeholder: d.Placeholder, ExpiredURL: d.ExpiredURL, NotFoundURL: d.NotFoundURL, Logo: d.Logo,
		AssetLinks: d.AssetLinks, AppleAppSiteAssociation: d.AppleAppSiteAssociation,
		CreatedAt: request.Timestamp(d.CreatedAt), UpdatedAt: request.Timestamp(d.UpdatedAt), DeepviewData: links.DeepviewEcho(d.DeepviewData),
	}
}

// folderJSON is a Folder (spec/links.md §8.1).
type folderJSON struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Type        string  `json:"type"`
	AccessLevel *string `json:"accessLevel"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

func toFolderJSON(f *models.Folder) folderJSON {
	return folderJSON{ID: f.ID, Name: f.Name, Description: f.Description, Type: f.Type, AccessLevel: f.AccessLevel,
		CreatedAt: request.Timestamp(f.CreatedAt), UpdatedAt: request.Timestamp(f.UpdatedAt)}
}
