package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// The Bounties page creates and edits bounties; each emits its webhook
// event (bounty.created, bounty.updated) with the spec's bounty object,
// bad input re-renders the form with the field's error, and nothing is
// emitted for a refused change.
func TestConsoleBountyCreateAndEdit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		w, _ := e.seedWorkspace("Acme", "acme", "owner@acme.test")
		ctx := context.Background()
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.post("/console/program", nil), http.StatusSeeOther)
		svc := &webhooks.Service{DB: db}
		if _, err := svc.Create(ctx, w, &webhooks.Input{Name: "hook", URL: "https://hooks.example/r",
			Triggers: []string{webhooks.BountyCreated, webhooks.BountyUpdated}}); err != nil {
			t.Fatal(err)
		}
		events := func() []webhooks.Delivery {
			var ds []webhooks.Delivery
			if err := db.WithContext(ctx).Where("workspace_id = ?", w.ID).Order("id").Find(&ds).Error; err != nil {
				t.Fatal(err)
			}
			return ds
		}

		r := c.post("/console/bounties", url.Values{"type": {"performance"}, "name": {"Spring sprint"}, "rewardAmount": {"50"}})
		wantStatus(t, r, http.StatusUnprocessableEntity) // a performance bounty needs a goal
		if got := r.text(t, `[data-testid="field-error"]`); got != "The goal must be more than 0." {
			t.Errorf("missing goal: field error %q", got)
		}
		if n := len(events()); n != 0 {
			t.Fatalf("a refused bounty emitted %d events", n)
		}
		wantStatus(t, c.post("/console/bounties", url.Values{"type": {"performance"}, "name": {"Spring sprint"}, "rewardAmount": {"50"},
			"goalEarnings": {"500"}, "description": {"Sell more"}, "endsAt": {"2099-12-31"}}), http.StatusSeeOther)
		var b models.Bounty
		if err := db.WithContext(ctx).Where("workspace_id = ?", w.ID).Take(&b).Error; err != nil {
			t.Fatal(err)
		}
		if b.RewardAmount != 5000 || b.GoalEarnings != 50000 || b.EndsAt == nil || b.EndsAt.Format("2006-01-02T15:04:05") != "2099-12-31T23:59:59" {
			t.Fatalf("stored bounty: %+v", b)
		}
		r = c.get("/console/bounties")
		wantStatus(t, r, http.StatusOK)
		if r.doc(t).Find(`[data-testid="bounty-edit"]`).Length() != 1 {
			t.Fatal("no edit form once a bounty exists")
		}
		wantStatus(t, c.post("/console/bounties/edit", url.Values{"bountyId": {b.ID}, "name": {"Summer sprint"}, "rewardAmount": {"75.5"}}), http.StatusSeeOther)
		wantStatus(t, c.post("/console/bounties/edit", url.Values{"bountyId": {"bnty_nope"}, "name": {"x"}}), http.StatusNotFound)

		ds := events()
		if len(ds) != 2 || ds[0].Event != webhooks.BountyCreated || ds[1].Event != webhooks.BountyUpdated {
			t.Fatalf("events: %+v", ds)
		}
		var created, updated struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal([]byte(ds[0].Body), &created); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(ds[1].Body), &updated); err != nil {
			t.Fatal(err)
		}
		want := `{"id":"` + b.ID + `","name":"Spring sprint","description":"Sell more","type":"performance","startsAt":"` +
			wire.Timestamp(b.StartsAt) + `","endsAt":"2099-12-31T23:59:59.000Z","startMode":"absolute","endsAfterDays":null,` +
			`"submissionsOpenAt":null,"submissionFrequency":null,"maxSubmissions":1,"rewardAmount":5000,"rewardDescription":null,` +
			`"performanceCondition":{"attribute":"totalCommissions","operator":"gte","value":50000},"performanceScope":"new",` +
			`"submissionRequirements":null,"socialMetricsLastSyncedAt":null,"groups":[],"partnerTags":[]}`
		if string(created.Data) != want {
			t.Errorf("bounty.created data:\n got %s\nwant %s", created.Data, want)
		}
		var u map[string]any
		if err := json.Unmarshal(updated.Data, &u); err != nil {
			t.Fatal(err)
		}
		if u["name"] != "Summer sprint" || u["rewardAmount"] != 7550.0 || u["description"] != "Sell more" || u["type"] != "performance" {
			t.Errorf("bounty.updated data: %s", updated.Data)
		}
	})
}
