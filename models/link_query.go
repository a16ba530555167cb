package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
)

// linkWritable are the columns an API write sets; counters are left to the
// click and conversion pipelines.
var linkWritable = []string{
	"domain", "key", "url", "track_conversion", "external_id", "tenant_id", "program_id", "partner_id",
	"archived", "expires_at", "expired_url", "disabled_at", "password", "proxy", "title", "description",
	"image", "video", "rewrite", "do_index", "ios", "android", "geo", "public_stats", "folder_id",
	"comments", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "test_variants",
	"test_started_at", "test_completed_at", "updated_at",
}

// LinkAnyWorkspace loads a link by id in any workspace. Callers use it only
// to tell "not found" from "another workspace's link" (spec/links.md §5.4, 401).
func (db *DB) LinkAnyWorkspace(ctx context.Context, id string) (*Link, error) {
	var l Link
	err := db.WithContext(ctx).Where("id = ?", id).Take(&l).Error
	if err != nil {
		return nil, dbErr(err, "get link", "Link not found.", "")
	}
	return &l, nil
}

// LinkByExternalID loads a workspace's link by externalId (case-insensitive).
func (db *DB) LinkByExternalID(ctx context.Context, workspaceID, externalID string) (*Link, error) {
	var l Link
	err := db.WithContext(ctx).Where("workspace_id = ? AND lower(external_id) = ?", workspaceID, strings.ToLower(externalID)).Take(&l).Error
	if err != nil {
		return nil, dbErr(err, "get link by externalId", "Link not found.", "")
	}
	return &l, nil
}

// FirstLinkByURL is the workspace's oldest link whose url equals dest (for
// upsert); not found is a NotFound error.
func (db *DB) FirstLinkByURL(ctx context.Context, workspaceID, dest string) (*Link, error) {
	var l Link
	err := db.WithContext(ctx).Where("workspace_id = ? AND url = ?", workspaceID, dest).Order("created_at, id").Take(&l).Error
	if err != nil {
		return nil, dbErr(err, "get link by url", "Link not found.", "")
	}
	return &l, nil
}

// LinkExists reports whether any link holds (domain, key), case-insensitively.
func (db *DB) LinkExists(ctx context.Context, domain, key string) (bool, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Link{}).Where("domain = ? AND lower(key) = ?", strings.ToLower(domain), strings.ToLower(key)).Count(&n).Error
	return n > 0, dbErr(err, "check link key", "", "")
}

// ExternalIDTaken reports whether another link of the workspace (not
// exceptID) holds externalID, case-insensitively.
func (db *DB) ExternalIDTaken(ctx context.Context, workspaceID, externalID, exceptID string) (bool, error) {
	var n int64
	q := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND lower(external_id) = ?", workspaceID, strings.ToLower(externalID))
	if exceptID != "" {
		q = q.Where("id <> ?", exceptID)
	}
	err := q.Count(&n).Error
	return n > 0, dbErr(err, "check externalId", "", "")
}

// InsertLink stores a new link and its tags (nil: none) in one transaction.
func (db *DB) InsertLink(ctx context.Context, l *Link, tagIDs []string, now time.Time) error {
	return db.Tx(ctx, func(tx *DB) error {
		if err := tx.CreateLink(ctx, l); err != nil {
			return err
		}
		if err := tx.setLinkWebhooks(ctx, l); err != nil {
			return err
		}
		return tx.setLinkTags(ctx, l.ID, tagIDs, now)
	})
}

// SaveLink writes every API-writable column of an existing link and, when
// tagIDs is non-nil, replaces its tags, in one transaction. A taken key or
// externalId is a 409.
func (db *DB) SaveLink(ctx context.Context, l *Link, tagIDs *[]string, now time.Time) error {
	l.Domain = strings.ToLower(l.Domain)
	l.UpdatedAt = now
	err := db.Tx(ctx, func(tx *DB) error {
		res := tx.WithContext(ctx).Model(l).Where("workspace_id = ?", l.WorkspaceID).Select(linkWritable).Updates(l)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return apierr.New(apierr.NotFound, "Link not found.")
		}
		if err := tx.setLinkWebhooks(ctx, l); err != nil {
			return err
		}
		if tagIDs == nil {
			return nil
		}
		if err := tx.WithContext(ctx).Where("link_id = ?", l.ID).Delete(&LinkTag{}).Error; err != nil {
			return dbErr(err, "clear link tags", "", "")
		}
		return tx.setLinkTags(ctx, l.ID, *tagIDs, now)
	})
	return db.linkConflict(ctx, l, err, "update link")
}

