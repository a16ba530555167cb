package wire

import "github.com/relinkhq/relink/models"

// The rows of GET /partners/analytics (spec/partners-and-embed.md §3.6).
// The rows of GET /analytics and the objects of GET /events are
// wire/dubjson's.

// PartnerCount is a partner's counters: the groupBy=count answer and the
// counters of every other row.
type PartnerCount struct {
	Clicks     int64 `json:"clicks"`
	Leads      int64 `json:"leads"`
	Sales      int64 `json:"sales"`
	SaleAmount int64 `json:"saleAmount"`
	Earnings   int64 `json:"earnings"`
}

// PartnerTimeseries is a groupBy=timeseries row.
type PartnerTimeseries struct {
	Start string `json:"start"`
	PartnerCount
}

// PartnerTopLink is a groupBy=top_links row.
type PartnerTopLink struct {
	Link      string  `json:"link"`
	ID        string  `json:"id"`
	Domain    string  `json:"domain"`
	Key       string  `json:"key"`
	ShortLink string  `json:"shortLink"`
	URL       string  `json:"url"`
	Title     *string `json:"title"`
	Comments  *string `json:"comments"`
	FolderID  *string `json:"folderId"`
	PartnerID *string `json:"partnerId"`
	CreatedAt string  `json:"createdAt"`
	PartnerCount
}

// PartnerTopLink writes l's row with its counters.
func (w Writer) PartnerTopLink(l *models.Link, n PartnerCount) PartnerTopLink {
	return PartnerTopLink{Link: l.ID, ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: w.LinkShort(l),
		URL: l.URL, Title: l.Title, Comments: l.Comments, FolderID: l.FolderID, PartnerID: l.PartnerID,
		CreatedAt: Timestamp(l.CreatedAt), PartnerCount: n}
}
