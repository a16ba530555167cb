package wire

import "github.com/relinkhq/relink/models"

// Tag is a Tag (spec/links.md §2.2), as a link carries it and as the tag
// endpoints answer.
type Tag struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// TagOf writes t.
func TagOf(t *models.Tag) Tag { return Tag{ID: t.ID, Name: t.Name, Color: t.Color} }

// Link is the Link object in its webhook form (spec/webhooks.md §3.1.1):
// the API's Link (APILink) without the keys the strict schema drops, keys
// in the spec's order.
type Link struct {
	ID              string               `json:"id"`
	Domain          string               `json:"domain"`
	Key             string               `json:"key"`
	URL             string               `json:"url"`
	TrackConversion bool                 `json:"trackConversion"`
	ExternalID      *string              `json:"externalId"`
	TenantID        *string              `json:"tenantId"`
	ProgramID       *string              `json:"programId"`
	PartnerID       *string              `json:"partnerId"`
	Archived        bool                 `json:"archived"`
	ExpiresAt       *string              `json:"expiresAt"`
	ExpiredURL      *string              `json:"expiredUrl"`
	DisabledAt      *string              `json:"disabledAt"`
	Password        *string              `json:"password"`
	Proxy           bool                 `json:"proxy"`
	Title           *string              `json:"title"`
	Description     *string              `json:"description"`
	Image           *string              `json:"image"`
	Video           *string              `json:"video"`
	Rewrite         bool                 `json:"rewrite"`
	DoIndex         bool                 `json:"doIndex"`
	IOS             *string              `json:"ios"`
	Android         *string              `json:"android"`
	Geo             map[string]string    `json:"geo"`
	PublicStats     bool                 `json:"publicStats"`
	Tags            []Tag                `json:"tags"`
	FolderID        *string              `json:"folderId"`
	Comments        *string              `json:"comments"`
	ShortLink       string               `json:"shortLink"`
	QRCode          string               `json:"qrCode"`
	UTMSource       *string              `json:"utm_source"`
	UTMMedium       *string              `json:"utm_medium"`
	UTMCampaign     *string              `json:"utm_campaign"`
	UTMTerm         *string              `json:"utm_term"`
	UTMContent      *string              `json:"utm_content"`
	TestVariants    []models.TestVariant `json:"testVariants"`
	TestStartedAt   *string              `json:"testStartedAt"`
	TestCompletedAt *string              `json:"testCompletedAt"`
	UserID          *string              `json:"userId"`
	WorkspaceID     string               `json:"workspaceId"`
	Clicks          int64                `json:"clicks"`
	Leads           int64                `json:"leads"`
	Conversions     int64                `json:"conversions"`
	Sales           int64                `json:"sales"`
	SaleAmount      int64                `json:"saleAmount"`
	LastClicked     *string              `json:"lastClicked"`
	CreatedAt       string               `json:"createdAt"`
	UpdatedAt       string               `json:"updatedAt"`
	TagID           *string              `json:"tagId"`
	ProjectID       string               `json:"projectId"`
	WebhookIDs      []string             `json:"webhookIds"`
}

// Link writes l (with its Tags loaded) in the webhook form.
func (w Writer) Link(l *models.Link) Link {
	short := w.LinkShort(l)
	j := Link{
		ID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, TrackConversion: l.TrackConversion,
		ExternalID: l.ExternalID, TenantID: l.TenantID, ProgramID: l.ProgramID, PartnerID: l.PartnerID,
		Archived: l.Archived, ExpiresAt: OptTimestamp(l.ExpiresAt), ExpiredURL: l.ExpiredURL,
		DisabledAt: OptTimestamp(l.DisabledAt), Password: l.Password, Proxy: l.Proxy, Title: l.Title,
		Description: l.Description, Image: l.Image, Video: l.Video, Rewrite: l.Rewrite, DoIndex: l.DoIndex,
		IOS: l.IOS, Android: l.Android, PublicStats: l.PublicStats, Tags: []Tag{},
		FolderID: l.FolderID, Comments: l.Comments, ShortLink: short, QRCode: w.QRCode(short),
		UTMSource: l.UTMSource, UTMMedium: l.UTMMedium, UTMCampaign: l.UTMCampaign, UTMTerm: l.UTMTerm,
		UTMContent: l.UTMContent, TestStartedAt: OptTimestamp(l.TestStartedAt), TestCompletedAt: OptTimestamp(l.TestCompletedAt),
		UserID: l.UserID, WorkspaceID: "ws_" + l.WorkspaceID, Clicks: l.Clicks, Leads: l.Leads,
		Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount, LastClicked: OptTimestamp(l.LastClicked),
		CreatedAt: Timestamp(l.CreatedAt), UpdatedAt: Timestamp(l.UpdatedAt), ProjectID: l.WorkspaceID,
		WebhookIDs: []string{},
	}
	if l.WebhookIDs != nil {
		j.WebhookIDs = l.WebhookIDs
	}
	if l.Geo != nil {
		j.Geo = l.Geo
	}
	if l.TestVariants != nil {
		j.TestVariants = l.TestVariants
	}
	for i := range l.Tags {
		j.Tags = append(j.Tags, TagOf(&l.Tags[i]))
	}
	if len(j.Tags) > 0 {
		id := j.Tags[0].ID
		j.TagID = &id
	}
	return j
}

