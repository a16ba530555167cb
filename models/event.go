package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// ClickAttrs are the attributes a lead or sale event copies from the click it
// is attributed to: the clicks table's columns under the same names, so
// analytics can group and filter conversions exactly like clicks
// (spec/analytics.md §7.1).
type ClickAttrs struct {
	ClickID         string `gorm:"column:click_id"`
	LinkID          string `gorm:"column:link_id"`
	Domain          string `gorm:"column:domain"`
	Key             string `gorm:"column:key"`
	URL             string `gorm:"column:url"`
	IP              string `gorm:"column:ip"`
	Continent       string `gorm:"column:continent"`
	Country         string `gorm:"column:country"`
	Region          string `gorm:"column:region"`
	City            string `gorm:"column:city"`
	Latitude        string `gorm:"column:latitude"`
	Longitude       string `gorm:"column:longitude"`
	Device          string `gorm:"column:device"`
	DeviceVendor    string `gorm:"column:device_vendor"`
	DeviceModel     string `gorm:"column:device_model"`
	Browser         string `gorm:"column:browser"`
	BrowserVersion  string `gorm:"column:browser_version"`
	Engine          string `gorm:"column:engine"`
	EngineVersion   string `gorm:"column:engine_version"`
	OS              string `gorm:"column:os"`
	OSVersion       string `gorm:"column:os_version"`
	CPUArchitecture string `gorm:"column:cpu_architecture"`
	UA              string `gorm:"column:ua"`
	Bot             bool   `gorm:"column:bot"`
	QR              bool   `gorm:"column:qr"`
	Trigger         string `gorm:"column:trigger"`
	Referer         string `gorm:"column:referer"`
	RefererURL      string `gorm:"column:referer_url"`
	UTMSource       string `gorm:"column:utm_source"`
	UTMMedium       string `gorm:"column:utm_medium"`
	UTMCampaign     string `gorm:"column:utm_campaign"`
	UTMTerm         string `gorm:"column:utm_term"`
	UTMContent      string `gorm:"column:utm_content"`
}

// AttrsOf copies a click's attributes.
func AttrsOf(c *Click) ClickAttrs {
	return ClickAttrs{
		ClickID: c.ClickID, LinkID: c.LinkID, Domain: c.Domain, Key: c.Key, URL: c.URL, IP: c.IP,
		Continent: c.Continent, Country: c.Country, Region: c.Region, City: c.City,
		Latitude: c.Latitude, Longitude: c.Longitude,
		Device: c.Device, DeviceVendor: c.DeviceVendor, DeviceModel: c.DeviceModel,
		Browser: c.Browser, BrowserVersion: c.BrowserVersion, Engine: c.Engine, EngineVersion: c.EngineVersion,
		OS: c.OS, OSVersion: c.OSVersion, CPUArchitecture: c.CPUArchitecture, UA: c.UA,
		Bot: c.Bot, QR: c.QR, Trigger: c.Trigger, Referer: c.Referer, RefererURL: c.RefererURL,
		UTMSource: c.UTMSource, UTMMedium: c.UTMMedium, UTMCampaign: c.UTMCampaign, UTMTerm: c.UTMTerm, UTMContent: c.UTMContent,
	}
}

// LeadEvent is one recorded lead. A lead tracked with eventQuantity N is N
// rows, each with its own 16-character event id.
type LeadEvent struct {
	EventID     string    `gorm:"column:event_id;primaryKey"`
	Timestamp   time.Time `gorm:"column:timestamp"`
	WorkspaceID string    `gorm:"column:workspace_id"` // internal id (no "ws_")
	EventName   string    `gorm:"column:event_name"`
	CustomerID  string    `gorm:"column:customer_id"`
	Metadata    Metadata  `gorm:"column:metadata"`
	ClickAttrs  `gorm:"embedded"`
}

// TableName pins the table.
func (LeadEvent) TableName() string { return "lead_events" }

