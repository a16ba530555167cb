package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// Discounts is the program's discounts page: each group's discount, the
// partners' discount codes, and the forms that set and create them
// (spec/parity.md §8).
func (h *Handlers) Discounts(c *fiber.Ctx) error { return h.discountsPage(c, fiber.StatusOK, nil, nil) }

func (h *Handlers) discountsPage(c *fiber.Ctx, status int, errs vc.FieldErrors, typed url.Values) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "discounts-page", Title: "Discount codes",
		Headers: []string{"Code", "Partner", "Link", "Discount", "Created"}, Empty: "No discount codes yet"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		v.Note = "This workspace has no partner program yet."
		return h.page(c, status, "Discounts", "discounts", vc.Table(v))
	}
	gs, err := h.DB.ListGroups(ctx, ws.ID, p.ID)
	if err != nil {
		return err
	}
	var discIDs []string
	for _, g := range gs {
		if g.DiscountID != nil {
			discIDs = append(discIDs, *g.DiscountID)
		}
	}
	codes, err := h.DB.ListDiscountCodes(ctx, ws.ID, p.ID, models.DiscountCodeFilter{Limit: 500})
	if err != nil {
		return err
	}
	for _, dc := range codes {
		if dc.DiscountID != nil {
			discIDs = append(discIDs, *dc.DiscountID)
		}
	}
	ds, err := h.DB.DiscountsByID(ctx, ws.ID, discIDs)
	if err != nil {
		return err
	}
	var intro []string
	var groups []vc.Option
	for _, g := range gs {
		line := g.Name + ": no discount"
		if g.DiscountID != nil && ds[*g.DiscountID] != nil {
			line = g.Name + ": " + referrals.DiscountSentence(ds[*g.DiscountID])
		}
		intro = append(intro, line)
		groups = append(groups, vc.Option{Value: g.ID, Label: g.Name, Selected: typed.Get("groupId") == g.ID})
	}
	v.Intro = "Group discounts — " + strings.Join(intro, " · ") + ". A group's discount applies to its partners' referred customers; /track/click and the referral dashboard show it."
	links, err := h.DB.ProgramPartnerLinks(ctx, ws.ID, p.ID)
	if err != nil {
		return err
	}
	short := map[string]string{}
	var linkOpts []vc.Option
	for i := range links {
		l := &links[i]
		short[l.ID] = h.Deps.Links.Wire.LinkShort(l)
		linkOpts = append(linkOpts, vc.Option{Value: l.ID, Label: short[l.ID], Selected: typed.Get("linkId") == l.ID})
	}
	for _, dc := range codes {
		disc := "—"
		if dc.DiscountID != nil && ds[*dc.DiscountID] != nil {
			disc = referrals.DiscountSentence(ds[*dc.DiscountID])
		}
		v.Rows = append(v.Rows, vc.TableRow{ID: dc.ID, Cells: []string{dc.Code, dc.PartnerID, short[dc.LinkID], disc, date(dc.CreatedAt)},
			Action: &vc.RowAction{Action: route.URL(route.DeleteDiscountCode, dc.ID), Name: "confirm", Submit: "Delete",
				Options: []vc.Option{{Value: "yes", Label: "Delete code"}}}})
	}
	opts := func(sel string, vals ...string) []vc.Option {
		out := make([]vc.Option, 0, len(vals)/2)
		for i := 0; i+1 < len(vals); i += 2 {
			out = append(out, vc.Option{Value: vals[i], Label: vals[i+1], Selected: vals[i] == sel})
		}
		return out
	}
	var groupErrs, codeErrs vc.FieldErrors
	if typed.Get("form") == "code" {
		codeErrs = errs
	} else {
		groupErrs = errs
	}
	v.Forms = []vc.FormView{
		{Title: "Set a group discount", Action: route.URL(route.SetGroupDiscount), Submit: "Save discount", TestID: "discount-form", Errors: groupErrs,
			Selects: []vc.SelectProps{
				{Label: "Group", Name: "groupId", Options: groups},
				{Label: "Type", Name: "type", Options: opts(typed.Get("type"), "percentage", "Percentage off", "flat", "Flat amount off")},
			},
			Fields: []vc.FieldProps{
				{Label: "Amount (% or $)", Name: "amount", Type: "number", Value: typed.Get("amount"), Required: true, Placeholder: "20"},
				{Label: "Duration (months)", Name: "maxDuration", Type: "number", Value: typed.Get("maxDuration"), Hint: "Empty: for the customer's lifetime; 0: first purchase only."},
				{Label: "Description", Name: "description", Value: typed.Get("description"), Placeholder: "20% off your first year"},
			}},
		{Title: "Create a discount code", Action: route.URL(route.CreateDiscountCode), Submit: "Create code", TestID: "discount-code-form", Errors: codeErrs,
			FieldsFirst: true,
			Selects:     []vc.SelectProps{{Label: "Partner link", Name: "linkId", Options: linkOpts}},
			Fields: []vc.FieldProps{
				{Label: "Code", Name: "code", Value: typed.Get("code"), Placeholder: "Empty: generated from the partner's name", Hint: "Letters, numbers, dashes and underscores."},
			}},
	}
	return h.page(c, status, "Discounts", "discounts", vc.Table(v))
}