// setLinkWebhooks replaces the link's rows in webhook_links with
// l.WebhookIDs when they are set (Dub's deleteMany + createMany on
// LinkWebhook); nil leaves them.
func (db *DB) setLinkWebhooks(ctx context.Context, l *Link) error {
	if l.WebhookIDs == nil {
		return nil
	}
	if err := db.WithContext(ctx).Exec("DELETE FROM webhook_links WHERE link_id = ?", l.ID).Error; err != nil {
		return dbErr(err, "clear link webhooks", "", "")
	}
	for _, id := range l.WebhookIDs {
		if err := db.WithContext(ctx).Exec("INSERT INTO webhook_links (webhook_id, link_id) VALUES (?, ?)", id, l.ID).Error; err != nil {
			return dbErr(err, "set link webhooks", "", "")
		}
	}
	return nil
}

// UnknownWebhookIDs returns the ids among ids that name no webhook of the
// workspace, in the given order.
func (db *DB) UnknownWebhookIDs(ctx context.Context, workspaceID string, ids []string) ([]string, error) {
	var found []string
	if err := db.WithContext(ctx).Table("webhooks").Where("workspace_id = ? AND id IN ?", workspaceID, ids).
		Pluck("id", &found).Error; err != nil {
		return nil, dbErr(err, "check webhook ids", "", "")
	}
	var out []string
	for _, id := range ids {
		if !slices.Contains(found, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// setLinkTags attaches tags in the given order, each a millisecond after the
// previous so the association order is kept (spec/links.md §2.1).
func (db *DB) setLinkTags(ctx context.Context, linkID string, tagIDs []string, now time.Time) error {
	if len(tagIDs) == 0 {
		return nil
	}
	rows := make([]LinkTag, len(tagIDs))
	for i, id := range tagIDs {
		rows[i] = LinkTag{LinkID: linkID, TagID: id, CreatedAt: now.Add(time.Duration(i) * time.Millisecond)}
	}
	return dbErr(db.WithContext(ctx).Create(&rows).Error, "set link tags", "", "")
}

// DeleteLink removes one of the workspace's links (its tags go with it).
func (db *DB) DeleteLink(ctx context.Context, workspaceID, id string) error {
	res := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&Link{})
	if res.Error != nil {
		return dbErr(res.Error, "delete link", "", "")
	}
	if res.RowsAffected == 0 {
		return apierr.New(apierr.NotFound, "Link not found.")
	}
	return nil
}

// LinksByRefs loads the workspace's links whose id is in ids or whose
// externalId is in externalIDs (compared case-insensitively).
func (db *DB) LinksByRefs(ctx context.Context, workspaceID string, ids, externalIDs []string) ([]Link, error) {
	var out []Link
	if len(ids) == 0 && len(externalIDs) == 0 {
		return out, nil
	}
	lower := make([]string, len(externalIDs))
	for i, e := range externalIDs {
		lower[i] = strings.ToLower(e)
	}
	q := db.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	switch {
	case len(ids) > 0 && len(lower) > 0:
		q = q.Where("id IN ? OR lower(external_id) IN ?", ids, lower)
	case len(ids) > 0:
		q = q.Where("id IN ?", ids)
	default:
		q = q.Where("lower(external_id) IN ?", lower)
	}
	err := q.Order("created_at, id").Find(&out).Error
	return out, dbErr(err, "get links", "", "")
}

// DeleteLinks removes the given links of the workspace, root links excepted,
// and returns them (for cache invalidation).
func (db *DB) DeleteLinks(ctx context.Context, workspaceID string, ids []string) ([]Link, error) {
	var gone []Link
	if len(ids) == 0 {
		return gone, nil
	}
	err := db.Tx(ctx, func(tx *DB) error {
		if err := tx.WithContext(ctx).Where("workspace_id = ? AND id IN ? AND key <> ?", workspaceID, ids, RootKey).Find(&gone).Error; err != nil {
			return err
		}
		if len(gone) == 0 {
			return nil
		}
		del := make([]string, len(gone))
		for i, l := range gone {
			del[i] = l.ID
		}
		return tx.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, del).Delete(&Link{}).Error
	})
	return gone, dbErr(err, "delete links", "", "")
}

// LoadTags fills each link's Tags, ordered by association time.
func (db *DB) LoadTags(ctx context.Context, links []*Link) error {
	if len(links) == 0 {
		return nil
	}
	byID := make(map[string]*Link, len(links))
	ids := make([]string, 0, len(links))
	for _, l := range links {
		l.Tags = []Tag{}
		byID[l.ID] = l
		ids = append(ids, l.ID)
	}
	type row struct {
		LinkID string
		Tag
	}
	var rows []row
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		var part []row
		err := db.WithContext(ctx).Table("link_tags").
			Select("link_tags.link_id, tags.*").
			Joins("JOIN tags ON tags.id = link_tags.tag_id").
			Where("link_tags.link_id IN ?", ids[start:end]).
			Order("link_tags.created_at, tags.id").Scan(&part).Error
		if err != nil {
			return dbErr(err, "load link tags", "", "")
		}
		rows = append(rows, part...)
	}
	for _, r := range rows {
		if l := byID[r.LinkID]; l != nil {
			l.Tags = append(l.Tags, r.Tag)
		}
	}
	return nil
}

