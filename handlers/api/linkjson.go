package api

import (
	"strings"
	"time"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// linkJSON is the Link object of links.md §2, every key the SDK requires
// present (nullable ones as null, deprecated ones too).
type linkJSON struct {
	ID                             string               `json:"id"`
	Domain                         string               `json:"domain"`
	Key                            string               `json:"key"`
	URL                            string               `json:"url"`
	TrackConversion                bool                 `json:"trackConversion"`
	ExternalID                     *string              `json:"externalId"`
	TenantID                       *string              `json:"tenantId"`
	ProgramID                      *string              `json:"programId"`
	PartnerID                      *string              `json:"partnerId"`
	Archived                       bool                 `json:"archived"`
	ExpiresAt                      *string              `json:"expiresAt"`
	ExpiredURL                     *string              `json:"expiredUrl"`
	DisabledAt                     *string              `json:"disabledAt"`
	Password                       *string              `json:"password"`
	Proxy                          bool                 `json:"proxy"`
	Title                          *string              `json:"title"`
	Description                    *string              `json:"description"`
	Image                          *string              `json:"image"`
	Video                          *string              `json:"video"`
	Rewrite                        bool                 `json:"rewrite"`
	DoIndex                        bool                 `json:"doIndex"`
	IOS                            *string              `json:"ios"`
	Android                        *string              `json:"android"`
	Geo                            map[string]string    `json:"geo"`
	PublicStats                    bool                 `json:"publicStats"`
	Tags                           []tagJSON            `json:"tags"`
	FolderID                       *string              `json:"folderId"`
	Comments                       *string              `json:"comments"`
	ShortLink                      string               `json:"shortLink"`
	QRCode                         string               `json:"qrCode"`
	UTMSource                      *string              `json:"utm_source"`
	UTMMedium                      *string              `json:"utm_medium"`
	UTMCampaign                    *string              `json:"utm_campaign"`
	UTMTerm                        *string              `json:"utm_term"`
	UTMContent                     *string              `json:"utm_content"`
	TestVariants                   []models.TestVariant `json:"testVariants"`
	TestStartedAt                  *string              `json:"testStartedAt"`
	TestCompletedAt                *string              `json:"testCompletedAt"`
	UserID                         *string              `json:"userId"`
	WorkspaceID                    string               `json:"workspaceId"`
	Clicks                         int64                `json:"clicks"`
	Leads                          int64                `json:"leads"`
	Conversions                    int64                `json:"conversions"`
	Sales                          int64                `json:"sales"`
	SaleAmount                     int64                `json:"saleAmount"`
	LastClicked                    *string              `json:"lastClicked"`
	CreatedAt                      string               `json:"createdAt"`
	UpdatedAt                      string               `json:"updatedAt"`
	TagID                          *string              `json:"tagId"`
	ProjectID                      string               `json:"projectId"`
	WebhookIDs                     []string             `json:"webhookIds"`
	Identifier                     *string              `json:"identifier"`
	LinkRetentionCleanupDisabledAt *string              `json:"linkRetentionCleanupDisabledAt"`
}

// tagJSON is a Tag (links.md §2.2, §7).
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

// qrBase is the API origin that qrCode URLs point at.
func (h *Handlers) qrBase() string {
	if h.Config == nil || h.Config.APIURL == nil {
		return "https://api.dub.co"
	}
	return strings.TrimSuffix(h.Config.APIURL.Scheme+"://"+h.Config.APIURL.Host, "/")
}

func (h *Handlers) toLinkJSON(l *models.Link) linkJSON {
	short := h.Links.ShortLink(l)
	j := linkJSON{
		ID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, TrackConversion: l.TrackConversion,
		ExternalID: l.ExternalID, TenantID: l.TenantID, ProgramID: l.ProgramID, PartnerID: l.PartnerID,
		Archived: l.Archived, ExpiresAt: optTime(l.ExpiresAt), ExpiredURL: l.ExpiredURL,
		DisabledAt: optTime(l.DisabledAt), Password: l.Password, Proxy: l.Proxy, Title: l.Title,
		Description: l.Description, Image: l.Image, Video: l.Video, Rewrite: l.Rewrite, DoIndex: l.DoIndex,
		IOS: l.IOS, Android: l.Android, PublicStats: l.PublicStats, Tags: []tagJSON{},
		FolderID: l.FolderID, Comments: l.Comments, ShortLink: short,
		QRCode:    h.qrBase() + "/qr?url=" + short + "?qr=1",
		UTMSource: l.UTMSource, UTMMedium: l.UTMMedium, UTMCampaign: l.UTMCampaign, UTMTerm: l.UTMTerm,
		UTMContent: l.UTMContent, TestStartedAt: optTime(l.TestStartedAt), TestCompletedAt: optTime(l.TestCompletedAt),
		UserID: l.UserID, WorkspaceID: "ws_" + l.WorkspaceID, Clicks: l.Clicks, Leads: l.Leads,
		Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount, LastClicked: optTime(l.LastClicked),
		CreatedAt: request.Timestamp(l.CreatedAt), UpdatedAt: request.Timestamp(l.UpdatedAt), ProjectID: l.WorkspaceID,
		WebhookIDs: []string{},
	}
	if l.Geo != nil {
		j.Geo = l.Geo
	}
	if l.TestVariants != nil {
		j.TestVariants = l.TestVariants
	}
	for i := range l.Tags {
		j.Tags = append(j.Tags, toTagJSON(&l.Tags[i]))
	}
	if len(j.Tags) > 0 {
		id := j.Tags[0].ID
		j.TagID = &id
	}
	return j
}

func (h *Handlers) toLinksJSON(ls []*models.Link) []linkJSON {
	out := make([]linkJSON, len(ls))
	for i, l := range ls {
		out[i] = h.toLinkJSON(l)
	}
	return out
}

// linkErrorJSON is a bulk error entry (links.md §2.3).
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

// domainJSON is a Domain (links.md §6.1).
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
	DeepviewData            *string   `json:"deepviewData"` // not in the SDKs, which ignore it (parity.md §11.4)
}

func toDomainJSON(d *models.Domain) domainJSON {
	return domainJSON{
		ID: d.ID, Slug: d.Slug, Verified: d.Verified, Primary: d.Primary, Archived: d.Archived,
		Placeholder: d.Placeholder, ExpiredURL: d.ExpiredURL, NotFoundURL: d.NotFoundURL, Logo: d.Logo,
		AssetLinks: d.AssetLinks, AppleAppSiteAssociation: d.AppleAppSiteAssociation,
		CreatedAt: request.Timestamp(d.CreatedAt), UpdatedAt: request.Timestamp(d.UpdatedAt), DeepviewData: links.DeepviewEcho(d.DeepviewData),
	}
}

// folderJSON is a Folder (links.md §8.1).
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
