package webhooks

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/relinkhq/relink/internal/ids"

	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/internal/wsset"
	"github.com/relinkhq/relink/models"
)

// Clicks feeds link.clicked from the click ingest batches (§7): Hook runs
// inside the transaction that stores a batch and writes one outbox row per
// matching webhook holding the batch's clicks for it (Delivery.Clicks), so
// a batch of 1000 clicks costs one small INSERT per webhook; the worker
// expands it into one request per click. Only workspaces in
// an in-memory set of "workspaces with an enabled link.clicked webhook" are
// looked at, so while no workspace has one the batch path pays one atomic
// load. The set is reloaded on every webhook change in this process
// (Invalidate) and every Refresh (changes made by other instances).
type Clicks struct {
	DB *models.DB
	// Wire writes the clicked links (app.Build sets it after the links
	// service is made).
	Wire wire.Writer
	// The workspaces with an enabled link.clicked webhook on a paid plan:
	// Reload, Invalidate, Run (every Refresh, default 10s), Logger.
	*wsset.Set
}

// NewClicks returns the feed with its set loaded.
func NewClicks(ctx context.Context, db *models.DB, w wire.Writer) (*Clicks, error) {
	c := &Clicks{DB: db, Wire: w}
	set, err := wsset.New(ctx, "click webhook set", c.workspaces)
	c.Set = set
	return c, err
}

// workspaces lists the workspaces with a click webhook.
func (c *Clicks) workspaces(ctx context.Context) ([]string, error) {
	var wss []string
	err := c.DB.WithContext(ctx).Model(&Webhook{}).Distinct("workspace_id").
		Where("disabled_at IS NULL AND triggers LIKE ?", `%"`+LinkClicked+`"%`).
		Where("EXISTS (SELECT 1 FROM workspaces w WHERE w.id = webhooks.workspace_id AND w.plan IN ?)", paidPlans).
		Pluck("workspace_id", &wss).Error
	if err != nil {
		return nil, fmt.Errorf("webhooks: load click webhook set: %w", err)
	}
	return wss, nil
}

// Active reports whether workspaceID has a click webhook (per the set).
func (c *Clicks) Active(workspaceID string) bool { return c.Has(workspaceID) }

// Hook is a models.ClickHook.
func (c *Clicks) Hook(ctx context.Context, tx *models.DB, inserted []models.Click) error {
	if c.Empty() {
		return nil
	}
	var mine []*models.Click
	for i := range inserted {
		if c.Has(inserted[i].WorkspaceID) && !inserted[i].Bot {
			mine = append(mine, &inserted[i])
		}
	}
	if len(mine) == 0 {
		return nil
	}
	rows, bodies, err := c.deliveries(ctx, tx, mine)
	if err != nil || len(rows) == 0 {
		return err
	}
	if err := tx.WithContext(ctx).Create(&rows).Error; err != nil {
		return fmt.Errorf("webhooks: write link.clicked outbox (%d rows): %w", len(rows), err)
	}
	batches := make([]ClickBatch, len(rows))
	for i := range rows {
		batches[i] = ClickBatch{DeliveryID: rows[i].ID, Body: bodies[i]}
	}
	if err := tx.WithContext(ctx).Create(&batches).Error; err != nil {
		return fmt.Errorf("webhooks: write link.clicked envelopes: %w", err)
	}
	return nil
}

// clickTargets is what the batch needs to route its clicks.
type clickTargets struct {
	hooks   map[string][]*Webhook      // workspace → enabled link.clicked webhooks
	links   map[string]*models.Link    // link id → link with tags
	folders map[string]map[string]bool // webhook → folder ids
	linked  map[string]map[string]bool // webhook → link ids (of this batch)
}

