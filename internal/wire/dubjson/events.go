package dubjson

import (
	"encoding/json"
	"strings"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Events is the JSON array of a GET /events page.
func Events(ws *models.Workspace, evs []analytics.EventRecord) []map[string]any {
	out := make([]map[string]any, 0, len(evs))
	for i := range evs {
		out = append(out, Event(ws, &evs[i]))
	}
	return out
}

// Event is one event object (spec/analytics.md §6.2).
func Event(ws *models.Workspace, ev *analytics.EventRecord) map[string]any {
	m := event(ws, ev.Kind, &ev.Click, &ev.Link, ev)
	m["ip"] = ev.Click.IP
	m["click"].(map[string]any)["ip"] = ev.Click.IP
	if ev.Kind != analytics.Clicks {
		c := &ev.Customer
		m["customer"] = map[string]any{"id": c.ID, "name": c.Name, "email": c.Email, "avatar": c.Avatar,
			"externalId": c.ExternalID, "country": c.Country, "createdAt": wire.Timestamp(c.CreatedAt)}
	}
	return m
}

// PartnerEvents is the JSON array of GET /api/embed/referrals/events: the
// event objects without IP addresses, customers reduced to id and masked
// email and name (spec/partners-and-embed.md §6.7).
func PartnerEvents(ws *models.Workspace, evs []referrals.PartnerEvent) []map[string]any {
	out := make([]map[string]any, 0, len(evs))
	for i := range evs {
		pe := &evs[i]
		c := pe.Click
		click := analytics.Click{ID: c.ID, URL: c.URL, Continent: c.Continent, Country: c.Country, Region: c.Region,
			City: c.City, Device: c.Device, Browser: c.Browser, OS: c.OS, UA: c.UA, Trigger: c.Trigger,
			Referer: c.Referer, RefererURL: c.RefererURL, QR: c.QR}
		m := event(ws, pe.Kind, &click, &pe.Link, &analytics.EventRecord{
			ID: pe.ID, EventName: pe.EventName, Metadata: pe.Metadata, Sale: pe.Sale, Timestamp: pe.Timestamp})
		if pe.Kind != analytics.Clicks {
			m["customer"] = map[string]any{"id": pe.Customer.ID, "email": pe.Customer.Email, "name": pe.Customer.Name}
		}
		out = append(out, m)
	}
	return out
}

// event is the object both event shapes share; ev supplies the
// timestamp and the lead and sale parts.
func event(ws *models.Workspace, kind analytics.Event, c *analytics.Click, l *analytics.EventLink, ev *analytics.EventRecord) map[string]any {
	ts := wire.Timestamp(ev.Timestamp)
	qr := 0
	if c.QR {
		qr = 1
	}
	click := map[string]any{
		"id": c.ID, "timestamp": ts, "url": c.URL, "country": c.Country, "city": c.City,
		"region": c.Country + "-" + c.Region, "continent": c.Continent, "device": c.Device, "browser": c.Browser,
		"os": c.OS, "ua": c.UA, "trigger": c.Trigger, "referer": c.Referer, "refererUrl": c.RefererURL, "qr": c.QR,
	}
	m := map[string]any{
		"event": strings.TrimSuffix(string(kind), "s"), "timestamp": ts,
		"click": click, "link": linkObject(ws, l),
		"click_id": c.ID, "link_id": l.ID, "domain": l.Domain, "key": l.Key, "url": c.URL,
		"continent": c.Continent, "country": c.Country, "city": c.City, "device": c.Device,
		"browser": c.Browser, "os": c.OS, "qr": qr,
	}
	if kind == analytics.Clicks {
		return m
	}
	m["eventId"] = ev.ID
	m["eventName"] = ev.EventName
	if ev.Metadata != nil {
		var md any
		if json.Unmarshal(ev.Metadata, &md) == nil {
			m["metadata"] = md
		}
	}
	if kind == analytics.Sales {
		s := ev.Sale
		m["sale"] = map[string]any{"amount": s.Amount, "invoiceId": s.InvoiceID, "paymentProcessor": s.PaymentProcessor, "currency": "usd"}
		m["saleAmount"] = s.Amount
		m["invoice_id"] = s.InvoiceID
		m["payment_processor"] = s.PaymentProcessor
	}
	return m
}

// linkObject is the Link API's object as events embed it (spec 6.2).
func linkObject(ws *models.Workspace, el *analytics.EventLink) map[string]any {
	l := el.Link
	tags := make([]map[string]any, 0, len(el.Tags))
	for _, t := range el.Tags {
		tags = append(tags, map[string]any{"id": t.ID, "name": t.Name, "color": t.Color})
	}
	var geo, variants, tagID any
	if len(l.Geo) > 0 {
		geo = l.Geo
	}
	if len(l.TestVariants) > 0 {
		variants = l.TestVariants
	}
	if len(tags) > 0 {
		tagID = tags[0]["id"]
	}
	return map[string]any{
		"id": l.ID, "domain": l.Domain, "key": l.Key, "url": l.URL, "trackConversion": l.TrackConversion,
		"externalId": l.ExternalID, "tenantId": l.TenantID, "programId": l.ProgramID, "partnerId": l.PartnerID,
		"archived": l.Archived, "expiresAt": optTime(l.ExpiresAt), "expiredUrl": l.ExpiredURL,
		"disabledAt": optTime(l.DisabledAt), "password": l.Password, "proxy": l.Proxy, "title": l.Title,
		"description": l.Description, "image": l.Image, "video": l.Video, "rewrite": l.Rewrite,
		"doIndex": l.DoIndex, "ios": l.IOS, "android": l.Android, "geo": geo, "publicStats": l.PublicStats,
		"tags": tags, "folderId": l.FolderID, "comments": l.Comments, "shortLink": el.Short,
		"qrCode":     el.QRCode,
		"utm_source": l.UTMSource, "utm_medium": l.UTMMedium, "utm_campaign": l.UTMCampaign,
		"utm_term": l.UTMTerm, "utm_content": l.UTMContent, "testVariants": variants,
		"testStartedAt": optTime(l.TestStartedAt), "testCompletedAt": optTime(l.TestCompletedAt),
		"userId": l.UserID, "workspaceId": ws.PublicID(), "clicks": l.Clicks, "leads": l.Leads,
		"conversions": l.Conversions, "sales": l.Sales, "saleAmount": l.SaleAmount,
		"lastClicked": optTime(l.LastClicked), "createdAt": wire.Timestamp(l.CreatedAt),
		"updatedAt": wire.Timestamp(l.UpdatedAt), "tagId": tagID, "projectId": ws.ID, "webhookIds": []string{},
	}
}