// LinkFilter selects a workspace's links (spec/links.md §5.2).
type LinkFilter struct {
	Domain     string   // exact (lower-case) domain
	TagIDs     []string // any of
	TagNames   []string // any of, case-insensitive; used when TagIDs is empty
	FolderID   *string  // nil: see AllFolders; "" means no folder
	AllFolders bool     // with FolderID nil: links in any folder; else only links in no folder
	// VisibleTo, with AllFolders, narrows "any folder" to no folder plus the
	// folders that user (a non-owner member) can see (spec/parity.md §13.3).
	VisibleTo    string
	Search       string // substring of shortLink or url, case-insensitive
	UserID       string
	TenantID     string
	ShowArchived bool
	WithTags     bool
	LinkIDs      []string
}

// LinkSort is the list order (always descending).
type LinkSort string

// The sorts.
const (
	SortCreatedAt   LinkSort = "createdAt"
	SortClicks      LinkSort = "clicks"
	SortSaleAmount  LinkSort = "saleAmount"
	SortLastClicked LinkSort = "lastClicked"
)

// LinkPage is offset or cursor paging.
type LinkPage struct {
	Sort          LinkSort
	Offset, Limit int
	StartingAfter string // cursor: ids < this
	EndingBefore  string // cursor: ids > this (closest first, returned desc)
}