func (c *Clicks) load(ctx context.Context, tx *models.DB, clicks []*models.Click) (*clickTargets, error) {
	wsSet, linkSet := map[string]bool{}, map[string]bool{}
	for _, k := range clicks {
		wsSet[k.WorkspaceID], linkSet[k.LinkID] = true, true
	}
	t := &clickTargets{hooks: map[string][]*Webhook{}, links: map[string]*models.Link{},
		folders: map[string]map[string]bool{}, linked: map[string]map[string]bool{}}
	db := tx.WithContext(ctx)
	var hooks []*Webhook
	if err := db.Where("workspace_id IN ? AND disabled_at IS NULL AND link_scope IS NOT NULL", keys(wsSet)).
		Order("created_at").Find(&hooks).Error; err != nil {
		return nil, fmt.Errorf("webhooks: click webhooks: %w", err)
	}
	var hookIDs []string
	for _, h := range hooks {
		if h.Has(LinkClicked) && Sendable(h, LinkClicked) {
			t.hooks[h.WorkspaceID] = append(t.hooks[h.WorkspaceID], h)
			hookIDs = append(hookIDs, h.ID)
		}
	}
	if len(hookIDs) == 0 {
		return t, nil
	}
	var ls []*models.Link
	if err := db.Where("id IN ?", keys(linkSet)).Find(&ls).Error; err != nil {
		return nil, fmt.Errorf("webhooks: clicked links: %w", err)
	}
	if err := tx.LoadTags(ctx, ls); err != nil {
		return nil, err
	}
	for _, l := range ls {
		t.links[l.ID] = l
	}
	var fs []WebhookFolder
	if err := db.Where("webhook_id IN ?", hookIDs).Find(&fs).Error; err != nil {
		return nil, fmt.Errorf("webhooks: webhook folders: %w", err)
	}
	for _, f := range fs {
		addTo(t.folders, f.WebhookID, f.FolderID)
	}
	var wl []WebhookLink
	if err := db.Where("webhook_id IN ? AND link_id IN ?", hookIDs, keys(linkSet)).Find(&wl).Error; err != nil {
		return nil, fmt.Errorf("webhooks: webhook links: %w", err)
	}
	for _, x := range wl {
		addTo(t.linked, x.WebhookID, x.LinkID)
	}
	return t, nil
}

func addTo(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// matches is §1.4's scope rule.
func (t *clickTargets) matches(h *Webhook, l *models.Link) bool {
	switch h.Scope() {
	case ScopeWorkspace:
		return true
	case ScopeFolders:
		return l.FolderID != nil && t.folders[h.ID][*l.FolderID]
	case ScopeLinks:
		return t.linked[h.ID][l.ID]
	}
	return false
}

// deliveries builds one batch row per webhook naming its clicks: the
// batch's time, the JSON of each link clicked (encoded once per link, as
// it is now: the events carry the link as it was at the click) and the
// click ids (clickBatch). The envelopes themselves are built when the row
// is delivered (expandBatch), from the clicks table: at ingest a batch of
// 1000 clicks costs one link encoding per link and about 17 bytes per
// click, not 1.5 KB of envelope per click, and the redirects keep that
// CPU. A click on a link deleted meanwhile is skipped.
func (c *Clicks) deliveries(ctx context.Context, tx *models.DB, clicks []*models.Click) ([]Delivery, []string, error) {
	t, err := c.load(ctx, tx, clicks)
	if err != nil {
		return nil, nil, err
	}
	now := Now()
	type batch struct {
		hook  *Webhook
		first string
		n     int
		ids   []byte
		links []string
		seen  map[string]bool
	}
	var order []*batch
	byHook := map[string]*batch{}
	linkJSON := map[string][]byte{}
	for _, k := range clicks {
		l := t.links[k.LinkID]
		if l == nil {
			continue
		}
		for _, h := range t.hooks[k.WorkspaceID] {
			if !t.matches(h, l) {
				continue
			}
			b := byHook[h.ID]
			if b == nil {
				b = &batch{hook: h, first: ClickEventID(k.ClickID), seen: map[string]bool{}}
				byHook[h.ID] = b
				order = append(order, b)
			} else {
				b.ids = append(b.ids, ',')
			}
			b.ids = append(b.ids, k.ClickID...)
			if !b.seen[l.ID] {
				b.seen[l.ID] = true
				b.links = append(b.links, l.ID)
				// Encoded once per batch, and only for links some webhook's
				// scope takes.
				if _, done := linkJSON[l.ID]; !done {
					lj, err := Marshal(c.Wire.Link(l))
					if err != nil {
						return nil, nil, err
					}
					linkJSON[l.ID] = lj
				}
			}
			b.n++
		}
	}
	rows := make([]Delivery, 0, len(order))
	bodies := make([]string, 0, len(order))
	created := wire.Timestamp(now)
	for _, b := range order {
		d := newDelivery(b.first, LinkClicked, b.hook, "", now)
		d.Clicks = b.n
		rows = append(rows, d)
		bodies = append(bodies, clickBatchBody(created, b.links, linkJSON, b.ids))
	}
	return rows, bodies, nil
}

// clickBatchPrefix starts a batch row's body (format 2): a header line
// {"v":2,"createdAt":…,"links":{id: link JSON, …}}, then the click ids,
// comma-separated. Rows of format 1 (written before it) hold the
// envelopes, one per line, and are delivered as they are.
const clickBatchPrefix = `{"v":2,`

func clickBatchBody(created string, links []string, linkJSON map[string][]byte, clickIDs []byte) string {
	n := len(clickIDs) + 64
	for _, id := range links {
		n += len(id) + len(linkJSON[id]) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, clickBatchPrefix+`"createdAt":"`...)
	b = append(b, created...)
	b = append(b, `","links":{`...)
	for i, id := range links {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, id...)
		b = append(b, `":`...)
		b = append(b, linkJSON[id]...)
	}
	b = append(b, "}}\n"...)
	b = append(b, clickIDs...)
	return string(b)
}

