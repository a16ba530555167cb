package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// eventRow is one raw click, lead or sale row as /events reads it.
type eventRow struct {
	ID               string // click id for clicks, event id otherwise
	Timestamp        time.Time
	EventName        string
	CustomerID       string
	Metadata         *string
	ClickID          string
	LinkID           string
	URL              string
	Continent        string
	Country          string
	Region           string
	City             string
	Device           string
	Browser          string
	OS               string
	UA               string
	Trigger          string
	Referer          string
	RefererURL       string
	QR               bool
	IP               string
	Amount           int64
	PaymentProcessor string
	InvoiceID        string
}

type customerRow struct {
	ID         string
	Name       *string
	Email      *string
	Avatar     *string
	ExternalID string
	Country    *string
	CreatedAt  time.Time
}

// Events answers GET /events: one page of event objects (spec 6).
func (e *Engine) Events(ctx context.Context, ws *models.Workspace, q *Query) ([]map[string]any, error) {
	s, err := e.prepare(ctx, ws, q)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	if s.linksSet && len(s.links) == 0 {
		return out, nil
	}
	k := kindsOf(q.Event)[0]
	w, ok := s.rawWhere(k, []timeRange{{s.win.Start, s.win.End, true}})
	if !ok {
		return out, nil
	}
	cols := "click_id AS id, timestamp, '' AS event_name, '' AS customer_id, NULL AS metadata, click_id, link_id, url, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, qr, ip, 0 AS amount, '' AS payment_processor, '' AS invoice_id"
	idCol := "click_id"
	switch k {
	case kLead:
		cols = "event_id AS id, timestamp, event_name, customer_id, metadata, click_id, link_id, url, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, qr, ip, 0 AS amount, '' AS payment_processor, '' AS invoice_id"
		idCol = "event_id"
	case kSale:
		cols = "event_id AS id, timestamp, event_name, customer_id, metadata, click_id, link_id, url, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, qr, ip, amount, payment_processor, invoice_id"
		idCol = "event_id"
	}
	dir := "DESC"
	if q.SortOrder == "asc" {
		dir = "ASC"
	}
	var rows []eventRow
	sqlq := "SELECT " + cols + " FROM " + k.table + " WHERE " + w.sql() + " ORDER BY timestamp " + dir + ", " + idCol + " " + dir + " LIMIT ? OFFSET ?"
	args := append(w.args, q.Limit, (q.Page-1)*q.Limit)
	if err := e.DB.WithContext(ctx).Raw(sqlq, args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list %s: %w", k.table, err)
	}
	var linkIDs, customerIDs []string
	for _, r := range rows {
		linkIDs = append(linkIDs, r.LinkID)
		if r.CustomerID != "" {
			customerIDs = append(customerIDs, r.CustomerID)
		}
	}
	links, err := e.linksByID(ctx, ws.ID, dedupe(linkIDs))
	if err != nil {
		return nil, err
	}
	customers := map[string]customerRow{}
	if len(customerIDs) > 0 {
		var cs []customerRow
		if err := e.DB.WithContext(ctx).Raw("SELECT id, name, email, avatar, external_id, country, created_at FROM customers WHERE workspace_id = ? AND id IN ?", ws.ID, dedupe(customerIDs)).Scan(&cs).Error; err != nil {
			return nil, fmt.Errorf("load customers: %w", err)
		}
		for _, c := range cs {
			customers[c.ID] = c
		}
	}
	tags, err := e.linkTags(ctx, linkIDs)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		l := links[r.LinkID]
		if l == nil {
			continue // events of deleted links are dropped from pages
		}
		out = append(out, e.eventObject(ws, k, &r, l, tags[l.ID], customers))
	}
	return out, nil
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

type tagRow struct{ LinkID, ID, Name, Color string }

func (e *Engine) linkTags(ctx context.Context, linkIDs []string) (map[string][]map[string]any, error) {
	out := map[string][]map[string]any{}
	if len(linkIDs) == 0 {
		return out, nil
	}
	var ts []tagRow
	err := e.DB.WithContext(ctx).Raw("SELECT lt.link_id, t.id, t.name, t.color FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id IN ? ORDER BY lt.created_at, t.id", dedupe(linkIDs)).Scan(&ts).Error
	if err != nil {
		return nil, fmt.Errorf("load link tags: %w", err)
	}
	for _, t := range ts {
		out[t.LinkID] = append(out[t.LinkID], map[string]any{"id": t.ID, "name": t.Name, "color": t.Color})
	}
	return out, nil
}

