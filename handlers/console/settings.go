package console

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

func (h *Handlers) settingsForm(c *fiber.Ctx, w *models.Workspace) vc.SettingsForm {
	f := vc.SettingsForm{
		CSRF: session(c).CSRF, Name: w.Name, Slug: w.Slug, Plan: string(w.Plan),
		Hostnames: w.EmbedAllowedHostnames, CanEdit: viewer(c).Role == models.RoleOwner,
	}
	if w.PublishableKey != nil {
		f.PublishableKey = *w.PublishableKey
	}
	f.Snippet = h.scriptSnippet(c, w, f.PublishableKey)
	f.KeepIPs, f.RetentionDays = w.KeepIPs, strconv.Itoa(w.EventRetentionDays)
	for _, p := range models.Plans {
		f.Plans = append(f.Plans, string(p))
	}
	return f
}

// Settings shows the workspace settings.
func (h *Handlers) Settings(c *fiber.Ctx) error {
	f := h.settingsForm(c, viewer(c).Workspace)
	f.Saved = c.Query("saved") == "1"
	f.PrivacySaved = c.Query("privacy") == "saved"
	return h.page(c, fiber.StatusOK, "Settings", "settings", vc.Settings(f))
}

// SaveSettings updates name, slug, plan and the embed's allowed hostnames
// (owners only). Errors re-render the form: a taken slug is a 409 shown on
// the slug field, invalid input a 422 on its field.
func (h *Handlers) SaveSettings(c *fiber.Ctx) error {
	w := *viewer(c).Workspace
	w.Name = strings.TrimSpace(c.FormValue("name"))
	w.Slug = strings.ToLower(strings.TrimSpace(c.FormValue("slug")))
	w.Plan = models.Plan(c.FormValue("plan"))
	err := w.SetEmbedHostnames(strings.Split(strings.ReplaceAll(c.FormValue("embedAllowedHostnames"), ",", "\n"), "\n"))
	if err == nil {
		err = h.Workspaces.Update(c.UserContext(), &w)
	}
	if err != nil {
		errs, status, ok := fieldErrors(err, "slug")
		if !ok {
			return err
		}
		f := h.settingsForm(c, &w)
		f.Hostnames = c.FormValue("embedAllowedHostnames")
		f.Errors = errs
		return h.page(c, status, "Settings", "settings", vc.Settings(f))
	}
	return redirect(c, route.URL(route.Settings)+"?saved=1")
}

// SavePrivacy saves the privacy settings (owners only): whether clicks keep
// IP addresses, and the raw-event retention period in days (0, or
// models.MinRetentionDays to models.MaxRetentionDays; anything else is a 422
// shown on the form).
func (h *Handlers) SavePrivacy(c *fiber.Ctx) error {
	w := viewer(c).Workspace
	keep := c.FormValue("keepIPs") == "true"
	days, err := strconv.Atoi(strings.TrimSpace(c.FormValue("retentionDays", "0")))
	if err != nil || (days != 0 && (days < models.MinRetentionDays || days > models.MaxRetentionDays)) {
		f := h.settingsForm(c, w)
		f.KeepIPs, f.RetentionDays = keep, c.FormValue("retentionDays")
		f.PrivacyError = fmt.Sprintf("The retention period is 0 (keep forever) or %d to %d days.", models.MinRetentionDays, models.MaxRetentionDays)
		return h.page(c, fiber.StatusUnprocessableEntity, "Settings", "settings", vc.Settings(f))
	}
	if err := h.Workspaces.SetPrivacy(c.UserContext(), w.ID, keep, days); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Settings)+"?privacy=saved")
}

// RotatePublishableKey generates the workspace's publishable key, replacing
// the old one (owners only).
func (h *Handlers) RotatePublishableKey(c *fiber.Ctx) error {
	if _, err := h.Workspaces.RotatePublishableKey(c.UserContext(), viewer(c).Workspace); err != nil {
		return err
	}
	return redirect(c, route.URL(route.Settings))
}

// scriptPath is where the app origin serves the browser script
// (static/js/analytics.js; docs/browser-script.md).
const scriptPath = "/static/js/analytics.js"

// scriptSnippet is the one tag a site pastes: the script from this Relink,
// the workspace's primary short domain (else the default one) as the domain
// of ?via= links, and the publishable key when there is one. The API host is
// left out: the script defaults to the Relink that serves it.
func (h *Handlers) scriptSnippet(c *fiber.Ctx, w *models.Workspace, publishableKey string) string {
	refer := h.Deps.Links.DefaultDomain()
	if ds, err := h.DB.ListDomains(c.UserContext(), w.ID, models.DomainFilter{Limit: 100}); err == nil {
		for _, d := range ds {
			if d.Primary && !d.Archived {
				refer = d.Slug
			}
		}
	} else {
		h.Logger.Warn("settings: list domains for the script snippet", "workspace", w.ID, "err", err)
	}
	domains, _ := json.Marshal(map[string]string{"refer": refer})
	var b strings.Builder
	b.WriteString(`<script defer src="` + strings.TrimRight(h.Config.AppURL.String(), "/") + scriptPath + `"`)
	if publishableKey != "" {
		b.WriteString("\n  data-publishable-key=\"" + publishableKey + `"`)
	}
	b.WriteString("\n  data-domains='" + strings.ReplaceAll(string(domains), "'", "&#39;") + "'")
	b.WriteString("></script>")
	return b.String()
}
