package console

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

func emptyWebhookForm() vc.WebhookForm {
	return vc.WebhookForm{Triggers: map[string]bool{}, AllTriggers: webhooks.AllTriggers()}
}

func formOf(w *webhooks.Webhook, linkIDs, folderIDs []string) vc.WebhookForm {
	f := emptyWebhookForm()
	f.Name, f.URL, f.Scope = w.Name, w.URL, w.Scope()
	for _, t := range w.Triggers {
		f.Triggers[t] = true
	}
	f.LinkIDs, f.FolderIDs = strings.Join(linkIDs, ", "), strings.Join(folderIDs, ", ")
	return f
}

// webhookBody turns the form into a /webhooks API body, so the console
// and the API share one set of rules and messages.
func webhookBody(c *fiber.Ctx) ([]byte, vc.WebhookForm) {
	f := emptyWebhookForm()
	f.Name, f.URL = strings.TrimSpace(c.FormValue("name")), strings.TrimSpace(c.FormValue("url"))
	// Folders and links are ticked (one value each); an older client may
	// still post one comma-separated value.
	f.Scope, f.LinkIDs, f.FolderIDs = c.FormValue("linkScope"), multiValue(c, "linkIds"), multiValue(c, "folderIds")
	triggers := []string{}
	for _, t := range c.Request().PostArgs().PeekMulti("triggers") {
		triggers = append(triggers, string(t))
		f.Triggers[string(t)] = true
	}
	body := map[string]any{"name": f.Name, "url": f.URL, "triggers": triggers}
	if f.Triggers[webhooks.LinkClicked] {
		if f.Scope == "" {
			body["linkScope"] = nil
		} else {
			body["linkScope"] = f.Scope
		}
		body["linkIds"], body["folderIds"] = splitIDs(f.LinkIDs), splitIDs(f.FolderIDs)
	}
	b, _ := json.Marshal(body)
	return b, f
}

func splitIDs(s string) []string {
	return append([]string{}, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })...)
}

// userError is the message of a 4xx, false for anything else.
func userError(err error) (string, bool) {
	ae, ok := err.(*apierr.Error)
	if !ok || ae.Code == apierr.InternalServerError {
		return "", false
	}
	return ae.Message, true
}

func maskSecret(s string) string {
	if len(s) <= 10 {
		return "••••"
	}
	return s[:10] + strings.Repeat("•", 8) + s[len(s)-4:]
}

// webhookChoiceLinks is how many links the form offers (most clicked
// first); links chosen before stay offered whatever their rank.
const webhookChoiceLinks = 100

// webhookChoices fills the form's folder and link choices (issue 33 item
// 6: names to tick, not IDs to type): the folders the user sees and the
// most clicked links, the chosen ones checked. A chosen ID that is not
// among them (a folder the user cannot see) is kept as a hidden choice,
// so saving the form never drops it.
func (h *Handlers) webhookChoices(c *fiber.Ctx, f vc.WebhookForm) (vc.WebhookForm, error) {
	chosenFolders, chosenLinks := idSet(f.FolderIDs), idSet(f.LinkIDs)
	fs, _, err := h.visibleFolders(c)
	if err != nil {
		return f, err
	}
	f.Folders, f.Links = nil, nil
	for _, fo := range fs {
		f.Folders = append(f.Folders, vc.Option{Value: fo.ID, Label: fo.Name, Selected: chosenFolders[fo.ID]})
		delete(chosenFolders, fo.ID)
	}
	ls, err := h.Deps.Links.List(c.UserContext(), h.actor(c), links.ListQuery{AllFolders: true, Sort: models.SortClicks, SortSet: true, PageSize: webhookChoiceLinks})
	if err != nil {
		return f, err
	}
	if len(chosenLinks) > 0 {
		more, err := h.Deps.Links.List(c.UserContext(), h.actor(c), links.ListQuery{AllFolders: true, LinkIDs: keys(chosenLinks), ShowArchived: true, PageSize: len(chosenLinks)})
		if err != nil {
			return f, err
		}
		ls = append(more, ls...)
	}
	seen := map[string]bool{}
	for _, l := range ls {
		if seen[l.ID] {
			continue
		}
		seen[l.ID] = true
		f.Links = append(f.Links, vc.Option{Value: l.ID, Label: l.Domain + "/" + l.Key, Selected: chosenLinks[l.ID]})
		delete(chosenLinks, l.ID)
	}
	f.HiddenFolderIDs, f.HiddenLinkIDs = keys(chosenFolders), keys(chosenLinks)
	return f, nil
}

func idSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, id := range splitIDs(s) {
		out[id] = true
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// multiValue joins a form field's values with ", ".
func multiValue(c *fiber.Ctx, name string) string {
	var vs []string
	for _, v := range c.Request().PostArgs().PeekMulti(name) {
		vs = append(vs, string(v))
	}
	return strings.Join(vs, ", ")
}
