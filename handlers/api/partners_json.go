package api

import (
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
)

// enrolledPartnerJSON is the enrolled-partner object (spec/partners-and-embed.md
// §3.2): partner.enrolled's object (webhooks.EnrolledPartner, one shape for
// the API and the webhook) and the keys only the API adds, every key the
// SDK requires present, nullable ones as null.
type enrolledPartnerJSON struct {
	webhooks.EnrolledPartner
	ReferralFormData      *struct{}  `json:"referralFormData"`
	Application           *struct{}  `json:"application"`
	Tags                  []struct{} `json:"tags"`
	EarningsPerClick      float64    `json:"earningsPerClick"`
	AverageLifetimeValue  *float64   `json:"averageLifetimeValue"`
	ClickToLeadRate       *float64   `json:"clickToLeadRate"`
	ClickToConversionRate *float64   `json:"clickToConversionRate"`
	LeadToConversionRate  *float64   `json:"leadToConversionRate"`
	ReturnOnAdSpend       *float64   `json:"returnOnAdSpend"`

	// Deprecated aliases GET /partners adds (§3.4).
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

func (h *Handlers) toEnrolledPartnerJSON(ep *models.EnrolledPartner) enrolledPartnerJSON {
	st := ep.Stats
	j := enrolledPartnerJSON{
		EnrolledPartner: webhooks.EnrolledPartnerOf(h.Links.Wire, ep), Tags: []struct{}{},
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
