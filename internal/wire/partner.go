package wire

import "github.com/relinkhq/relink/models"

// PartnerLink is a partner's link in the enrolled-partner object and in
// GET /partners/links.
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

// PartnerLinks writes a partner's links (never null).
func (w Writer) PartnerLinks(ls []models.Link) []PartnerLink {
	out := make([]PartnerLink, len(ls))
	for i := range ls {
		l := &ls[i]
		out[i] = PartnerLink{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: w.LinkShort(l), URL: l.URL,
			Clicks: l.Clicks, Leads: l.Leads, Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount}
	}
	return out
}

// EnrolledPartner is partner.enrolled's data: the enrolled-partner object
// of spec/partners-and-embed.md §3.2 (partner fields, enrollment fields,
// stats; the ratio fields are absent at enrollment, §3.7).
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

// EnrolledPartner writes ep for partner.enrolled.
func (w Writer) EnrolledPartner(ep *models.EnrolledPartner) EnrolledPartner {
	p, e, st := &ep.Partner, &ep.Enrollment, ep.Stats
	email := p.Email
	return EnrolledPartner{
		ID: p.ID, Name: p.Name, Username: p.Username, Email: &email, Image: p.Image, Description: p.Description,
		Country: p.Country, CompanyName: p.CompanyName, NetworkStatus: p.NetworkStatus,
		DefaultPayoutMethod: p.DefaultPayoutMethod, PaypalEmail: p.PaypalEmail, StripeConnectID: p.StripeConnectID,
		PayoutsEnabledAt: OptTimestamp(p.PayoutsEnabledAt), IdentityVerifiedAt: OptTimestamp(p.IdentityVerifiedAt),
		ProgramID: e.ProgramID, GroupID: e.GroupID, PartnerID: p.ID, TenantID: e.TenantID,
		CreatedAt: Timestamp(e.CreatedAt), Status: e.Status, Links: w.PartnerLinks(ep.Links), TotalCommissions: st.Commissions,
		ClickRewardID: e.ClickRewardID, LeadRewardID: e.LeadRewardID, SaleRewardID: e.SaleRewardID,
		ReferralRewardID: e.ReferralRewardID, DiscountID: e.DiscountID, ApplicationID: e.ApplicationID,
		BannedAt: OptTimestamp(e.BannedAt), BannedReason: e.BannedReason, TotalClicks: st.Clicks, TotalLeads: st.Leads,
		TotalConversions: st.Conversions, TotalSales: st.Sales, TotalSaleAmount: st.SaleAmount,
		NetRevenue: st.SaleAmount - st.Commissions,
	}
}

// APIEnrolledPartner is the enrolled-partner object as the API answers it
// (spec/partners-and-embed.md §3.2): partner.enrolled's object and the
// keys only the API adds, every key the SDK requires present, nullable
// ones as null.
type APIEnrolledPartner struct {
	EnrolledPartner
	ReferralFormData      *struct{}  `json:"referralFormData"`
	Application           *struct{}  `json:"application"`
	Tags                  []struct{} `json:"tags"`
	EarningsPerClick      float64    `json:"earningsPerClick"`
	AverageLifetimeValue  *float64   `json:"averageLifetimeValue"`
	ClickToLeadRate       *float64   `json:"clickToLeadRate"`
	ClickToConversionRate *float64   `json:"clickToConversionRate"`
	LeadToConversionRate  *float64   `json:"leadToConversionRate"`
	ReturnOnAdSpend       *float64   `json:"returnOnAdSpend"`

	// Deprecated aliases GET /partners adds (spec/partners-and-embed.md §3.4, WithAliases).
	Clicks      *int64 `json:"clicks,omitempty"`
	Leads       *int64 `json:"leads,omitempty"`
	Conversions *int64 `json:"conversions,omitempty"`
	Sales       *int64 `json:"sales,omitempty"`
	SaleAmount  *int64 `json:"saleAmount,omitempty"`
}

func ratio(a, b int64) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

// APIEnrolledPartner writes ep as the API answers it.
func (w Writer) APIEnrolledPartner(ep *models.EnrolledPartner) APIEnrolledPartner {
	st := ep.Stats
	j := APIEnrolledPartner{
		EnrolledPartner: w.EnrolledPartner(ep), Tags: []struct{}{},
		AverageLifetimeValue: ratio(st.SaleAmount, st.Conversions), ClickToLeadRate: ratio(st.Leads, st.Clicks),
		ClickToConversionRate: ratio(st.Conversions, st.Clicks), LeadToConversionRate: ratio(st.Conversions, st.Leads),
		ReturnOnAdSpend: ratio(st.SaleAmount, st.Commissions),
	}
	if epc := ratio(st.SaleAmount, st.Clicks); epc != nil {
		j.EarningsPerClick = *epc
	}
	return j
}