// ClickEventID is the id of a click's link.clicked event: derived from the
// click id, so it is the same for every webhook and every attempt (Dub's
// receivers deduplicate on it), without storing one per click.
func ClickEventID(clickID string) string {
	sum := sha256.Sum256([]byte("link.clicked\x00" + clickID))
	out := make([]byte, 25)
	for i := range out {
		out[i] = ids.Alphanumeric[int(sum[i])%len(ids.Alphanumeric)]
	}
	return ids.Event + string(out)
}

// envelopeColumns are the clicks' columns a link.clicked envelope shows
// (wire.ClickOf): reading only them halves the cost of expanding a batch.
var envelopeColumns = []string{"click_id", "timestamp", "link_id", "url", "country", "city", "region", "continent",
	"device", "browser", "os", "referer", "referer_url", "qr", "ip", "ua", "trigger"}

// expandBatch turns a batch row's body into its envelopes, one per line
// (a format 1 body already is). Clicks no longer stored (erased since) are
// left out and counted in missing.
func expandBatch(ctx context.Context, db *models.DB, body string) (envs string, missing int, err error) {
	if !strings.HasPrefix(body, clickBatchPrefix) {
		return body, 0, nil
	}
	head, list, _ := strings.Cut(body, "\n")
	var h struct {
		CreatedAt string                     `json:"createdAt"`
		Links     map[string]json.RawMessage `json:"links"`
	}
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		return "", 0, fmt.Errorf("click batch header: %w", err)
	}
	clickIDs := strings.Split(list, ",")
	byID := make(map[string]*models.Click, len(clickIDs))
	for chunk := range slices.Chunk(clickIDs, 500) {
		var ks []models.Click
		if err := db.WithContext(ctx).Select(envelopeColumns).Where("click_id IN ?", chunk).Find(&ks).Error; err != nil {
			return "", 0, fmt.Errorf("load the batch's clicks: %w", err)
		}
		for i := range ks {
			byID[ks[i].ClickID] = &ks[i]
		}
	}
	var b []byte
	for _, id := range clickIDs {
		k := byID[id]
		if k == nil || h.Links[k.LinkID] == nil {
			missing++
			continue
		}
		attrs := models.AttrsOf(k)
		env, err := clickEnvelope(ClickEventID(id), h.CreatedAt, wire.ClickOf(&attrs, wire.Timestamp(k.Timestamp)), h.Links[k.LinkID])
		if err != nil {
			return "", 0, err
		}
		if len(b) > 0 {
			b = append(b, '\n')
		}
		b = append(b, env...)
	}
	return string(b), missing, nil
}

// clickEnvelope is Marshal(Envelope{id, link.clicked, createdAt,
// wire.LinkClickedData{click, link}}) with the link's JSON (the same for every
// click on it in a batch) encoded once by the caller.
func clickEnvelope(id, createdAt string, click wire.Click, link []byte) ([]byte, error) {
	cj, err := Marshal(click)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 96+len(cj)+len(link))
	b = append(b, `{"id":"`...)
	b = append(b, id...)
	b = append(b, `","event":"`+LinkClicked+`","createdAt":"`...)
	b = append(b, createdAt...)
	b = append(b, `","data":{"click":`...)
	b = append(b, cj...)
	b = append(b, `,"link":`...)
	b = append(b, link...)
	return append(b, "}}"...), nil
}

// splitBatch returns a batch row's envelopes.
func splitBatch(body string) []string {
	if body == "" {
		return nil
	}
	return strings.Split(body, "\n")
}

// eventIDOf reads an envelope's id (its first key, §4.1) without decoding
// the rest.
func eventIDOf(env string) string {
	const p = `{"id":"`
	if !strings.HasPrefix(env, p) {
		return ""
	}
	rest := env[len(p):]
	if i := strings.IndexByte(rest, '"'); i >= 0 {
		return rest[:i]
	}
	return ""
}