// SetGroupDiscount stores a group's discount from the console form.
func (h *Handlers) SetGroupDiscount(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	typed := url.Values{}
	for _, k := range []string{"groupId", "type", "amount", "maxDuration", "description"} {
		typed.Set(k, strings.TrimSpace(c.FormValue(k)))
	}
	fail := func(err error) error {
		errs, status, ok := fieldErrors(err, "")
		if !ok {
			return err
		}
		return h.discountsPage(c, status, errs, typed)
	}
	g, err := h.DB.GroupByID(ctx, ws.ID, typed.Get("groupId"))
	if err != nil {
		return fail(err)
	}
	amount, perr := strconv.ParseFloat(typed.Get("amount"), 64)
	if perr != nil || amount < 0 {
		return fail(apierr.Validation("invalid_type", "amount", "Enter an amount."))
	}
	now := h.Now().UTC()
	d := &models.Discount{ID: ids.New(ids.Discount), Type: typed.Get("type"), Amount: int64(amount + 0.5), CreatedAt: now, UpdatedAt: now}
	if d.Type == models.DiscountFlat {
		d.Amount = int64(amount*100 + 0.5)
	}
	if md := typed.Get("maxDuration"); md != "" {
		n, err := strconv.Atoi(md)
		if err != nil {
			return fail(apierr.Validation("invalid_type", "maxDuration", "Enter a number of months."))
		}
		d.MaxDuration = &n
	}
	if desc := typed.Get("description"); desc != "" {
		d.Description = &desc
	}
	if err := h.Conversions.SetGroupDiscount(ctx, g, d); err != nil {
		return fail(err)
	}
	return redirect(c, route.URL(route.Discounts))
}

// CreateDiscountCode creates a partner's code from the console form,
// through the same rules as POST /discount-codes.
func (h *Handlers) CreateDiscountCode(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	typed := url.Values{"form": {"code"}, "linkId": {c.FormValue("linkId")}, "code": {strings.TrimSpace(c.FormValue("code"))}}
	fail := func(err error) error {
		errs, status, ok := fieldErrors(err, "code")
		if !ok {
			return err
		}
		return h.discountsPage(c, status, errs, typed)
	}
	p, err := h.program(c)
	if err != nil || p == nil {
		return fail(apierr.New(apierr.NotFound, "Program not found"))
	}
	l, err := h.DB.LinkByID(ctx, ws.ID, typed.Get("linkId"))
	if err != nil || l.PartnerID == nil {
		return fail(apierr.Validation("custom", "linkId", "Choose a partner link."))
	}
	code := typed.Get("code")
	if code != "" && !validCode(code) {
		return fail(apierr.Validation("invalid_format", "code", "Code can only contain letters, numbers, dashes, and underscores."))
	}
	_, err = h.Conversions.CreateDiscountCode(ctx, ws, conversions.DiscountCodeInput{Code: code, PartnerID: *l.PartnerID, LinkID: l.ID,
		AppURL: strings.TrimSuffix(h.Config.AppURL.String(), "/")})
	if err != nil {
		return fail(err)
	}
	return redirect(c, route.URL(route.Discounts))
}

func validCode(s string) bool {
	if len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// DeleteDiscountCode deletes a code from the console.
func (h *Handlers) DeleteDiscountCode(c *fiber.Ctx) error {
	if _, err := h.Conversions.DeleteDiscountCode(c.UserContext(), viewer(c).Workspace, c.Params("id")); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Discounts))
}
