package chstore

import (
	"time"

	"github.com/relinkhq/relink/models"
)

// Micros is t as the ts column stores it: microseconds since the epoch.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// attrs are the click attributes every event table carries.
type attrs struct {
	ClickID         string `json:"click_id"`
	LinkID          string `json:"link_id"`
	Domain          string `json:"domain"`
	Key             string `json:"key"`
	URL             string `json:"url"`
	IP              string `json:"ip"`
	Continent       string `json:"continent"`
	Country         string `json:"country"`
	Region          string `json:"region"`
	City            string `json:"city"`
	Latitude        string `json:"latitude"`
	Longitude       string `json:"longitude"`
	Device          string `json:"device"`
	DeviceVendor    string `json:"device_vendor"`
	DeviceModel     string `json:"device_model"`
	Browser         string `json:"browser"`
	BrowserVersion  string `json:"browser_version"`
	Engine          string `json:"engine"`
	EngineVersion   string `json:"engine_version"`
	OS              string `json:"os"`
	OSVersion       string `json:"os_version"`
	CPUArchitecture string `json:"cpu_architecture"`
	UA              string `json:"ua"`
	Bot             uint8  `json:"bot"`
	QR              uint8  `json:"qr"`
	Trigger         string `json:"trigger"`
	Referer         string `json:"referer"`
	RefererURL      string `json:"referer_url"`
	UTMSource       string `json:"utm_source"`
	UTMMedium       string `json:"utm_medium"`
	UTMCampaign     string `json:"utm_campaign"`
	UTMTerm         string `json:"utm_term"`
	UTMContent      string `json:"utm_content"`
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func attrsOf(a *models.ClickAttrs) attrs {
	return attrs{ClickID: a.ClickID, LinkID: a.LinkID, Domain: a.Domain, Key: a.Key, URL: a.URL, IP: a.IP,
		Continent: a.Continent, Country: a.Country, Region: a.Region, City: a.City, Latitude: a.Latitude,
		Longitude: a.Longitude, Device: a.Device, DeviceVendor: a.DeviceVendor, DeviceModel: a.DeviceModel,
		Browser: a.Browser, BrowserVersion: a.BrowserVersion, Engine: a.Engine, EngineVersion: a.EngineVersion,
		OS: a.OS, OSVersion: a.OSVersion, CPUArchitecture: a.CPUArchitecture, UA: a.UA, Bot: b2u(a.Bot),
		QR: b2u(a.QR), Trigger: a.Trigger, Referer: a.Referer, RefererURL: a.RefererURL, UTMSource: a.UTMSource,
		UTMMedium: a.UTMMedium, UTMCampaign: a.UTMCampaign, UTMTerm: a.UTMTerm, UTMContent: a.UTMContent}
}

type clickRow struct {
	WorkspaceID  string `json:"workspace_id"`
	TS           int64  `json:"ts"`
	IdentityHash string `json:"identity_hash"`
	attrs
}

// ClickRow is a click as the clicks table stores it.
func ClickRow(c *models.Click) any {
	a := models.ClickAttrs{ClickID: c.ClickID, LinkID: c.LinkID, Domain: c.Domain, Key: c.Key, URL: c.URL, IP: c.IP,
		Continent: c.Continent, Country: c.Country, Region: c.Region, City: c.City, Latitude: c.Latitude,
		Longitude: c.Longitude, Device: c.Device, DeviceVendor: c.DeviceVendor, DeviceModel: c.DeviceModel,
		Browser: c.Browser, BrowserVersion: c.BrowserVersion, Engine: c.Engine, EngineVersion: c.EngineVersion,
		OS: c.OS, OSVersion: c.OSVersion, CPUArchitecture: c.CPUArchitecture, UA: c.UA, Bot: c.Bot, QR: c.QR,
		Trigger: c.Trigger, Referer: c.Referer, RefererURL: c.RefererURL, UTMSource: c.UTMSource,
		UTMMedium: c.UTMMedium, UTMCampaign: c.UTMCampaign, UTMTerm: c.UTMTerm, UTMContent: c.UTMContent}
	return clickRow{WorkspaceID: c.WorkspaceID, TS: Micros(c.Timestamp), IdentityHash: c.IdentityHash, attrs: attrsOf(&a)}
}

// click is the click a ClickRow was made from.
func (r clickRow) click() models.Click {
	a := &r.attrs
	return models.Click{ClickID: a.ClickID, Timestamp: time.UnixMicro(r.TS).UTC(), WorkspaceID: r.WorkspaceID, LinkID: a.LinkID,
		Domain: a.Domain, Key: a.Key, URL: a.URL, IdentityHash: r.IdentityHash, IP: a.IP, Continent: a.Continent, Country: a.Country,
		Region: a.Region, City: a.City, Latitude: a.Latitude, Longitude: a.Longitude, Device: a.Device, DeviceVendor: a.DeviceVendor,
		DeviceModel: a.DeviceModel, Browser: a.Browser, BrowserVersion: a.BrowserVersion, Engine: a.Engine, EngineVersion: a.EngineVersion,
		OS: a.OS, OSVersion: a.OSVersion, CPUArchitecture: a.CPUArchitecture, UA: a.UA, Bot: a.Bot != 0, QR: a.QR != 0,
		Trigger: a.Trigger, Referer: a.Referer, RefererURL: a.RefererURL, UTMSource: a.UTMSource, UTMMedium: a.UTMMedium,
		UTMCampaign: a.UTMCampaign, UTMTerm: a.UTMTerm, UTMContent: a.UTMContent}
}

// EventRow is a lead or sale row as read from the SQL store (the outbox
// drain and the backfill read it with these columns).
type EventRow struct {
	EventID          string
	Timestamp        time.Time
	WorkspaceID      string
	EventName        string
	CustomerID       string
	Metadata         *string
	LeadEventID      *string
	Amount           int64
	Currency         string
	PaymentProcessor string
	InvoiceID        string
	models.ClickAttrs
}

type leadRow struct {
	WorkspaceID string `json:"workspace_id"`
	TS          int64  `json:"ts"`
	EventID     string `json:"event_id"`
	EventName   string `json:"event_name"`
	CustomerID  string `json:"customer_id"`
	Metadata    string `json:"metadata"`
	attrs
}

type saleRow struct {
	leadRow
	LeadEventID      string `json:"lead_event_id"`
	Amount           int64  `json:"amount"`
	Currency         string `json:"currency"`
	PaymentProcessor string `json:"payment_processor"`
	InvoiceID        string `json:"invoice_id"`
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// LeadRow is a lead as the lead_events table stores it.
func LeadRow(e *EventRow) any {
	return leadRow{WorkspaceID: e.WorkspaceID, TS: Micros(e.Timestamp), EventID: e.EventID, EventName: e.EventName,
		CustomerID: e.CustomerID, Metadata: str(e.Metadata), attrs: attrsOf(&e.ClickAttrs)}
}

// SaleRow is a sale as the sale_events table stores it.
func SaleRow(e *EventRow) any {
	l := LeadRow(e).(leadRow)
	return saleRow{leadRow: l, LeadEventID: str(e.LeadEventID), Amount: e.Amount, Currency: e.Currency,
		PaymentProcessor: e.PaymentProcessor, InvoiceID: e.InvoiceID}
}
