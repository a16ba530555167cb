package conversions_test

import (
	"context"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions/convtest"
	"github.com/relinkhq/relink/internal/wire"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// fixture is a workspace with a pinned clock and the real service.
type fixture struct {
	t    testing.TB
	ctx  context.Context
	db   *models.DB
	svc  *conversions.Service
	ws   *models.Workspace
	prog *models.Program
	grp  *models.Group
	now  time.Time
	// attribution: clicks are recorded as the ClickHouse event store's
	// click store does (models.RecordAttributionClicks: the attribution
	// table), not into clicks.
	attribution bool
}

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func newFixture(t testing.TB, db *models.DB, slug string) *fixture {
	t.Helper()
	ctx := context.Background()
	c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: slug, Slug: slug, Plan: models.PlanAdvanced})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: ctx, db: db, ws: c.Workspace, now: t0}
	f.svc = convtest.New(t, db, func() time.Time { return f.now })
	if f.prog, err = db.DefaultProgram(ctx, f.ws.ID); err != nil {
		t.Fatal(err)
	}
	if f.grp, err = db.GroupByIDOrSlug(ctx, f.ws.ID, f.prog.ID, models.DefaultGroupSlug); err != nil {
		t.Fatal(err)
	}
	// The workspace's short domain, for links made through the links API.
	d := &models.Domain{ID: ids.New(ids.Domain), WorkspaceID: f.ws.ID, Slug: slug + ".link", Verified: true, CreatedAt: t0, UpdatedAt: t0}
	if err := db.Create(d).Error; err != nil {
		t.Fatal(err)
	}
	return f
}

// link creates a link, a partner link when partnerID is set.
func (f *fixture) link(partnerID string) *models.Link {
	f.t.Helper()
	l := &models.Link{WorkspaceID: f.ws.ID, Domain: f.ws.Slug + ".link", Key: ids.Nano(7), URL: "https://shop.example/?utm_source=news",
		TrackConversion: true, CreatedAt: f.now, UpdatedAt: f.now}
	if partnerID != "" {
		l.ProgramID, l.PartnerID = &f.prog.ID, &partnerID
	}
	if err := f.db.CreateLink(f.ctx, l); err != nil {
		f.t.Fatal(err)
	}
	return l
}

// click records a click on l with distinctive attributes and returns it.
func (f *fixture) click(l *models.Link, country string) *models.Click {
	f.t.Helper()
	c := models.Click{
		ClickID: ids.Nano(16), Timestamp: f.now.Add(-time.Minute), WorkspaceID: f.ws.ID, LinkID: l.ID, Domain: l.Domain, Key: l.Key,
		URL: l.URL, IP: "203.0.113.9", Continent: "EU", Country: country, Region: country + "-BE", City: "Berlin",
		Latitude: "52.5", Longitude: "13.4", Device: "Mobile", DeviceVendor: "Apple", DeviceModel: "iPhone",
		Browser: "Safari", BrowserVersion: "17", Engine: "WebKit", EngineVersion: "605", OS: "iOS", OSVersion: "17.4",
		CPUArchitecture: "arm64", UA: "Mozilla/5.0 (iPhone)", QR: true, Trigger: "qr", Referer: "news.example",
		RefererURL: "https://news.example/post", UTMSource: "news", UTMMedium: "email", UTMCampaign: "spring",
		UTMTerm: "shoes", UTMContent: "hero",
	}
	record := f.db.RecordClicks
	if f.attribution {
		record = f.db.RecordAttributionClicks
	}
	if _, err := record(f.ctx, []models.Click{c}); err != nil {
		f.t.Fatal(err)
	}
	return &c
}

// partner enrolls a partner through the service.
func (f *fixture) partner(email string) *models.EnrolledPartner {
	f.t.Helper()
	ep, err := f.svc.EnrollPartner(f.ctx, f.ws, conversions.EnrollInput{Email: email})
	if err != nil {
		f.t.Fatal(err)
	}
	return ep
}

// reward sets the default group's reward for an event.
func (f *fixture) reward(r *models.Reward) {
	f.t.Helper()
	if err := f.db.SetGroupReward(f.ctx, f.grp, r); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) reloadLink(l *models.Link) *models.Link {
	f.t.Helper()
	got, err := f.db.LinkByID(f.ctx, f.ws.ID, l.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return got
}

func (f *fixture) lead(clickID, ext, event string) *conversions.LeadResult {
	f.t.Helper()
	r, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: clickID, EventName: event, CustomerExternalID: ext, Mode: conversions.ModeAsync, EventQuantity: 1})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) sale(ext string, amount int64, invoice string) *wire.TrackSale {
	f.t.Helper()
	in := conversions.SaleInput{CustomerExternalID: ext, Amount: amount, Currency: "usd", EventName: "Purchase", PaymentProcessor: "stripe"}
	if invoice != "" {
		in.InvoiceID = &invoice
	}
	r, err := f.svc.TrackSale(f.ctx, f.ws, in)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) commissions() []models.Commission {
	f.t.Helper()
	var cs []models.Commission
	if err := f.db.Where("workspace_id = ?", f.ws.ID).Order("created_at, id").Find(&cs).Error; err != nil {
		f.t.Fatal(err)
	}
	return cs
}

func i64(v int64) *int64 { return &v }
func intp(v int) *int    { return &v }
func str(v string) *string {
	return &v
}
