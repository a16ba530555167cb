package console

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// CreateGroup adds a partner group (models.CreateGroup).
func (h *Handlers) CreateGroup(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p, err := h.DB.DefaultProgram(ctx, viewer(c).Workspace.ID)
	if err != nil {
		return err
	}
	typed := url.Values{"form": {"group"}, "name": {c.FormValue("name")}, "slug": {c.FormValue("slug")}}
	if _, err := h.Conversions.CreateGroup(ctx, p, typed.Get("name"), typed.Get("slug")); err != nil {
		errs, status, ok := fieldErrors(err, "slug")
		if !ok {
			return err
		}
		return h.programPage(c, status, errs, typed)
	}
	return redirect(c, route.URL(route.Program))
}

// brandingForm sets a group's branding (Dub's group logo, wordmark and
// brandColor), shown with the first group's values (the typed ones after an
// error).
func brandingForm(first *models.Group, groups []vc.Option, errs vc.FieldErrors, typed url.Values) vc.FormView {
	val := func(k string, cur *string) string {
		if typed.Get("form") == "branding" {
			return typed.Get(k)
		}
		if cur == nil {
			return ""
		}
		return *cur
	}
	return vc.FormView{Title: "Branding", Action: route.URL(route.SetGroupBranding), Submit: "Save branding", TestID: "branding-form", Errors: errs,
		Selects: []vc.SelectProps{{Label: "Group", Name: "groupId", Options: groups}},
		Fields: []vc.FieldProps{
			{Label: "Brand color", Name: "brandColor", Value: val("brandColor", first.BrandColor), Placeholder: models.DefaultBrandColor,
				Hint: "The accent of the partners' dashboards (embed and portal), #rrggbb. Empty: " + models.DefaultBrandColor + ".", TestID: "brand-color"},
			{Label: "Logo URL", Name: "logo", Type: "url", Value: val("logo", first.Logo), Placeholder: "https://…/logo.png", Hint: "Shown at the top of the dashboards."},
			{Label: "Wordmark URL", Name: "wordmark", Type: "url", Value: val("wordmark", first.Wordmark), Placeholder: "https://…/wordmark.png"},
		}}
}

// SetGroupBranding stores a group's branding (models.SaveGroup).
func (h *Handlers) SetGroupBranding(c *fiber.Ctx) error {
	ctx := c.UserContext()
	typed := url.Values{"form": {"branding"}}
	for _, k := range []string{"groupId", "brandColor", "logo", "wordmark"} {
		typed.Set(k, strings.TrimSpace(c.FormValue(k)))
	}
	g, err := h.DB.GroupByID(ctx, viewer(c).Workspace.ID, typed.Get("groupId"))
	if err != nil {
		return err
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	g.BrandColor, g.Logo, g.Wordmark = opt(typed.Get("brandColor")), opt(typed.Get("logo")), opt(typed.Get("wordmark"))
	if err := h.Conversions.SaveGroup(ctx, g); err != nil {
		errs, status, ok := fieldErrors(err, "")
		if !ok {
			return err
		}
		return h.programPage(c, status, errs, typed)
	}
	return redirect(c, route.URL(route.Program))
}

// SetHoldingPeriod changes a group's holding period (models.SaveGroup).
func (h *Handlers) SetHoldingPeriod(c *fiber.Ctx) error {
	ctx := c.UserContext()
	g, err := h.DB.GroupByID(ctx, viewer(c).Workspace.ID, c.FormValue("groupId"))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.FormValue("holdingPeriodDays"))
	if err != nil {
		return apierr.Validation("invalid_type", "holdingPeriodDays", "Holding period must be a number of days.")
	}
	g.HoldingPeriodDays = n
	if err := h.Conversions.SaveGroup(ctx, g); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Program))
}