// APILink is the Link object of spec/links.md §2, every key the SDK
// requires present (nullable ones as null, deprecated ones too): the
// webhook form plus the two keys the webhook schema drops, always null in
// Relink.
type APILink struct {
	Link
	Identifier                     *string `json:"identifier"`
	LinkRetentionCleanupDisabledAt *string `json:"linkRetentionCleanupDisabledAt"`
}

// APILink writes l as the API answers it.
func (w Writer) APILink(l *models.Link) APILink { return APILink{Link: w.Link(l)} }

// APILinks writes ls as the API answers them.
func (w Writer) APILinks(ls []*models.Link) []APILink {
	out := make([]APILink, len(ls))
	for i, l := range ls {
		out[i] = w.APILink(l)
	}
	return out
}

// LinkError is a bulk error entry (spec/links.md §2.3): link is the request
// item or the stored link.
type LinkError struct {
	Link  any    `json:"link"`
	Error string `json:"error"`
	Code  string `json:"code"`
}

// Domain is a Domain (spec/links.md §6.1).
type Domain struct {
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

// DomainOf writes d.
func DomainOf(d *models.Domain) Domain {
	return Domain{
		ID: d.ID, Slug: d.Slug, Verified: d.Verified, Primary: d.Primary, Archived: d.Archived,
		Placeholder: d.Placeholder, ExpiredURL: d.ExpiredURL, NotFoundURL: d.NotFoundURL, Logo: d.Logo,
		AssetLinks: d.AssetLinks, AppleAppSiteAssociation: d.AppleAppSiteAssociation,
		CreatedAt: Timestamp(d.CreatedAt), UpdatedAt: Timestamp(d.UpdatedAt), DeepviewData: deepviewEcho(d.DeepviewData),
	}
}

// deepviewEcho is deepviewData as every Domain answer carries it: the
// stored compact JSON, or nil for unset and falsy values (0, false, "",
// null), as upstream's transformDomain does.
func deepviewEcho(stored *string) *string {
	if stored == nil {
		return nil
	}
	switch *stored {
	case "", "0", "false", `""`, "null", "-0", "0.0":
		return nil
	}
	return stored
}

// Folder is a Folder (spec/links.md §8.1).
type Folder struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Type        string  `json:"type"`
	AccessLevel *string `json:"accessLevel"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`
}

// FolderOf writes f.
func FolderOf(f *models.Folder) Folder {
	return Folder{ID: f.ID, Name: f.Name, Description: f.Description, Type: f.Type, AccessLevel: f.AccessLevel,
		CreatedAt: Timestamp(f.CreatedAt), UpdatedAt: Timestamp(f.UpdatedAt)}
}

// FolderPermissions is one row of GET /folders/permissions: a folder and
// the folder permissions the caller's role there holds.
type FolderPermissions struct {
	ID          string              `json:"id"`
	Name        string              `json:"name"`
	Permissions []models.FolderPerm `json:"permissions"`
}

// FolderUser is one row of GET /folders/{id}/users: a workspace member and
// their effective role in the folder (nil: none).
type FolderUser struct {
	ID            string      `json:"id"`
	Name          *string     `json:"name"`
	Email         string      `json:"email"`
	Image         *string     `json:"image"`
	Role          *string     `json:"role"` // owner | editor | viewer | null
	WorkspaceRole models.Role `json:"workspaceRole"`
}
