package api

import (
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/models"
)

// enrolledPartnerJSON is the enrolled-partner object (spec/partners-and-embed.md
// §3.2): every key the SDK requires present, nullable ones as null.
type enrolledPartnerJSON struct {
	ID                    string            `json:"id"`
	Name                  string            `json:"name"`
	Username              *string           `json:"username"`
	Email                 *string           `json:"email"`
	Image                 *string           `json:"image"`
	Description           *string           `json:"description"`
	Country               *string           `json:"country"`
	CompanyName           *string           `json:"companyName"`
	NetworkStatus         string            `json:"networkStatus"`
	DefaultPayoutMethod   *string           `json:"defaultPayoutMethod"`
	PaypalEmail           *string           `json:"paypalEmail"`
	StripeConnectID       *string           `json:"stripeConnectId"`
	PayoutsEnabledAt      *string           `json:"payoutsEnabledAt"`
	IdentityVerifiedAt    *string           `json:"identityVerifiedAt"`
	ProgramID             string            `json:"programId"`
	GroupID               *string           `json:"groupId"`
	PartnerID             string            `json:"partnerId"`
	TenantID              *string           `json:"tenantId"`
	CreatedAt             string            `json:"createdAt"`
	Status                string            `json:"status"`
	Links                 []partnerLinkJSON `json:"links"`
	TotalCommissions      int64             `json:"totalCommissions"`
	ClickRewardID         *string           `json:"clickRewardId"`
	LeadRewardID          *string           `json:"leadRewardId"`
	SaleRewardID          *string           `json:"saleRewardId"`
	ReferralRewardID      *string           `json:"referralRewardId"`
	DiscountID            *string           `json:"discountId"`
	ApplicationID         *string           `json:"applicationId"`
	BannedAt              *string           `json:"bannedAt"`
	BannedReason          *string           `json:"bannedReason"`
	ReferralFormData      *struct{}         `json:"referralFormData"`
	Application           *struct{}         `json:"application"`
	Tags                  []struct{}        `json:"tags"`
	TotalClicks           int64             `json:"totalClicks"`
	TotalLeads            int64             `json:"totalLeads"`
	TotalConversions      int64             `json:"totalConversions"`
	TotalSales            int64             `json:"totalSales"`
	TotalSaleAmount       int64             `json:"totalSaleAmount"`
	NetRevenue            int64             `json:"netRevenue"`
	EarningsPerClick      float64           `json:"earningsPerClick"`
	AverageLifetimeValue  *float64          `json:"averageLifetimeValue"`
	ClickToLeadRate       *float64          `json:"clickToLeadRate"`
	ClickToConversionRate *float64          `json:"clickToConversionRate"`
	LeadToConversionRate  *float64          `json:"leadToConversionRate"`
	ReturnOnAdSpend       *float64          `json:"returnOnAdSpend"`

	// Deprecated aliases GET /partners adds (§3.4).
	Clicks      *int64 `json:"clicks,omitempty"`
	Leads       *int64 `json:"leads,omitempty"`
	Conversions *int64 `json:"conversions,omitempty"`
	Sales       *int64 `json:"sales,omitempty"`
	SaleAmount  *int64 `json:"saleAmount,omitempty"`
}

// partnerLinkJSON is a partner's link in the enrolled-partner object and in
// GET /partners/links.
type partnerLinkJSON struct {
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

func ratio(a, b int64) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

func (h *Handlers) partnerLinksJSON(ls []models.Link) []partnerLinkJSON {
	out := make([]partnerLinkJSON, len(ls))
	for i := range ls {
		l := &ls[i]
		out[i] = partnerLinkJSON{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: h.Links.ShortLink(l), URL: l.URL,
			Clicks: l.Clicks, Leads: l.Leads, Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount}
	}
	return out
}

func (h *Handlers) toEnrolledPartnerJSON(ep *models.EnrolledPartner) enrolledPartnerJSON {
	p, e, st := &ep.Partner, &ep.Enrollment, ep.Stats
	email := p.Email
	j := enrolledPartnerJSON{
		ID: p.ID, Name: p.Name, Username: p.Username, Email: &email, Image: p.Image, Description: p.Description,
		Country: p.Country, CompanyName: p.CompanyName, NetworkStatus: p.NetworkStatus, DefaultPayoutMethod: p.DefaultPayoutMethod,
		PaypalEmail: p.PaypalEmail, StripeConnectID: p.StripeConnectID, PayoutsEnabledAt: optTime(p.PayoutsEnabledAt),
		IdentityVerifiedAt: optTime(p.IdentityVerifiedAt),
		ProgramID:          e.ProgramID, GroupID: e.GroupID, PartnerID: p.ID, TenantID: e.TenantID, CreatedAt: request.Timestamp(e.CreatedAt),
		Status: e.Status, Links: h.partnerLinksJSON(ep.Links), TotalCommissions: st.Commissions,
		ClickRewardID: e.ClickRewardID, LeadRewardID: e.LeadRewardID, SaleRewardID: e.SaleRewardID,
		ReferralRewardID: e.ReferralRewardID, DiscountID: e.DiscountID, ApplicationID: e.ApplicationID,
		BannedAt: optTime(e.BannedAt), BannedReason: e.BannedReason, Tags: []struct{}{},
		TotalClicks: st.Clicks, TotalLeads: st.Leads, TotalConversions: st.Conversions, TotalSales: st.Sales,
		TotalSaleAmount: st.SaleAmount, NetRevenue: st.SaleAmount - st.Commissions,
		AverageLifetimeValue: ratio(st.SaleAmount, st.Conversions), ClickToLeadRate: ratio(st.Leads, st.Clicks),
		ClickToConversionRate: ratio(st.Conversions, st.Clicks), LeadToConversionRate: ratio(st.Conversions, st.Leads),
		ReturnOnAdSpend: ratio(st.SaleAmount, st.Commissions),
	}
	if epc := ratio(st.SaleAmount, st.Clicks); epc != nil {
		j.EarningsPerClick = *epc
	}
	return j
}

// enrolledPartnerExtended is Dub's EnrolledPartnerSchemaExtended (GET
// /partners/{partnerId}): the enrolled partner and the profile fields
// Relink has no data for, at Dub's empty values.
type enrolledPartnerExtended struct {
	enrolledPartnerJSON
	LastLeadAt                   *string    `json:"lastLeadAt"`
	LastConversionAt             *string    `json:"lastConversionAt"`
	CustomerDataSharingEnabledAt *string    `json:"customerDataSharingEnabledAt"`
	GroupMoveDisabledAt          *string    `json:"groupMoveDisabledAt"`
	RiskMonitoringDisabledAt     *string    `json:"riskMonitoringDisabledAt"`
	Platforms                    []struct{} `json:"platforms"`
	Discount                     *struct {
		ID       string  `json:"id"`
		Provider *string `json:"provider"`
	} `json:"discount"`
	MonthlyTraffic             *string    `json:"monthlyTraffic"`
	IndustryInterests          []struct{} `json:"industryInterests"`
	PreferredEarningStructures []struct{} `json:"preferredEarningStructures"`
	SalesChannels              []struct{} `json:"salesChannels"`
}
