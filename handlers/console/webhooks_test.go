package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestWebhookFormChoices: the webhook form offers the workspace's folders
// and links by name to tick (issue 33 item 6), not IDs to type; what is
// ticked is saved and shown ticked on the webhook's page.
func TestWebhookFormChoices(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/folders", url.Values{"name": {"Spring campaign"}}), http.StatusSeeOther)
		wantStatus(t, c.post("/console/links", url.Values{"url": {"https://shop.example/collections/spring"}, "domain": {"localhost:8080"}, "key": {"spring-sale"}}), http.StatusSeeOther)

		doc := c.get("/console/webhooks").doc(t)
		if doc.Find(`input[name="folderIds"][type="text"], input[name="linkIds"][type="text"]`).Length() != 0 {
			t.Error("the form still asks for typed IDs")
		}
		choice := func(d *goquery.Document, testID, label string) (id string, checked bool) {
			d.Find(`[data-testid="` + testID + `"] label`).Each(func(_ int, s *goquery.Selection) {
				if strings.TrimSpace(s.Text()) == label {
					in := s.Find("input")
					id, _ = in.Attr("value")
					_, checked = in.Attr("checked")
				}
			})
			return id, checked
		}
		folderID, _ := choice(doc, "webhook-folders", "Spring campaign")
		linkID, _ := choice(doc, "webhook-links", "localhost:8080/spring-sale")
		if folderID == "" || linkID == "" {
			t.Fatalf("choices: folder %q, link %q", folderID, linkID)
		}
		r := c.post("/console/webhooks", url.Values{"name": {"Clicks"}, "url": {"https://hooks.example/relink"}, "triggers": {"link.clicked"},
			"linkScope": {"links"}, "linkIds": {linkID}})
		wantStatus(t, r, http.StatusCreated)
		if _, checked := choice(r.doc(t), "webhook-links", "localhost:8080/spring-sale"); !checked {
			t.Error("the chosen link is not ticked on the webhook's page")
		}
		r = c.post("/console/webhooks", url.Values{"name": {"Folder clicks"}, "url": {"https://hooks.example/relink2"}, "triggers": {"link.clicked"},
			"linkScope": {"folders"}, "folderIds": {folderID}})
		wantStatus(t, r, http.StatusCreated)
		if _, checked := choice(r.doc(t), "webhook-folders", "Spring campaign"); !checked {
			t.Error("the chosen folder is not ticked on the webhook's page")
		}
	})
}