func (e *Engine) eventObject(ws *models.Workspace, k kind, r *eventRow, l *models.Link, tags []map[string]any, customers map[string]customerRow) map[string]any {
	ts := isoMillis(r.Timestamp)
	region := r.Country + "-" + r.Region
	qr := 0
	if r.QR {
		qr = 1
	}
	click := map[string]any{
		"id": r.ClickID, "timestamp": ts, "url": r.URL, "country": r.Country, "city": r.City,
		"region": region, "continent": r.Continent, "device": r.Device, "browser": r.Browser, "os": r.OS,
		"ua": r.UA, "trigger": r.Trigger, "referer": r.Referer, "refererUrl": cutQuery(r.RefererURL),
		"qr": r.QR, "ip": r.IP,
	}
	ev := map[string]any{
		"event": strings.TrimSuffix(string(kindsEvent(k)), "s"), "timestamp": ts,
		"click": click, "link": e.linkObject(ws, l, tags),
		"click_id": r.ClickID, "link_id": r.LinkID, "domain": l.Domain, "key": l.Key, "url": r.URL,
		"continent": r.Continent, "country": r.Country, "city": r.City, "device": r.Device,
		"browser": r.Browser, "os": r.OS, "qr": qr, "ip": r.IP,
	}
	if k == kClick {
		return ev
	}
	ev["eventId"] = r.ID
	ev["eventName"] = r.EventName
	if r.Metadata != nil && *r.Metadata != "" && *r.Metadata != "null" {
		var md any
		if json.Unmarshal([]byte(*r.Metadata), &md) == nil {
			ev["metadata"] = md
		}
	}
	ev["customer"] = customerObject(r.CustomerID, customers)
	if k == kSale {
		ev["sale"] = map[string]any{"amount": r.Amount, "invoiceId": r.InvoiceID, "paymentProcessor": r.PaymentProcessor, "currency": "usd"}
		ev["saleAmount"] = r.Amount
		ev["invoice_id"] = r.InvoiceID
		ev["payment_processor"] = r.PaymentProcessor
	}
	return ev
}

func kindsEvent(k kind) Event {
	switch k {
	case kLead:
		return Leads
	case kSale:
		return Sales
	}
	return Clicks
}

func customerObject(id string, customers map[string]customerRow) map[string]any {
	c, ok := customers[id]
	if !ok {
		return map[string]any{"id": id, "name": "Deleted Customer", "email": "deleted@customer.com",
			"avatar": nil, "externalId": id, "country": "", "createdAt": "1970-01-01T00:00:00.000Z"}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	name := str(c.Name)
	if name == "" {
		name = str(c.Email)
	}
	if name == "" {
		name = "Customer " + c.ExternalID
	}
	return map[string]any{"id": c.ID, "name": name, "email": str(c.Email), "avatar": c.Avatar,
		"externalId": c.ExternalID, "country": str(c.Country), "createdAt": isoMillis(c.CreatedAt)}
}

func optTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return isoMillis(*t)
}

// linkObject is the Link API's object as events embed it (spec 6.2).
func (e *Engine) linkObject(ws *models.Workspace, l *models.Link, tags []map[string]any) map[string]any {
	if tags == nil {
		tags = []map[string]any{}
	}
	var geo any
	if len(l.Geo) > 0 {
		geo = l.Geo
	}
	var variants any
	if len(l.TestVariants) > 0 {
		variants = l.TestVariants
	}
	var tagID any
	if len(tags) > 0 {
		tagID = tags[0]["id"]
	}
	qrBase := e.QRBase
	if qrBase == "" {
		qrBase = "https://api.dub.co/qr"
	}
	short := e.shortLink(l.Domain, l.Key)
	return map[string]any{
		"id": l.ID, "domain": l.Domain, "key": l.Key, "url": l.URL, "trackConversion": l.TrackConversion,
		"externalId": l.ExternalID, "tenantId": l.TenantID, "programId": l.ProgramID, "partnerId": l.PartnerID,
		"archived": l.Archived, "expiresAt": optTime(l.ExpiresAt), "expiredUrl": l.ExpiredURL,
		"disabledAt": optTime(l.DisabledAt), "password": l.Password, "proxy": l.Proxy, "title": l.Title,
		"description": l.Description, "image": l.Image, "video": l.Video, "rewrite": l.Rewrite,
		"doIndex": l.DoIndex, "ios": l.IOS, "android": l.Android, "geo": geo, "publicStats": l.PublicStats,
		"tags": tags, "folderId": l.FolderID, "comments": l.Comments, "shortLink": short,
		"qrCode":     qrBase + "?url=" + url.QueryEscape(short+"?qr=1"),
		"utm_source": l.UTMSource, "utm_medium": l.UTMMedium, "utm_campaign": l.UTMCampaign,
		"utm_term": l.UTMTerm, "utm_content": l.UTMContent, "testVariants": variants,
		"testStartedAt": optTime(l.TestStartedAt), "testCompletedAt": optTime(l.TestCompletedAt),
		"userId": l.UserID, "workspaceId": ws.PublicID(), "clicks": l.Clicks, "leads": l.Leads,
		"conversions": l.Conversions, "sales": l.Sales, "saleAmount": l.SaleAmount,
		"lastClicked": optTime(l.LastClicked), "createdAt": isoMillis(l.CreatedAt),
		"updatedAt": isoMillis(l.UpdatedAt), "tagId": tagID, "projectId": ws.ID, "webhookIds": []string{},
	}
}
