package analytics

import (
	"context"
	"encoding/json"
	"fmt"
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

// Events answers GET /events: one page of events (spec 6).
func (e *SQLEngine) Events(ctx context.Context, ws *models.Workspace, q *Query) ([]EventRecord, error) {
	s, err := e.prepare(ctx, ws, q)
	if err != nil {
		return nil, err
	}
	out := []EventRecord{}
	if s.linksSet && len(s.links) == 0 {
		return out, nil
	}
	k := kindsOf(q.Event)[0]
	rows, err := e.eventRows(ctx, s, k, nil)
	if err != nil || len(rows) == 0 {
		return out, err
	}
	return e.records(ctx, ws, k, rows, out)
}

// ExportBatch is how many events EachEvent reads and hands over at a time.
const ExportBatch = 1000

// EachEvent walks every event of q.Event in q's window and filters, newest
// first (oldest first when q.SortOrder is "asc"), batch by batch: each batch
// is one keyset query (timestamp, id), so a million events are read in
// constant memory and without OFFSET's growing scans. q.Page and q.Limit
// are ignored; events of deleted links are dropped as in Events.
func (e *SQLEngine) EachEvent(ctx context.Context, ws *models.Workspace, q *Query, fn func([]EventRecord) error) error {
	s, err := e.prepare(ctx, ws, q)
	if err != nil {
		return err
	}
	if s.linksSet && len(s.links) == 0 {
		return nil
	}
	k := kindsOf(q.Event)[0]
	q.Page, q.Limit = 1, ExportBatch
	var after *eventRow
	for {
		rows, err := e.eventRows(ctx, s, k, after)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		recs, err := e.records(ctx, ws, k, rows, make([]EventRecord, 0, len(rows)))
		if err != nil {
			return err
		}
		if len(recs) > 0 {
			if err := fn(recs); err != nil {
				return err
			}
		}
		if len(rows) < ExportBatch {
			return nil
		}
		after = &rows[len(rows)-1]
	}
}

// EventWalker is an Engine that can stream every event of a query
// (SQLEngine.EachEvent); EachEvent falls back to paging through Events for
// an engine that cannot.
type EventWalker interface {
	EachEvent(ctx context.Context, ws *models.Workspace, q *Query, fn func([]EventRecord) error) error
}

// EachEvent walks every event q selects through eng, batch by batch.
func EachEvent(ctx context.Context, eng Engine, ws *models.Workspace, q *Query, fn func([]EventRecord) error) error {
	if w, ok := eng.(EventWalker); ok {
		return w.EachEvent(ctx, ws, q, fn)
	}
	q.Limit = ExportBatch
	for page := 1; ; page++ {
		q.Page = page
		recs, err := eng.Events(ctx, ws, q)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return nil
		}
		if err := fn(recs); err != nil {
			return err
		}
	}
}

// records turns raw rows into event records (links, tags and customers
// loaded once per batch), appended to out.
func (e *SQLEngine) records(ctx context.Context, ws *models.Workspace, k kind, rows []eventRow, out []EventRecord) ([]EventRecord, error) {
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
	customers, err := e.customers(ctx, ws.ID, customerIDs)
	if err != nil {
		return nil, err
	}
	tags, err := e.linkTags(ctx, linkIDs)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		l := links[rows[i].LinkID]
		if l == nil {
			continue // events of deleted links are dropped from pages
		}
		out = append(out, e.eventRecord(k, &rows[i], l, tags[l.ID], customers))
	}
	return out, nil
}

