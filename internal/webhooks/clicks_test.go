package webhooks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/internal/wire"
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

// clickSetup makes the click feed, a Business workspace with a link and a
// receiver.
func clickSetup(t *testing.T, db *models.DB) (*Clicks, *models.Workspace, *models.Link, *receiver) {
	t.Helper()
	feed, err := NewClicks(context.Background(), db, wire.Writer{APIOrigin: "https://api.example"})
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace(t, db, models.PlanBusiness)
	return feed, ws, mkLink(t, db, ws, "k", nil), newReceiver(t)
}

// subscribe points a workspace-scoped webhook for triggers at r and
// reloads the feed's set.
func subscribe(t *testing.T, db *models.DB, feed *Clicks, ws *models.Workspace, r *receiver, triggers ...string) {
	t.Helper()
	h := hook(t, db, ws, r.srv.URL, triggers...)
	r.secret = h.Secret
	if err := feed.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func clickOn(l *models.Link) models.Click {
	return models.Click{ClickID: ids.Click(), Timestamp: time.Now().UTC(), WorkspaceID: l.WorkspaceID, LinkID: l.ID,
		Domain: l.Domain, Key: l.Key, URL: l.URL, Country: "FR", UA: "Mozilla/5.0", Trigger: "link"}
}

// TestClickFeed: link.clicked comes from the click batch's transaction,
// once per click for each webhook whose scope matches (§1.4), in one outbox
// row per webhook and batch, and nothing for workspaces without a click
// webhook.
func TestClickFeed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		feed, err := NewClicks(ctx, db, wire.Writer{APIOrigin: "https://api.example"})
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
			var cb ClickBatch
			if err := db.Take(&cb, "delivery_id = ?", r.ID).Error; err != nil || r.Body != "" {
				t.Fatalf("envelopes of row %d: %v (body %q)", r.ID, err, r.Body)
			}
			// The row names its clicks; the envelopes are built when it is
			// delivered, from the clicks table and the links as clicked.
			if strings.Contains(cb.Body, `"event"`) {
				t.Fatalf("batch row %d stores envelopes: %s", r.ID, cb.Body)
			}
			envs, missing, err := expandBatch(ctx, db, cb.Body)
			if err != nil || missing != 0 || r.Clicks != len(splitBatch(envs)) {
				t.Fatalf("batch row says %d clicks, holds %d (missing %d, err %v)", r.Clicks, len(splitBatch(envs)), missing, err)
			}
			for _, b := range splitBatch(envs) {
				var env struct {
					ID    string
					Event string
					Data  wire.LinkClickedData
				}
				if err := json.Unmarshal([]byte(b), &env); err != nil || env.Event != LinkClicked || eventIDOf(b) != env.ID {
					t.Fatalf("body %s", b)
				}
				if env.ID != ClickEventID(env.Data.Click.ID) {
					t.Fatalf("event id %s of click %s: want %s", env.ID, env.Data.Click.ID, ClickEventID(env.Data.Click.ID))
				}
				got[r.WebhookID] = append(got[r.WebhookID], env.ID)
				events[env.ID] = true
				if env.Data.Click.Country != "FR" || env.Data.Link.WorkspaceID != "ws_"+acme.ID || env.Data.Link.Clicks != 3 && env.Data.Link.ID == plain.ID {
					t.Fatalf("data %+v", env.Data)
				}
			}
		}
		// One outbox row per webhook for the whole batch.
		if len(got[all.ID]) != 2 || len(got[byFolder.ID]) != 1 || len(got[byLink.ID]) != 1 || len(rows) != 3 {
			t.Fatalf("clicks per webhook: all %d folder %d link %d, rows %d", len(got[all.ID]), len(got[byFolder.ID]), len(got[byLink.ID]), len(rows))
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

// slowMachineTimeout is the request timeout of the tests that count
// deliveries exactly: fastOpts' 2 s is shorter than a local request can
// take under -race beside every other suite (load average 40), and a
// request that times out after the receiver got it is sent again (at least
// once), which those counts would read as a duplicate.
const slowMachineTimeout = 30 * time.Second

// TestClickBatchDelivery: a batch row of 300 clicks reaches the receiver as
// one signed request per click, each event with its own id; requests the
// receiver refuses are retried from rows of their own, and a worker stopped
// half-way through the batch leaves the clicks it did not reach queued, so
// after a restart every click has arrived (at least once) and the outbox is
// empty.
func TestClickBatchDelivery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		feed, ws, l, r := clickSetup(t, db)
		release := make(chan struct{})
		r.answer = func(n int) int {
			if n%7 == 0 { // every 7th request refused
				return 500
			}
			if n == 100 { // hold here until the worker is told to stop
				r.mu.Unlock()
				<-release
				r.mu.Lock()
			}
			return 200
		}
		subscribe(t, db, feed, ws, r, LinkClicked)
		batch := make([]models.Click, 300)
		for i := range batch {
			batch[i] = clickOn(l)
		}
		if _, err := db.RecordClicks(ctx, batch, feed.Hook); err != nil {
			t.Fatal(err)
		}
		var rows int64
		db.Model(&Delivery{}).Count(&rows)
		if rows != 1 {
			t.Fatalf("%d outbox rows for one batch and one webhook", rows)
		}
		o := fastOpts()
		o.Timeout = slowMachineTimeout
		o.Concurrency = 4
		o.Schedule = []time.Duration{50 * time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond}
		_, stop := start(t, db, o)
		waitFor(t, "request 100", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.n >= 100 })
		go func() { time.Sleep(50 * time.Millisecond); close(release) }()
		stop()
		var batchRow Delivery
		db.Where("clicks > 0").Take(&batchRow)
		if batchRow.Status != StatusSplit || batchRow.ClaimedUntil != nil {
			t.Fatalf("stopped batch row: status %s claimed %v", batchRow.Status, batchRow.ClaimedUntil)
		}
		if d, _, _ := r.counts(); d >= 300 {
			t.Fatalf("the stop came after every click (%d)", d)
		}
		if n := pending(t, db); n == 0 {
			t.Fatal("no clicks left queued after the stop")
		}
		o = fastOpts()
		o.Timeout = slowMachineTimeout
		start(t, db, o)
		waitFor(t, "every click", func() bool { d, _, _ := r.counts(); return d == 300 })
		waitFor(t, "outbox empty", func() bool { return pending(t, db) == 0 })
		_, total, bad := r.counts()
		if bad != 0 {
			t.Fatalf("%d deliveries failed the signature check", bad)
		}
		seen := map[string]bool{}
		r.mu.Lock()
		for _, e := range r.bodies {
			if e.Event != LinkClicked {
				t.Fatalf("event %s", e.Event)
			}
			b, _ := json.Marshal(e.Data)
			var data wire.LinkClickedData
			if err := json.Unmarshal(b, &data); err != nil || data.Link.ID != l.ID {
				t.Fatalf("data %s", b)
			}
			seen[data.Click.ID] = true
		}
		r.mu.Unlock()
		if len(seen) != 300 || total < 300 {
			t.Fatalf("%d distinct clicks, %d deliveries", len(seen), total)
		}
		var left int64
		db.Model(&ClickBatch{}).Count(&left)
		if left != 0 {
			t.Fatalf("%d click batches' envelopes kept after the batch was finished", left)
		}
		var failed, logged int64
		db.Model(&Attempt{}).Where("http_status = 500").Count(&failed)
		db.Model(&Attempt{}).Count(&logged)
		if failed == 0 || logged < 300+failed {
			t.Fatalf("log: %d attempts, %d refused", logged, failed)
		}
	})
}

