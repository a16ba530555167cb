package webhooks

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func mkLink(t *testing.T, db *models.DB, ws *models.Workspace, key string, folder *string) *models.Link {
	t.Helper()
	now := time.Now().UTC()
	l := &models.Link{WorkspaceID: ws.ID, Domain: "acme.link", Key: key, URL: "https://acme.com/" + key, FolderID: folder,
		CreatedAt: now, UpdatedAt: now}
	if err := db.CreateLink(context.Background(), l); err != nil {
		t.Fatal(err)
	}
	return l
}

func clickOn(l *models.Link) models.Click {
	return models.Click{ClickID: ids.Click(), Timestamp: time.Now().UTC(), WorkspaceID: l.WorkspaceID, LinkID: l.ID,
		Domain: l.Domain, Key: l.Key, URL: l.URL, Country: "FR", UA: "Mozilla/5.0", Trigger: "link"}
}

// TestClickFeed: link.clicked comes from the click batch's transaction,
// once per click for each webhook whose scope matches (§1.4), and nothing
// for workspaces without a click webhook.
func TestClickFeed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		feed, err := NewClicks(ctx, db, Links{QRBase: "https://api.example"})
		if err != nil {
			t.Fatal(err)
		}
		acme := workspace(t, db, models.PlanBusiness)
		quiet := workspace(t, db, models.PlanBusiness)
		folder := &models.Folder{WorkspaceID: acme.ID, Name: "Campaign", Type: "default"}
		if err := db.InsertFolder(ctx, folder); err != nil {
			t.Fatal(err)
		}
		inFolder := mkLink(t, db, acme, "f", &folder.ID)
		plain := mkLink(t, db, acme, "p", nil)
		other := mkLink(t, db, quiet, "q", nil)

		// Nothing subscribed yet: the batch path writes nothing.
		if _, err := db.RecordClicks(ctx, []models.Click{clickOn(plain), clickOn(other)}, feed.Hook); err != nil {
			t.Fatal(err)
		}
		if n := pending(t, db); n != 0 {
			t.Fatalf("%d rows with no click webhook", n)
		}

		svc := &Service{DB: db, Changed: feed.Invalidate}
		ws, fo, li := ScopeWorkspace, ScopeFolders, ScopeLinks
		all, _ := svc.Create(ctx, acme, &Input{Name: "all", URL: "https://a.example", Triggers: []string{LinkClicked}, LinkScope: &ws})
		byFolder, _ := svc.Create(ctx, acme, &Input{Name: "f", URL: "https://f.example", Triggers: []string{LinkClicked}, LinkScope: &fo, FolderIDs: []string{folder.ID}})
		byLink, _ := svc.Create(ctx, acme, &Input{Name: "l", URL: "https://l.example", Triggers: []string{LinkClicked}, LinkScope: &li, LinkIDs: []string{plain.ID}})
		svc.Create(ctx, acme, &Input{Name: "created only", URL: "https://c.example", Triggers: []string{LinkCreated}})
		if !feed.Active(acme.ID) || feed.Active(quiet.ID) {
			t.Fatal("click webhook set not updated on create")
		}

		bot := clickOn(plain)
		bot.Bot = true
		batch := []models.Click{clickOn(inFolder), clickOn(plain), clickOn(other), bot}
		if _, err := db.RecordClicks(ctx, batch, feed.Hook); err != nil {
			t.Fatal(err)
		}
		var rows []Delivery
		db.Order("id").Find(&rows)
		got := map[string][]string{}
		events := map[string]bool{}
		for _, r := range rows {
			got[r.WebhookID] = append(got[r.WebhookID], r.EventID)
			events[r.EventID] = true
			var env struct {
				Event string
				Data  LinkClickedData
			}
			if err := json.Unmarshal([]byte(r.Body), &env); err != nil || env.Event != LinkClicked {
				t.Fatalf("body %s", r.Body)
			}
			if env.Data.Click.Country != "FR" || env.Data.Link.WorkspaceID != "ws_"+acme.ID || env.Data.Link.Clicks != 3 && env.Data.Link.ID == plain.ID {
				t.Fatalf("data %+v", env.Data)
			}
		}
		if len(got[all.ID]) != 2 || len(got[byFolder.ID]) != 1 || len(got[byLink.ID]) != 1 || len(rows) != 4 {
			t.Fatalf("rows per webhook: all %d folder %d link %d, total %d", len(got[all.ID]), len(got[byFolder.ID]), len(got[byLink.ID]), len(rows))
		}
		if len(events) != 2 {
			t.Fatalf("%d event ids for 2 clicks: webhooks of one click share its event id", len(events))
		}

		// Disabling the last click webhooks empties the set again.
		for _, h := range []*Webhook{all, byFolder, byLink} {
			if _, err := svc.SetDisabled(ctx, acme, h.ID, true); err != nil {
				t.Fatal(err)
			}
		}
		if feed.Active(acme.ID) {
			t.Fatal("disabled webhooks still in the set")
		}
	})
}
