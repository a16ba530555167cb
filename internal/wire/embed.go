package wire

import "time"

// The objects of the embedded referral dashboard's data API
// (spec/partners-and-embed.md §6.7). internal/referrals fills them; the
// fields marked json:"-" are what the dashboard's pages show and sort by.

// ReferralLink is a partner link as the embedded dashboard shows it
// (spec/partners-and-embed.md §6.7; internal/referrals fills it).
type ReferralLink struct {
	ID                        string  `json:"id"`
	Domain                    string  `json:"domain"`
	Key                       string  `json:"key"`
	URL                       string  `json:"url"`
	ShortLink                 string  `json:"shortLink"`
	Clicks                    int64   `json:"clicks"`
	Leads                     int64   `json:"leads"`
	Conversions               int64   `json:"conversions"`
	PartnerGroupDefaultLinkID *string `json:"partnerGroupDefaultLinkId"`
	// Not in the JSON: what the dashboard displays and sorts by.
	Sales      int64  `json:"-"` // every sale, as /analytics counts them
	SaleAmount int64  `json:"-"`
	Display    string `json:"-"` // the link to share, without the protocol
	Copy       string `json:"-"` // the link to share, with the protocol
}

// EarningsCustomer is the (masked) customer of an earnings row.
type EarningsCustomer struct {
	ID      string  `json:"id"`
	Email   string  `json:"email"`
	Country *string `json:"country"`
}

// EarningsLink is the link of an earnings row.
type EarningsLink struct {
	ID        string `json:"id"`
	ShortLink string `json:"shortLink"`
	URL       string `json:"url"`
}

// EarningsRow is one commission in the earnings table (spec/partners-and-embed.md §6.7).
type EarningsRow struct {
	ID          string            `json:"id"`
	Type        string            `json:"type"`
	Amount      int64             `json:"amount"`
	Earnings    int64             `json:"earnings"`
	Currency    string            `json:"currency"`
	Status      string            `json:"status"`
	Description *string           `json:"description"`
	Quantity    int64             `json:"quantity"`
	CreatedAt   time.Time         `json:"-"`
	UpdatedAt   time.Time         `json:"-"`
	Customer    *EarningsCustomer `json:"customer"`
	Link        *EarningsLink     `json:"link"`
}

// Earnings is an EarningsRow with the API's timestamps, as GET
// /api/embed/referrals/earnings answers it.
type Earnings struct {
	EarningsRow
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

// EarningsOf writes r.
func EarningsOf(r EarningsRow) Earnings {
	return Earnings{EarningsRow: r, CreatedAt: Timestamp(r.CreatedAt), UpdatedAt: Timestamp(r.UpdatedAt)}
}

// LeaderRow is one row of the embedded dashboard's leaderboard: an enrollment id (or a filler seed),
// its anonymised name and total.
type LeaderRow struct {
	ID               string `json:"id"`
	TotalCommissions int64  `json:"totalCommissions"`
	Name             string `json:"-"`
	Rank             int    `json:"-"`
}

// EmbedAnalyticsRow is a timeseries bucket of GET
// /api/embed/referrals/analytics.
type EmbedAnalyticsRow struct {
	Start      string `json:"start"`
	Clicks     int64  `json:"clicks"`
	Leads      int64  `json:"leads"`
	Sales      int64  `json:"sales"`
	SaleAmount int64  `json:"saleAmount"`
}

// EarningsBucket is one bucket of GET
// /api/embed/referrals/earnings/timeseries; groupBy and data only when
// grouped by link.
type EarningsBucket struct {
	Start    string           `json:"start"`
	Earnings int64            `json:"earnings"`
	GroupBy  string           `json:"groupBy,omitempty"`
	Data     map[string]int64 `json:"data,omitempty"`
}

// EmbedToken is POST /tokens/embed/referrals' answer
// (spec/partners-and-embed.md §5).
type EmbedToken struct {
	PublicToken string `json:"publicToken"`
	Expires     string `json:"expires"`
}
