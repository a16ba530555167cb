package console

import (
	"errors"
	"net/mail"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/geo"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// The public application page (/apply/<program slug>, no sign-in) and the
// Applications page where owners approve or reject what arrives: the same
// service calls as GET /partners/applications and its approve and reject.

// applyProgram loads the program (and workspace) of an application page.
func (h *Handlers) applyProgram(c *fiber.Ctx) (*models.Workspace, *models.Program, error) {
	var p models.Program
	err := h.DB.WithContext(c.UserContext()).Where("slug = ?", c.Params("slug")).Order("created_at").Take(&p).Error
	if err != nil {
		if models.IsNotFound(err) {
			return nil, nil, apierr.New(apierr.NotFound, "Program not found.")
		}
		return nil, nil, err
	}
	ws, err := h.DB.WorkspaceByID(c.UserContext(), p.WorkspaceID)
	return ws, &p, err
}

// ApplyForm shows a program's application page.
func (h *Handlers) ApplyForm(c *fiber.Ctx) error {
	ws, p, err := h.applyProgram(c)
	if err != nil {
		return err
	}
	v, err := h.applyView(c, ws, p)
	if err != nil {
		return err
	}
	return bare(c, fiber.StatusOK, "Apply to "+p.Name, vc.Apply(v))
}

// applyView is the page's frame: the program, its default group's rewards
// in the embed's sentences, the countries to choose from. A program whose
// applications never opened has no page (404, as upstream without a
// landing page); one that closed them says so.
func (h *Handlers) applyView(c *fiber.Ctx, ws *models.Workspace, p *models.Program) (vc.ApplyView, error) {
	if p.ApplicationsOpenAt == nil && p.ApplicationsClosedAt == nil {
		return vc.ApplyView{}, apierr.New(apierr.NotFound, "Program not found.")
	}
	v := vc.ApplyView{CSRF: h.applyToken(c), Action: route.URL(route.Apply, p.Slug), Program: p.Name,
		Closed: p.ApplicationsOpenAt == nil}
	for _, ct := range geo.Countries() {
		v.Countries = append(v.Countries, vc.Country{Code: ct.Code, Name: ct.Name})
	}
	if p.DefaultGroupID != nil {
		g, err := h.DB.GroupByID(c.UserContext(), ws.ID, *p.DefaultGroupID)
		if err != nil && !models.IsNotFound(err) {
			return v, err
		}
		if err == nil {
			r, err := referrals.RewardLines(c.UserContext(), h.DB, ws.ID, g.SaleRewardID, g.LeadRewardID, g.ClickRewardID, g.DiscountID)
			if err != nil {
				return v, err
			}
			v.Rewards = r.Lines
		}
	}
	return v, nil
}

// Apply stores an application from the public page.
func (h *Handlers) Apply(c *fiber.Ctx) error {
	ws, p, err := h.applyProgram(c)
	if err != nil {
		return err
	}
	if !auth.TokensEqual(c.Cookies(applyCookie), c.FormValue("_csrf")) || c.Cookies(applyCookie) == "" {
		return apierr.New(apierr.Forbidden, "The form has expired or did not come from this site. Reload the page and try again.")
	}
	v, err := h.applyView(c, ws, p)
	if err != nil {
		return err
	}
	v.Name, v.Email = strings.TrimSpace(c.FormValue("name")), strings.TrimSpace(c.FormValue("email"))
	v.Country, v.Website = strings.ToUpper(strings.TrimSpace(c.FormValue("country"))), strings.TrimSpace(c.FormValue("website"))
	v.Promotion, v.Errors = strings.TrimSpace(c.FormValue("promotion")), vc.FieldErrors{}
	if v.Closed {
		return bare(c, fiber.StatusForbidden, "Apply to "+p.Name, vc.Apply(v))
	}
	if n := len([]rune(v.Name)); n == 0 || n > 100 {
		v.Errors["name"] = "Enter your name (at most 100 characters)."
	}
	if a, err := mail.ParseAddress(v.Email); err != nil || a.Address != v.Email || len(v.Email) > 100 {
		v.Errors["email"] = "Enter a valid e-mail address."
	}
	if v.Country != "" && geo.CountryName(v.Country) == v.Country {
		v.Errors["country"] = "Choose a country from the list."
	}
	if u, err := url.Parse(v.Website); v.Website != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		v.Errors["website"] = "Enter a full URL starting with https://."
	}
	if len([]rune(v.Promotion)) > 1000 {
		v.Errors["promotion"] = "At most 1000 characters."
	}
	if len(v.Errors) > 0 {
		return bare(c, fiber.StatusUnprocessableEntity, "Apply to "+p.Name, vc.Apply(v))
	}
	in := conversions.ApplicationInput{Name: v.Name, Email: v.Email, Country: optional(v.Country), Website: optional(v.Website),
		Answers: []models.ApplicationAnswer{{Label: "How do you plan to promote " + p.Name + "?", Value: optional(v.Promotion)}}}
	if _, err := h.Conversions.SubmitApplication(c.UserContext(), ws, p, in); err != nil {
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status() >= 500 {
			return err
		}
		v.Error = e.Message
		return bare(c, e.Status(), "Apply to "+p.Name, vc.Apply(v))
	}
	h.Logger.Info("partner application submitted", "program", p.ID)
	v.Done = true
	return bare(c, fiber.StatusOK, "Apply to "+p.Name, vc.Apply(v))
}

