package console

import "github.com/a-h/templ"

// PartnerView is one partner's page in the program: who, the enrollment's
// status with the actions that status allows, totals, analytics over time,
// links, latest commissions and payouts.
type PartnerView struct {
	CSRF                            string
	ID, Name, Email, Status, Joined string
	Group, Country, TenantID        string
	// StatusNote explains the status (a ban's date and reason).
	StatusNote string
	Totals     []PartnerTotal
	Actions    []PartnerAction
	Analytics  AnalyticsView
	Links      TablePage
	// Commissions and Payouts are the latest ones; their Downloads link to
	// the full lists filtered to this partner.
	Commissions TablePage
	Payouts     TablePage
}

// PartnerTotal is one headline number of a partner.
type PartnerTotal struct {
	Label, Value, TestID string
}

// PartnerAction is one status change offered on the partner page: a
// button posting Status (with a reason select for a ban), confirmed first
// when Confirm is set.
type PartnerAction struct {
	Status, Label, Confirm, TestID string
	Danger                         bool
	Reasons                        []Option
}

// statusBadge colours an enrollment status.
func statusBadge(status string) string {
	base := "rounded-full px-2.5 py-0.5 text-xs font-medium "
	switch status {
	case "approved":
		return base + "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200"
	case "pending":
		return base + "bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-200"
	case "banned", "rejected":
		return base + "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200"
	}
	return base + "bg-gray-100 text-gray-700 dark:bg-gray-800 dark:text-gray-300"
}

// attrs asks for a confirmation when the action has one.
func (a PartnerAction) attrs() templ.Attributes {
	if a.Confirm == "" {
		return nil
	}
	return templ.Attributes{"hx-confirm": a.Confirm}
}