// SaleEvent is one recorded sale. Amount is in USD cents, unless no FX rate
// was known for Currency (then both are kept as given).
type SaleEvent struct {
	EventID          string    `gorm:"column:event_id;primaryKey"`
	Timestamp        time.Time `gorm:"column:timestamp"`
	WorkspaceID      string    `gorm:"column:workspace_id"`
	EventName        string    `gorm:"column:event_name"`
	CustomerID       string    `gorm:"column:customer_id"`
	Metadata         Metadata  `gorm:"column:metadata"`
	LeadEventID      *string   `gorm:"column:lead_event_id"`
	Amount           int64     `gorm:"column:amount"`
	Currency         string    `gorm:"column:currency"`
	PaymentProcessor string    `gorm:"column:payment_processor"`
	InvoiceID        string    `gorm:"column:invoice_id"` // "" when none
	ClickAttrs       `gorm:"embedded"`
}

// TableName pins the table.
func (SaleEvent) TableName() string { return "sale_events" }

// AttributionClick finds a click of the workspace by id for lead/sale
// attribution: in the attribution table (the ClickHouse event store's
// clicks, attributionLookup), then in clicks (every click without the event
// store; with it, clicks stored before the attribution table existed and
// clicks written outside the pipeline). A click before since (the
// attribution window's start; zero for none) is not found, as if unknown;
// so is another workspace's.
func (db *DB) AttributionClick(ctx context.Context, workspaceID, clickID string, since time.Time) (*Click, error) {
	notFound := "Click event not found for clickId: " + clickID
	a, err := db.attributionLookup(ctx, workspaceID, clickID, since)
	if err != nil {
		return nil, dbErr(err, "get click", notFound, "")
	}
	if a != nil {
		return a, nil
	}
	var c Click
	q := db.WithContext(ctx).Where("click_id = ? AND workspace_id = ?", clickID, workspaceID)
	if !since.IsZero() {
		q = q.Where("timestamp >= ?", since.UTC())
	}
	err = q.Take(&c).Error
	if err != nil {
		return nil, dbErr(err, "get click", notFound, "")
	}
	return &c, nil
}

// InsertLeadEvents stores lead events.
func (db *DB) InsertLeadEvents(ctx context.Context, evs []LeadEvent) error {
	if len(evs) == 0 {
		return nil
	}
	return dbErr(db.WithContext(ctx).Create(&evs).Error, "insert lead events", "", "")
}

// InsertSaleEvent stores a sale event.
func (db *DB) InsertSaleEvent(ctx context.Context, ev *SaleEvent) error {
	return dbErr(db.WithContext(ctx).Create(ev).Error, "insert sale event", "", "")
}

// LatestLeadEvent is the customer's most recent lead, named eventName when
// that is not empty (case-sensitive).
func (db *DB) LatestLeadEvent(ctx context.Context, workspaceID, customerID, eventName string) (*LeadEvent, error) {
	var ev LeadEvent
	q := db.WithContext(ctx).Where("workspace_id = ? AND customer_id = ?", workspaceID, customerID)
	if eventName != "" {
		q = q.Where("event_name = ?", eventName)
	}
	err := q.Order("timestamp DESC, event_id DESC").Take(&ev).Error
	if err != nil {
		return nil, dbErr(err, "get latest lead", "Lead event not found.", "")
	}
	return &ev, nil
}

// ClaimLeadKey marks (externalID, eventKey) as tracked until expires. It
// reports false when an unexpired mark exists: the lead is a duplicate. The
// upsert is atomic on both dialects, so concurrent claims yield one winner.
func (db *DB) ClaimLeadKey(ctx context.Context, workspaceID, externalID, eventKey string, now, expires time.Time) (bool, error) {
	res := db.WithContext(ctx).Exec(`INSERT INTO lead_dedupe (workspace_id, external_id, event_key, expires_at)
		VALUES (?, ?, ?, ?)
		ON CONFLICT (workspace_id, external_id, event_key) DO UPDATE SET expires_at = excluded.expires_at
		WHERE lead_dedupe.expires_at <= ?`, workspaceID, externalID, eventKey, expires.UTC(), now.UTC())
	if res.Error != nil {
		return false, dbErr(res.Error, "claim lead key", "", "")
	}
	return res.RowsAffected == 1, nil
}

