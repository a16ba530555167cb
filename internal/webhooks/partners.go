package webhooks

import (
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// PartnerLink is a partner's link in the enrolled-partner object.
type PartnerLink struct {
	ID          string `json:"id"`
	Domain      string `json:"domain"`
	Key         string `json:"key"`
	ShortLink   string `json:"shortLink"`
	URL         string `json:"url"`
	Clicks      int64  `json:"clicks"`
	Leads       int64  `json:"leads"`
	Conversions int64  `json:"conversions"`
	Sales       int64  `json:"sales"`
	SaleAmount  int64  `json:"saleAmount"`
}

// EnrolledPartner is partner.enrolled's data: the enrolled-partner object
// of spec/partners-and-embed.md §3.2 (partner fields, enrollment fields, stats;
// the ratio fields are absent at enrollment, §3.7).
type EnrolledPartner struct {
	ID                  string        `json:"id"`
	Name                string        `json:"name"`
	Username            *string       `json:"username"`
	Email               *string       `json:"email"`
	Image               *string       `json:"image"`
	Description         *string       `json:"description"`
	Country             *string       `json:"country"`
	CompanyName         *string       `json:"companyName"`
	NetworkStatus       string        `json:"networkStatus"`
	DefaultPayoutMethod *string       `json:"defaultPayoutMethod"`
	PaypalEmail         *string       `json:"paypalEmail"`
	StripeConnectID     *string       `json:"stripeConnectId"`
	PayoutsEnabledAt    *string       `json:"payoutsEnabledAt"`
	IdentityVerifiedAt  *string       `json:"identityVerifiedAt"`
	ProgramID           string        `json:"programId"`
	GroupID             *string       `json:"groupId"`
	PartnerID           string        `json:"partnerId"`
	TenantID            *string       `json:"tenantId"`
	CreatedAt           string        `json:"createdAt"`
	Status              string        `json:"status"`
	Links               []PartnerLink `json:"links"`
	TotalCommissions    int64         `json:"totalCommissions"`
	ClickRewardID       *string       `json:"clickRewardId"`
	LeadRewardID        *string       `json:"leadRewardId"`
	SaleRewardID        *string       `json:"saleRewardId"`
	ReferralRewardID    *string       `json:"referralRewardId"`
	DiscountID          *string       `json:"discountId"`
	ApplicationID       *string       `json:"applicationId"`
	BannedAt            *string       `json:"bannedAt"`
	BannedReason        *string       `json:"bannedReason"`
	TotalClicks         int64         `json:"totalClicks"`
	TotalLeads          int64         `json:"totalLeads"`
	TotalConversions    int64         `json:"totalConversions"`
	TotalSales          int64         `json:"totalSales"`
	TotalSaleAmount     int64         `json:"totalSaleAmount"`
	NetRevenue          int64         `json:"netRevenue"`
}

// EnrolledPartnerOf renders ep for partner.enrolled.
func EnrolledPartnerOf(w wire.Writer, ep *models.EnrolledPartner) EnrolledPartner {
	p, e, st := &ep.Partner, &ep.Enrollment, ep.Stats
	email := p.Email
	out := EnrolledPartner{
		ID: p.ID, Name: p.Name, Username: p.Username, Email: &email, Image: p.Image, Description: p.Description,
		Country: p.Country, CompanyName: p.CompanyName, NetworkStatus: p.NetworkStatus,
		DefaultPayoutMethod: p.DefaultPayoutMethod, PaypalEmail: p.PaypalEmail, StripeConnectID: p.StripeConnectID,
		PayoutsEnabledAt: OptTimestamp(p.PayoutsEnabledAt), IdentityVerifiedAt: OptTimestamp(p.IdentityVerifiedAt),
		ProgramID: e.ProgramID, GroupID: e.GroupID, PartnerID: p.ID, TenantID: e.TenantID,
		CreatedAt: Timestamp(e.CreatedAt), Status: e.Status, TotalCommissions: st.Commissions,
		ClickRewardID: e.ClickRewardID, LeadRewardID: e.LeadRewardID, SaleRewardID: e.SaleRewardID,
		ReferralRewardID: e.ReferralRewardID, DiscountID: e.DiscountID, ApplicationID: e.ApplicationID,
		BannedAt: OptTimestamp(e.BannedAt), BannedReason: e.BannedReason, TotalClicks: st.Clicks, TotalLeads: st.Leads,
		TotalConversions: st.Conversions, TotalSales: st.Sales, TotalSaleAmount: st.SaleAmount,
		NetRevenue: st.SaleAmount - st.Commissions,
	}
	out.Links = PartnerLinks(w, ep.Links)
	return out
}

// PartnerLinks renders a partner's links as the enrolled-partner object and
// GET /partners/links carry them (never null).
func PartnerLinks(w wire.Writer, ls []models.Link) []PartnerLink {
	out := make([]PartnerLink, len(ls))
	for i := range ls {
		l := &ls[i]
		out[i] = PartnerLink{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: w.LinkShort(l), URL: l.URL,
			Clicks: l.Clicks, Leads: l.Leads, Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount}
	}
	return out
}
