package console

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// bountyForms are the create and edit forms; errs go to the form typed
// names ("create" or "edit").
func bountyForms(bs []models.Bounty, gs []models.Group, errs vc.FieldErrors, typed url.Values) []vc.FormView {
	var createErrs, editErrs vc.FieldErrors
	if typed.Get("form") == "edit" {
		editErrs = errs
	} else {
		createErrs = errs
	}
	groups := []vc.Option{{Value: "", Label: "Every group"}}
	for _, g := range gs {
		groups = append(groups, vc.Option{Value: g.ID, Label: g.Name, Selected: typed.Get("groupId") == g.ID})
	}
	types := []vc.Option{{Value: models.BountyPerformance, Label: "Performance: reach a goal in sale commissions"},
		{Value: models.BountyProof, Label: "Submission: partners submit proof", Selected: typed.Get("type") == models.BountyProof}}
	var bounties []vc.Option
	for _, b := range bs {
		bounties = append(bounties, vc.Option{Value: b.ID, Label: b.Name, Selected: typed.Get("bountyId") == b.ID})
	}
	forms := []vc.FormView{{Title: "Create a bounty", Action: route.URL(route.CreateBounty), Submit: "Create bounty", TestID: "bounty-create",
		Errors: createErrs, FieldsFirst: true,
		Selects: []vc.SelectProps{{Label: "Type", Name: "type", Options: types}, {Label: "Group", Name: "groupId", Options: groups}},
		Fields: []vc.FieldProps{
			{Label: "Name", Name: "name", Value: typed.Get("name"), Required: true, Placeholder: "Spring sales sprint"},
			{Label: "Reward ($)", Name: "rewardAmount", Type: "number", Value: typed.Get("rewardAmount"), Placeholder: "50",
				Hint: "Paid as a commission on approval. Empty on a submission bounty: set when approving."},
			{Label: "Goal ($ of sale commissions)", Name: "goalEarnings", Type: "number", Value: typed.Get("goalEarnings"), Placeholder: "500",
				Hint: "Performance bounties only."},
			{Label: "Description", Name: "description", Value: typed.Get("description"), Placeholder: "What partners have to do"},
			{Label: "Ends (UTC date)", Name: "endsAt", Type: "date", Value: typed.Get("endsAt"), Hint: "Empty: open-ended."},
		}}}
	if len(bs) > 0 {
		forms = append(forms, vc.FormView{Title: "Edit a bounty", Action: route.URL(route.EditBounty), Submit: "Save bounty", TestID: "bounty-edit",
			Errors: editErrs, Selects: []vc.SelectProps{{Label: "Bounty", Name: "bountyId", Options: bounties}},
			Fields: []vc.FieldProps{
				{Label: "Name", Name: "name", Value: typed.Get("name"), Placeholder: "Empty: unchanged"},
				{Label: "Reward ($)", Name: "rewardAmount", Type: "number", Value: typed.Get("rewardAmount"), Placeholder: "Empty: unchanged"},
				{Label: "Description", Name: "description", Value: typed.Get("description"), Placeholder: "Empty: unchanged"},
				{Label: "Ends (UTC date)", Name: "endsAt", Type: "date", Value: typed.Get("endsAt"), Hint: "Empty: unchanged. The bounty closes at the end of that day."},
			}})
	}
	return forms
}

// bountyFields are the forms' typed values, trimmed (and cloned: they
// outlive the request's buffer on a re-rendered page).
func bountyFields(c *fiber.Ctx, form string) url.Values {
	typed := url.Values{"form": {form}}
	for _, k := range []string{"bountyId", "type", "groupId", "name", "rewardAmount", "goalEarnings", "description", "endsAt"} {
		typed.Set(k, strings.Clone(strings.TrimSpace(c.FormValue(k))))
	}
	return typed
}

// dollars parses a form's dollar amount into cents; "" is 0.
func dollars(v url.Values, field string) (int64, error) {
	s := v.Get(field)
	if s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e9 {
		return 0, apierr.Validation("invalid_type", field, "Enter an amount in dollars, e.g. 50.")
	}
	return int64(f*100 + 0.5), nil
}

// endOfDay parses a form's UTC date as the end of that day.
func endOfDay(v url.Values, field string) (*time.Time, error) {
	s := v.Get(field)
	if s == "" {
		return nil, nil
	}
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		return nil, apierr.Validation("invalid_type", field, "Enter a date, e.g. 2026-12-31.")
	}
	d = d.Add(24*time.Hour - time.Second)
	return &d, nil
}