func (db *DB) filterLinks(ctx context.Context, workspaceID string, f LinkFilter, tagFilter bool) *DB {
	q := db.WithContext(ctx).Model(&Link{}).Where("links.workspace_id = ?", workspaceID)
	if f.Domain != "" {
		q = q.Where("links.domain = ?", strings.ToLower(f.Domain))
	}
	if tagFilter {
		switch {
		case len(f.TagIDs) > 0:
			q = q.Where("EXISTS (SELECT 1 FROM link_tags lt WHERE lt.link_id = links.id AND lt.tag_id IN ?)", f.TagIDs)
		case len(f.TagNames) > 0:
			lower := make([]string, len(f.TagNames))
			for i, n := range f.TagNames {
				lower[i] = strings.ToLower(n)
			}
			q = q.Where("EXISTS (SELECT 1 FROM link_tags lt JOIN tags t ON t.id = lt.tag_id WHERE lt.link_id = links.id AND lower(t.name) IN ?)", lower)
		}
		if f.WithTags {
			q = q.Where("EXISTS (SELECT 1 FROM link_tags lt WHERE lt.link_id = links.id)")
		}
	}
	switch {
	case f.FolderID != nil && *f.FolderID == "":
		q = q.Where("links.folder_id IS NULL")
	case f.FolderID != nil:
		q = q.Where("links.folder_id = ?", *f.FolderID)
	case !f.AllFolders:
		q = q.Where("links.folder_id IS NULL")
	case f.VisibleTo != "":
		q = q.Where("(links.folder_id IS NULL OR links.folder_id IN ("+visibleFolderIDsSQL+"))", workspaceID, f.VisibleTo, f.VisibleTo)
	}
	if f.Search != "" {
		pat := "%" + likeEscape(strings.ToLower(f.Search)) + "%"
		q = q.Where(`(lower(links.url) LIKE ? ESCAPE '\' OR lower('https://' || links.domain || '/' || links.key) LIKE ? ESCAPE '\')`, pat, pat)
	}
	if f.UserID != "" {
		q = q.Where("links.user_id = ?", f.UserID)
	}
	if f.TenantID != "" {
		q = q.Where("links.tenant_id = ?", f.TenantID)
	}
	if !f.ShowArchived {
		q = q.Where("links.archived = ?", false)
	}
	if len(f.LinkIDs) > 0 {
		q = q.Where("links.id IN ?", f.LinkIDs)
	}
	return &DB{DB: q, Dialect: db.Dialect}
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// ListLinks returns one page of the workspace's links with their tags.
func (db *DB) ListLinks(ctx context.Context, workspaceID string, f LinkFilter, p LinkPage) ([]*Link, error) {
	q := db.filterLinks(ctx, workspaceID, f, true).DB
	reverse := false
	switch {
	case p.StartingAfter != "":
		q = q.Where("links.id < ?", p.StartingAfter).Order("links.id DESC")
	case p.EndingBefore != "":
		q = q.Where("links.id > ?", p.EndingBefore).Order("links.id ASC")
		reverse = true
	default:
		switch p.Sort {
		case SortClicks:
			q = q.Order("links.clicks DESC")
		case SortSaleAmount:
			q = q.Order("links.sale_amount DESC")
		case SortLastClicked:
			q = q.Order("links.last_clicked DESC NULLS LAST")
		}
		q = q.Order("links.created_at DESC").Order("links.id DESC").Offset(p.Offset)
	}
	var rows []*Link
	if err := q.Limit(p.Limit).Find(&rows).Error; err != nil {
		return nil, dbErr(err, "list links", "", "")
	}
	if reverse {
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
	}
	return rows, db.LoadTags(ctx, rows)
}

// LinkGroupBy is a /links/count grouping.
type LinkGroupBy string

// The groupings.
const (
	GroupByDomain   LinkGroupBy = "domain"
	GroupByTagID    LinkGroupBy = "tagId"
	GroupByUserID   LinkGroupBy = "userId"
	GroupByFolderID LinkGroupBy = "folderId"
)

// LinkGroupCount is one group of a grouped count.
type LinkGroupCount struct {
	Value *string
	Count int64
}

// CountLinks counts the workspace's links matching f.
func (db *DB) CountLinks(ctx context.Context, workspaceID string, f LinkFilter) (int64, error) {
	var n int64
	err := db.filterLinks(ctx, workspaceID, f, true).Count(&n).Error
	return n, dbErr(err, "count links", "", "")
}

// CountLinksBy counts the workspace's links matching f grouped by g, largest
// group first. Grouping by tag counts link-tag pairs and ignores tag filters.
func (db *DB) CountLinksBy(ctx context.Context, workspaceID string, f LinkFilter, g LinkGroupBy) ([]LinkGroupCount, error) {
	var col string
	q := db.filterLinks(ctx, workspaceID, f, g != GroupByTagID).DB
	switch g {
	case GroupByDomain:
		col = "links.domain"
	case GroupByUserID:
		col = "links.user_id"
	case GroupByFolderID:
		col = "links.folder_id"
	case GroupByTagID:
		col = "link_tags.tag_id"
		q = q.Joins("JOIN link_tags ON link_tags.link_id = links.id")
	default:
		return nil, fmt.Errorf("count links: unknown grouping %q", g)
	}
	var rows []struct {
		Value *string
		Count int64
	}
	err := q.Select(col + " AS value, COUNT(*) AS count").Group(col).Order("count DESC").Order(col).Scan(&rows).Error
	if err != nil {
		return nil, dbErr(err, "count links", "", "")
	}
	out := make([]LinkGroupCount, len(rows))
	for i, r := range rows {
		out[i] = LinkGroupCount(r)
	}
	return out, nil
}