// WithAliases adds the deprecated counters GET /partners writes next to
// the totals (spec/partners-and-embed.md §3.4).
func (j APIEnrolledPartner) WithAliases() APIEnrolledPartner {
	j.Clicks, j.Leads, j.Conversions, j.Sales, j.SaleAmount = &j.TotalClicks, &j.TotalLeads, &j.TotalConversions, &j.TotalSales, &j.TotalSaleAmount
	return j
}

// DiscountRef is the discount GET /partners/{partnerId} names.
type DiscountRef struct {
	ID       string  `json:"id"`
	Provider *string `json:"provider"`
}

// EnrolledPartnerExtended is Dub's EnrolledPartnerSchemaExtended (GET
// /partners/{partnerId}): the enrolled partner and the profile fields
// Relink has no data for, at Dub's empty values.
type EnrolledPartnerExtended struct {
	APIEnrolledPartner
	LastLeadAt                   *string      `json:"lastLeadAt"`
	LastConversionAt             *string      `json:"lastConversionAt"`
	CustomerDataSharingEnabledAt *string      `json:"customerDataSharingEnabledAt"`
	GroupMoveDisabledAt          *string      `json:"groupMoveDisabledAt"`
	RiskMonitoringDisabledAt     *string      `json:"riskMonitoringDisabledAt"`
	Platforms                    []struct{}   `json:"platforms"`
	Discount                     *DiscountRef `json:"discount"`
	MonthlyTraffic               *string      `json:"monthlyTraffic"`
	IndustryInterests            []struct{}   `json:"industryInterests"`
	PreferredEarningStructures   []struct{}   `json:"preferredEarningStructures"`
	SalesChannels                []struct{}   `json:"salesChannels"`
}

// EnrolledPartnerExtended writes ep as GET /partners/{partnerId} answers it.
func (w Writer) EnrolledPartnerExtended(ep *models.EnrolledPartner) EnrolledPartnerExtended {
	j := EnrolledPartnerExtended{APIEnrolledPartner: w.APIEnrolledPartner(ep), Platforms: []struct{}{},
		IndustryInterests: []struct{}{}, PreferredEarningStructures: []struct{}{}, SalesChannels: []struct{}{}}
	if d := ep.Enrollment.DiscountID; d != nil {
		j.Discount = &DiscountRef{ID: *d}
	}
	return j
}

// PartnerSummary is the partner a commission or a payout carries, and the
// first keys of the webhook partner.
type PartnerSummary struct {
	ID               string  `json:"id"`
	Name             string  `json:"name"`
	Email            *string `json:"email"`
	Image            *string `json:"image"`
	PayoutsEnabledAt *string `json:"payoutsEnabledAt"`
	Country          *string `json:"country"`
	GroupID          *string `json:"groupId"`
}

// DeletedPartner is the summary of a partner that no longer exists.
func DeletedPartner(id string) PartnerSummary { return PartnerSummary{ID: id, Name: "Deleted Partner"} }

// PartnerSummaryOf writes p in the program group groupID (nil: none).
func PartnerSummaryOf(p *models.Partner, groupID *string) PartnerSummary {
	email := p.Email
	return PartnerSummary{ID: p.ID, Name: p.Name, Email: &email, Image: p.Image,
		PayoutsEnabledAt: OptTimestamp(p.PayoutsEnabledAt), Country: p.Country, GroupID: groupID}
}

// Partner is the webhook partner (spec/webhooks.md §3.1.4): the summary and
// the totals.
type Partner struct {
	PartnerSummary
	TotalClicks      int64 `json:"totalClicks"`
	TotalLeads       int64 `json:"totalLeads"`
	TotalConversions int64 `json:"totalConversions"`
	TotalSales       int64 `json:"totalSales"`
	TotalSaleAmount  int64 `json:"totalSaleAmount"`
	TotalCommissions int64 `json:"totalCommissions"`
}

// PartnerOf writes an enrolled partner with its totals; its email is null
// when empty.
func PartnerOf(ep *models.EnrolledPartner) *Partner {
	if ep == nil {
		return nil
	}
	s := PartnerSummaryOf(&ep.Partner, ep.Enrollment.GroupID)
	if ep.Partner.Email == "" {
		s.Email = nil
	}
	return &Partner{PartnerSummary: s, TotalClicks: ep.Stats.Clicks, TotalLeads: ep.Stats.Leads,
		TotalConversions: ep.Stats.Conversions, TotalSales: ep.Stats.Sales, TotalSaleAmount: ep.Stats.SaleAmount,
		TotalCommissions: ep.Stats.Commissions}
}
