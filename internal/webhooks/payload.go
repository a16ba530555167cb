package webhooks

import (
	"github.com/relinkhq/relink/models"
)

// Links renders links in their webhook form. ShortLink is the link's public
// URL (links.Service.ShortLink); APIOrigin the origin qrCode URLs point at
// (models.QRCodeURL).
type Links struct {
	ShortLink func(*models.Link) string
	APIOrigin string
}

// Tag is a link's tag as the Link object carries it.
type Tag struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Link is the Link object in its webhook form (§3.1.1): the API's Link
// without the keys the strict schema drops, keys in the spec's order.
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

// Link renders l (with its Tags loaded) in the webhook form.
func (r Links) Link(l *models.Link) Link {
	short := l.ShortLink()
	if r.ShortLink != nil {
		short = r.ShortLink(l)
	}
	j := Link{
		ID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, TrackConversion: l.TrackConversion,
		ExternalID: l.ExternalID, TenantID: l.TenantID, ProgramID: l.ProgramID, PartnerID: l.PartnerID,
		Archived: l.Archived, ExpiresAt: OptTimestamp(l.ExpiresAt), ExpiredURL: l.ExpiredURL,
		DisabledAt: OptTimestamp(l.DisabledAt), Password: l.Password, Proxy: l.Proxy, Title: l.Title,
		Description: l.Description, Image: l.Image, Video: l.Video, Rewrite: l.Rewrite, DoIndex: l.DoIndex,
		IOS: l.IOS, Android: l.Android, PublicStats: l.PublicStats, Tags: []Tag{},
		FolderID: l.FolderID, Comments: l.Comments, ShortLink: short,
		QRCode:    models.QRCodeURL(r.APIOrigin, short),
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
	for _, t := range l.Tags {
		j.Tags = append(j.Tags, Tag{ID: t.ID, Name: t.Name, Color: t.Color})
	}
	if len(j.Tags) > 0 {
		id := j.Tags[0].ID
		j.TagID = &id
	}
	return j
}

// Click is the click object of link.clicked, lead.created and sale.created
// (§3.1.2), keys in order.
type Click struct {
	ID         string  `json:"id"`
	Timestamp  string  `json:"timestamp"`
	URL        string  `json:"url"`
	Country    string  `json:"country"`
	City       string  `json:"city"`
	Region     string  `json:"region"`
	Continent  string  `json:"continent"`
	Device     string  `json:"device"`
	Browser    string  `json:"browser"`
	OS         string  `json:"os"`
	UA         *string `json:"ua,omitempty"`
	Trigger    *string `json:"trigger,omitempty"`
	Referer    string  `json:"referer"`
	RefererURL string  `json:"refererUrl"`
	QR         bool    `json:"qr"`
	IP         string  `json:"ip"`
}

func orUnknown(s string) string {
	if s == "" {
		return "Unknown"
	}
	return s
}

func orDirect(s string) string {
	if s == "" {
		return "(direct)"
	}
	return s
}

// ClickOf renders a click's attributes, clicked at ts.
func ClickOf(a *models.ClickAttrs, ts string) Click {
	c := Click{
		ID: a.ClickID, Timestamp: ts, URL: a.URL, Country: orUnknown(a.Country), City: orUnknown(a.City),
		Region: orUnknown(a.Region), Continent: a.Continent, Device: orUnknown(a.Device),
		Browser: orUnknown(a.Browser), OS: orUnknown(a.OS), Referer: orDirect(a.Referer),
		RefererURL: orDirect(a.RefererURL), QR: a.QR, IP: a.IP,
	}
	if a.UA != "" {
		ua := a.UA
		c.UA = &ua
	}
	if a.Trigger != "" {
		tr := a.Trigger
		c.Trigger = &tr
	}
	return c
}

// LinkClickedData is link.clicked's data (§3.3).
type LinkClickedData struct {
	Click Click `json:"click"`
	Link  Link  `json:"link"`
}