// TestClickEnvelopeIsMarshal: the click feed's spliced envelope is byte for
// byte the encoding of the envelope struct (the signature covers the bytes).
func TestClickEnvelopeIsMarshal(t *testing.T) {
	now := time.Now().UTC()
	l := &models.Link{ID: "link_1", WorkspaceID: "w1", Domain: "acme.link", Key: "k", URL: "https://acme.com/?a=<b>&c",
		Title: ptr("Ünïcode \"quoted\" </script>"), CreatedAt: now, UpdatedAt: now}
	k := clickOn(l)
	attrs := models.AttrsOf(&k)
	click := wire.ClickOf(&attrs, wire.Timestamp(k.Timestamp))
	link := wire.Writer{APIOrigin: "https://api.example"}.Link(l)
	want, err := Marshal(Envelope{ID: "evt_x", Event: LinkClicked, CreatedAt: wire.Timestamp(now),
		Data: wire.LinkClickedData{Click: click, Link: link}})
	if err != nil {
		t.Fatal(err)
	}
	lj, _ := Marshal(link)
	got, err := clickEnvelope("evt_x", wire.Timestamp(now), click, lj)
	if err != nil || string(got) != string(want) {
		t.Fatalf("spliced\n%s\nwant\n%s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

// TestClickBatchExpansion: a batch row is turned into envelopes when it is
// delivered; the link in them is the link as it was clicked (edited later,
// it is not the new one), a click erased since (privacy) is not sent and
// is counted, and rows written before format 2 (envelopes) pass as they are.
func TestClickBatchExpansion(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		feed, ws, l, r := clickSetup(t, db)
		subscribe(t, db, feed, ws, r, LinkClicked)
		batch := []models.Click{clickOn(l), clickOn(l), clickOn(l)}
		if _, err := db.RecordClicks(ctx, batch, feed.Hook); err != nil {
			t.Fatal(err)
		}
		var cb ClickBatch
		if err := db.Take(&cb).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Model(&models.Link{}).Where("id = ?", l.ID).Update("url", "https://acme.com/changed").Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Exec("DELETE FROM clicks WHERE click_id = ?", batch[1].ClickID).Error; err != nil {
			t.Fatal(err)
		}
		envs, missing, err := expandBatch(ctx, db, cb.Body)
		if err != nil || missing != 1 {
			t.Fatalf("missing %d (want the erased click), err %v", missing, err)
		}
		var sent []string
		for _, e := range splitBatch(envs) {
			var env struct{ Data wire.LinkClickedData }
			if err := json.Unmarshal([]byte(e), &env); err != nil {
				t.Fatal(err)
			}
			if env.Data.Link.URL != "https://acme.com/k" {
				t.Fatalf("link in the event: %s, want the link as clicked", env.Data.Link.URL)
			}
			sent = append(sent, env.Data.Click.ID)
		}
		if len(sent) != 2 || sent[0] != batch[0].ClickID || sent[1] != batch[2].ClickID {
			t.Fatalf("sent %v, want the first and third click in order", sent)
		}
		old := `{"id":"evt_a","event":"link.clicked"}` + "\n" + `{"id":"evt_b","event":"link.clicked"}`
		if got, missing, err := expandBatch(ctx, db, old); got != old || missing != 0 || err != nil {
			t.Fatalf("format 1 row: %q %d %v", got, missing, err)
		}
		if _, _, err := expandBatch(ctx, db, clickBatchPrefix+"broken\nx"); err == nil {
			t.Fatal("a broken header is not an error")
		}
	})
}

// TestPacedClickDelivery: while live traffic saturates the machine,
// link.clicked requests go out at the pacer's busy rate, not at once, and
// no click is lost: once the machine is idle the pace lifts and every click
// arrives exactly once. Other events are not paced.
func TestPacedClickDelivery(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		feed, ws, l, r := clickSetup(t, db)
		subscribe(t, db, feed, ws, r, LinkClicked, LinkCreated)
		// The pacer's samples are taken by the test (Interval: never by Run).
		m := &fakeMachine{ok: true}
		p := newTestPacer(m)
		p.BusyRate, p.Interval = 20, time.Hour
		p.Step()
		m.tick(0.02, 5000) // a burst: 98% busy while clicks arrive
		p.Step()
		if !p.Paced() {
			t.Fatal("not paced during the burst")
		}
		batch := make([]models.Click, 40)
		for i := range batch {
			batch[i] = clickOn(l)
		}
		if _, err := db.RecordClicks(ctx, batch, feed.Hook); err != nil {
			t.Fatal(err)
		}
		emit(t, db, ws, 5) // link.created: never paced
		o := fastOpts()
		o.Timeout = slowMachineTimeout // exactly once needs no request to time out
		o.Pace = p
		start(t, db, o)
		waitFor(t, "the 5 unpaced events and a first click", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			clicks := 0
			for _, e := range r.bodies {
				if e.Event == LinkClicked {
					clicks++
				}
			}
			return len(r.bodies)-clicks == 5 && clicks > 0
		})
		time.Sleep(300 * time.Millisecond)
		// At 20/s, 300ms lets about 7 through: far from the 40.
		if d, _, _ := r.counts(); d-5 >= 30 {
			t.Fatalf("%d of 40 clicks delivered while paced at 20/s", d-5)
		}
		// The burst ends: the pace doubles per sample until lifted.
		for range 15 {
			m.tick(0.9, 0)
			p.Step()
		}
		if p.Paced() {
			t.Fatal("still paced after the burst")
		}
		waitFor(t, "every click", func() bool { d, _, _ := r.counts(); return d == 45 })
		waitFor(t, "outbox empty", func() bool { return pending(t, db) == 0 })
		if d, total, bad := r.counts(); d != 45 || total != 45 || bad != 0 {
			t.Fatalf("distinct %d total %d bad %d; want 45 events once each", d, total, bad)
		}
		if st := p.Stats(); st.WaitedT == 0 {
			t.Fatal("no delivery waited for its slot")
		}
	})
}