// applyCookie carries the application form's CSRF token (double submit):
// the page is public, so it has no console session.
const applyCookie = "relink_apply"

// applyToken returns the visitor's form token, setting the cookie when new.
func (h *Handlers) applyToken(c *fiber.Ctx) string {
	if t := c.Cookies(applyCookie); len(t) >= 20 {
		return t
	}
	t := auth.NewToken()
	c.Cookie(&fiber.Cookie{Name: applyCookie, Value: t, Path: "/apply", HTTPOnly: true, SameSite: "Strict", Secure: h.secure})
	return t
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Applications lists pending applications with approve and reject actions.
func (h *Handlers) Applications(c *fiber.Ctx) error {
	ctx := c.UserContext()
	ws := viewer(c).Workspace
	v := vc.TablePage{CSRF: session(c).CSRF, TestID: "applications-page", Title: "Pending applications",
		Headers: []string{"Applied", "Partner", "Email", "Country", "Website", "Answers", ""}, Empty: "No pending applications"}
	p, err := h.program(c)
	if err != nil {
		return err
	}
	if p == nil {
		noProgram(&v)
		return h.page(c, fiber.StatusOK, "Applications", "applications", vc.Table(v))
	}
	page := h.Config.AppURL.String() + route.URL(route.ApplyForm, p.Slug)
	if p.ApplicationsOpenAt != nil {
		v.Intro = "Your application page is open at " + page + ". Approving enrolls the partner in their group and creates the group's default links."
		v.Forms = append(v.Forms, vc.FormView{Title: "Application page", Action: route.URL(route.SetApplicationsOpen), Submit: "Close applications", TestID: "applications-close"})
	} else {
		v.Intro = "Your application page (" + page + ") is closed: partners cannot apply."
		v.Forms = append(v.Forms, vc.FormView{Title: "Application page", Action: route.URL(route.SetApplicationsOpen), Submit: "Open applications", TestID: "applications-open"})
	}
	lp := pageOf(c, listPageSize)
	q := models.ApplicationQuery{Limit: lp.Size, Offset: lp.Offset()}
	list, err := h.DB.ListPendingApplications(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	total, err := h.DB.CountPendingApplications(ctx, ws.ID, p.ID, q)
	if err != nil {
		return err
	}
	v.Pager = pagerFor(c, route.URL(route.Applications), lp, len(list), total)
	for _, pa := range list {
		a := pa.Application
		var answers []string
		if a.FormData.Valid {
			for _, ans := range a.FormData.V {
				if ans.Value != nil {
					answers = append(answers, *ans.Value)
				}
			}
		}
		row := vc.TableRow{ID: pa.Partner.ID, Cells: []string{date(a.CreatedAt), pa.Partner.Name, pa.Partner.Email, deref(a.Country), deref(a.Website), strings.Join(answers, " · ")},
			Action: &vc.RowAction{Action: route.URL(route.ReviewApplication, pa.Partner.ID), Name: "decision", Submit: "Apply",
				Options: []vc.Option{{Value: "approve", Label: "Approve"}, {Value: "reject", Label: "Reject"}}}}
		v.Rows = append(v.Rows, row)
	}
	return h.page(c, fiber.StatusOK, "Applications", "applications", vc.Table(v))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// SetApplicationsOpen opens or closes the application page (toggles).
func (h *Handlers) SetApplicationsOpen(c *fiber.Ctx) error {
	p, err := h.DB.DefaultProgram(c.UserContext(), viewer(c).Workspace.ID)
	if err != nil {
		return err
	}
	if err := h.Conversions.OpenApplications(c.UserContext(), p, p.ApplicationsOpenAt == nil); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Applications))
}

// ReviewApplication approves or rejects an application.
func (h *Handlers) ReviewApplication(c *fiber.Ctx) error {
	ws, user := viewer(c).Workspace, viewer(c).User.ID
	var err error
	switch c.FormValue("decision") {
	case "approve":
		err = h.Conversions.ApproveApplication(c.UserContext(), ws, c.Params("id"), "", &user)
	case "reject":
		err = h.Conversions.RejectApplication(c.UserContext(), ws, conversions.RejectInput{PartnerID: c.Params("id"),
			ReapplicationTimeframe: "standard", Reviewer: &user})
	default:
		err = apierr.Validation("invalid_value", "decision", "Choose approve or reject.")
	}
	if err != nil {
		return err
	}
	return redirect(c, route.URL(route.Applications))
}
