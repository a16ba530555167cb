package console

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// programDomainForm is the program settings' partner-link domain: the
// default short domain and the workspace's domains, the program's current
// one selected and offered even when it is neither (a program set before
// the rule, or on a domain since deleted), so saving the page never moves
// it. typed keeps a refused choice.
func (h *Handlers) programDomainForm(c *fiber.Ctx, p *models.Program, errs vc.FieldErrors, typed url.Values) (vc.FormView, error) {
	current := h.Deps.Links.DefaultDomain()
	if p.Domain != nil && *p.Domain != "" {
		current = *p.Domain
	}
	sel := current
	if typed.Get("form") == "domain" {
		sel = typed.Get("domain")
	}
	ds, err := h.DB.WorkspaceDomains(c.UserContext(), viewer(c).Workspace.ID)
	if err != nil {
		return vc.FormView{}, err
	}
	values := []string{h.Deps.Links.DefaultDomain()}
	for _, d := range ds {
		if !d.Archived {
			values = append(values, d.Slug)
		}
	}
	seen := map[string]bool{}
	var opts []vc.Option
	for _, v := range append(values, current, sel) {
		if v != "" && !seen[v] {
			seen[v] = true
			opts = append(opts, vc.Option{Value: v, Label: v, Selected: v == sel})
		}
	}
	return vc.FormView{Title: "Partner link domain", Action: route.URL(route.SetProgramDomain), Submit: "Save domain", TestID: "program-domain-form",
		Errors: errs, Selects: []vc.SelectProps{{Label: "Partners' links use", Name: "domain", Options: opts}}}, nil
}

// SetProgramDomain changes the program's partner-link domain, with the rule
// `relink program set --domain` applies (links.Service.CheckProgramDomain):
// the default short domain or one of the workspace's domains. Saving the
// program's current domain unchanged is always accepted.
func (h *Handlers) SetProgramDomain(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p, err := h.DB.DefaultProgram(ctx, viewer(c).Workspace.ID)
	if err != nil {
		return err
	}
	d := strings.ToLower(strings.TrimSpace(c.FormValue("domain")))
	if d == "" {
		return h.programPage(c, fiber.StatusUnprocessableEntity, vc.FieldErrors{"domain": "Choose a domain."}, url.Values{"form": {"domain"}})
	}
	if p.Domain != nil && *p.Domain == d {
		return redirect(c, route.URL(route.Program))
	}
	if err := h.Deps.Links.CheckProgramDomain(ctx, viewer(c).Workspace, d); err != nil {
		errs, status, ok := fieldErrors(err, "")
		if !ok {
			return err
		}
		return h.programPage(c, status, errs, url.Values{"form": {"domain"}, "domain": {d}})
	}
	p.Domain = &d
	p.UpdatedAt = h.Now().UTC()
	if err := h.Conversions.SaveProgram(ctx, p); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Program))
}