// eventRows reads one page of kind k's raw rows in the scope: page q.Page
// of q.Limit rows, or with after set the q.Limit rows that follow after in
// the sort order (a keyset page).
func (e *SQLEngine) eventRows(ctx context.Context, s *scope, k kind, after *eventRow) ([]eventRow, error) {
	if e.CH != nil {
		return e.chEventRows(ctx, s, k, after)
	}
	w, ok := s.rawWhere(k, []timeRange{{s.win.Start, s.win.End, true}})
	if !ok {
		return nil, nil
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
	if s.q.SortOrder == "asc" {
		dir = "ASC"
	}
	var rows []eventRow
	offset := (s.q.Page - 1) * s.q.Limit
	if after != nil {
		cmp := "<"
		if dir == "ASC" {
			cmp = ">"
		}
		// The first condition alone bounds the (workspace_id, timestamp)
		// index range; the second drops the rows of the last timestamp
		// already written.
		w.add("timestamp "+cmp+"= ?", after.Timestamp)
		w.add("(timestamp "+cmp+" ? OR "+idCol+" "+cmp+" ?)", after.Timestamp, after.ID)
		offset = 0
	}
	sqlq := "SELECT " + cols + " FROM " + k.table + " WHERE " + w.sql() + " ORDER BY timestamp " + dir + ", " + idCol + " " + dir + " LIMIT ? OFFSET ?"
	args := append(w.args, s.q.Limit, offset)
	if err := e.DB.WithContext(ctx).Raw(sqlq, args...).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("list %s: %w", k.table, err)
	}
	return rows, nil
}

// customers loads the workspace's customers among ids.
func (e *SQLEngine) customers(ctx context.Context, wsID string, ids []string) (map[string]customerRow, error) {
	out := map[string]customerRow{}
	if len(ids) == 0 {
		return out, nil
	}
	var cs []customerRow
	if err := e.DB.WithContext(ctx).Raw("SELECT id, name, email, avatar, external_id, country, created_at FROM customers WHERE workspace_id = ? AND id IN ?", wsID, dedupe(ids)).Scan(&cs).Error; err != nil {
		return nil, fmt.Errorf("load customers: %w", err)
	}
	for _, c := range cs {
		out[c.ID] = c
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

func (e *SQLEngine) linkTags(ctx context.Context, linkIDs []string) (map[string][]Tag, error) {
	out := map[string][]Tag{}
	if len(linkIDs) == 0 {
		return out, nil
	}
	var ts []tagRow
	err := e.DB.WithContext(ctx).Raw("SELECT lt.link_id, t.id, t.name, t.color FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id IN ? ORDER BY lt.created_at, t.id", dedupe(linkIDs)).Scan(&ts).Error
	if err != nil {
		return nil, fmt.Errorf("load link tags: %w", err)
	}
	for _, t := range ts {
		out[t.LinkID] = append(out[t.LinkID], Tag{ID: t.ID, Name: t.Name, Color: t.Color})
	}
	return out, nil
}

func (e *SQLEngine) eventRecord(k kind, r *eventRow, l *models.Link, tags []Tag, customers map[string]customerRow) EventRecord {
	short := e.Wire.ShortLink(l.Domain, l.Key)
	ev := EventRecord{
		Kind: kindsEvent(k), Timestamp: r.Timestamp,
		Click: Click{
			ID: r.ClickID, URL: r.URL, Continent: r.Continent, Country: r.Country, Region: r.Region, City: r.City,
			Device: r.Device, Browser: r.Browser, OS: r.OS, UA: r.UA, Trigger: r.Trigger, Referer: r.Referer,
			RefererURL: cutQuery(r.RefererURL), QR: r.QR, IP: r.IP,
		},
		Link: EventLink{Link: l, Tags: tags, Short: short, QRCode: e.Wire.QRCode(short)},
	}
	if k == kClick {
		return ev
	}
	ev.ID, ev.EventName = r.ID, r.EventName
	if r.Metadata != nil && *r.Metadata != "" && *r.Metadata != "null" && json.Valid([]byte(*r.Metadata)) {
		ev.Metadata = json.RawMessage(*r.Metadata)
	}
	ev.Customer = customerOf(r.CustomerID, customers)
	if k == kSale {
		ev.Sale = Sale{Amount: r.Amount, InvoiceID: r.InvoiceID, PaymentProcessor: r.PaymentProcessor}
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

func customerOf(id string, customers map[string]customerRow) Customer {
	c, ok := customers[id]
	if !ok {
		return Customer{ID: id, Deleted: true, Name: "Deleted Customer", Email: "deleted@customer.com",
			ExternalID: id, CreatedAt: time.Unix(0, 0).UTC()}
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
	return Customer{ID: c.ID, Name: name, Email: str(c.Email), Avatar: c.Avatar, ExternalID: c.ExternalID,
		Country: str(c.Country), CreatedAt: c.CreatedAt}
}