// LeadKeyTaken reports an unexpired mark without claiming it.
func (db *DB) LeadKeyTaken(ctx context.Context, workspaceID, externalID, eventKey string, now time.Time) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Table("lead_dedupe").
		Where("workspace_id = ? AND external_id = ? AND event_key = ? AND expires_at > ?", workspaceID, externalID, eventKey, now.UTC()).
		Count(&n).Error
	return n > 0, dbErr(err, "check lead key", "", "")
}

// SaleInvoice is the stored first response of an invoiceId.
type SaleInvoice struct {
	WorkspaceID string `gorm:"primaryKey"`
	InvoiceID   string `gorm:"primaryKey"`
	Response    string
	CreatedAt   time.Time
}

// TableName pins the table.
func (SaleInvoice) TableName() string { return "sale_invoices" }

// SaleInvoiceByID finds the stored response of an invoice.
func (db *DB) SaleInvoiceByID(ctx context.Context, workspaceID, invoiceID string) (*SaleInvoice, error) {
	var s SaleInvoice
	err := db.WithContext(ctx).Where("workspace_id = ? AND invoice_id = ?", workspaceID, invoiceID).Take(&s).Error
	if err != nil {
		return nil, dbErr(err, "get sale invoice", "Invoice not found.", "")
	}
	return &s, nil
}

// ClaimSaleInvoice inserts the invoice's row; false means another sale with
// this invoiceId was stored first. On PostgreSQL a concurrent claim waits
// for the first transaction and then sees the conflict.
func (db *DB) ClaimSaleInvoice(ctx context.Context, s *SaleInvoice) (bool, error) {
	res := db.WithContext(ctx).Exec(`INSERT INTO sale_invoices (workspace_id, invoice_id, response, created_at)
		VALUES (?, ?, ?, ?) ON CONFLICT (workspace_id, invoice_id) DO NOTHING`,
		s.WorkspaceID, s.InvoiceID, s.Response, s.CreatedAt.UTC())
	if res.Error != nil {
		return false, dbErr(res.Error, "claim sale invoice", "", "")
	}
	return res.RowsAffected == 1, nil
}

// SetSaleInvoiceResponse stores the response of a claimed invoice.
func (db *DB) SetSaleInvoiceResponse(ctx context.Context, workspaceID, invoiceID, response string) error {
	err := db.WithContext(ctx).Model(&SaleInvoice{}).Where("workspace_id = ? AND invoice_id = ?", workspaceID, invoiceID).
		Update("response", response).Error
	return dbErr(err, "store sale response", "", "")
}

// LinkCounters are the increments a conversion applies to its link.
type LinkCounters struct {
	Leads, Conversions, Sales, SaleAmount int64
}

// BumpLinkCounters adds to a link's conversion counters.
func (db *DB) BumpLinkCounters(ctx context.Context, workspaceID, linkID string, d LinkCounters) error {
	set := map[string]any{}
	add := func(col string, n int64) {
		if n != 0 {
			set[col] = gorm.Expr(col+" + ?", n)
		}
	}
	add("leads", d.Leads)
	add("conversions", d.Conversions)
	add("sales", d.Sales)
	add("sale_amount", d.SaleAmount)
	if len(set) == 0 {
		return nil
	}
	err := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND id = ?", workspaceID, linkID).UpdateColumns(set).Error
	return dbErr(err, "bump link counters", "", "")
}

// AddCustomerSale adds a sale to a customer's counters and copies the
// link's program and partner onto it.
func (db *DB) AddCustomerSale(ctx context.Context, c *Customer, amount int64, at time.Time, programID, partnerID *string) error {
	set := map[string]any{
		"sales":       gorm.Expr("sales + 1"),
		"sale_amount": gorm.Expr("sale_amount + ?", amount),
		"updated_at":  at.UTC(),
	}
	if c.FirstSaleAt == nil {
		set["first_sale_at"] = at.UTC()
		c.FirstSaleAt = &at
	}
	if programID != nil {
		set["program_id"], set["partner_id"] = programID, partnerID
		c.ProgramID, c.PartnerID = programID, partnerID
	}
	err := db.WithContext(ctx).Model(&Customer{}).Where("workspace_id = ? AND id = ?", c.WorkspaceID, c.ID).UpdateColumns(set).Error
	if err != nil {
		return dbErr(err, "update customer sales", "", "")
	}
	c.Sales++
	c.SaleAmount += amount
	return nil
}
