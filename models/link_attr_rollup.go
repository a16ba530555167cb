package models

import (
	"context"
	"fmt"
	"sort"
)

// Link-attribute rollups (migration 01650, issue 20): the per-link rows
// (DimLink and its "@day" and "@week" rollups) summed per CURRENT attribute
// of the link, so the attribute groupings read one row per attribute value
// per block instead of one per link. The dimension names below carry the
// same grain suffixes as the per-link rows they come from. The ingest hooks
// (AddEventAggregates) and relink demo's bulk loader write them with the
// per-link rows; database triggers move a link's rows between values when
// its folder, tags, partner, program, group or domain change or it is
// deleted, in the transaction that changes it.
const (
	DimLinkDomain  = "link_domain"  // links.domain
	DimLinkFolder  = "link_folder"  // links.folder_id (set)
	DimLinkTag     = "link_tag"     // each link_tags.tag_id
	DimLinkPartner = "link_partner" // links.partner_id (set)
	DimLinkGroup   = "link_group"   // the group_id of the link's program enrollment
)

// LinkAttr is one attribute value of a link: a link-attribute dimension and
// its value.
type LinkAttr struct{ Dim, Value string }

// LinkAttrs maps link ids to their attribute values.
type LinkAttrs map[string][]LinkAttr

// LoadLinkAttrs reads the current attributes of the existing links among
// ids. With lock (PostgreSQL) it first takes a share lock on the links, in
// id order, so that a concurrent attribute change (whose triggers lock the
// link row for update) is either committed before the attributes are read or
// waits for this transaction and then moves the rows it wrote; the reads run
// as statements after the lock, so they see the committed change.
func (db *DB) LoadLinkAttrs(ctx context.Context, ids []string, lock bool) (LinkAttrs, error) {
	out := LinkAttrs{}
	if len(ids) == 0 {
		return out, nil
	}
	ids = append([]string(nil), ids...)
	sort.Strings(ids)
	pool := db.Statement.ConnPool
	var in string
	var args []any
	if db.Dialect == "postgres" {
		in, args = "= ANY($1)", []any{ids}
		if lock {
			if _, err := pool.ExecContext(ctx, "SELECT 1 FROM links WHERE id = ANY($1) ORDER BY id FOR SHARE", ids); err != nil {
				return nil, fmt.Errorf("lock links: %w", err)
			}
		}
	} else {
		in = "IN (" + sqliteList(ids) + ")"
	}
	rows, err := pool.QueryContext(ctx, "SELECT l.id, l.domain, COALESCE(l.folder_id, ''), COALESCE(l.partner_id, ''), "+
		"COALESCE((SELECT pe.group_id FROM program_enrollments pe WHERE pe.program_id = l.program_id AND pe.partner_id = l.partner_id), '') "+
		"FROM links l WHERE l.id "+in, args...)
	if err != nil {
		return nil, fmt.Errorf("load link attributes: %w", err)
	}
	for rows.Next() {
		var id, domain, folder, partner, group string
		if err := rows.Scan(&id, &domain, &folder, &partner, &group); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan link attributes: %w", err)
		}
		as := []LinkAttr{{DimLinkDomain, domain}}
		for _, a := range []LinkAttr{{DimLinkFolder, folder}, {DimLinkPartner, partner}, {DimLinkGroup, group}} {
			if a.Value != "" {
				as = append(as, a)
			}
		}
		out[id] = as
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load link attributes: %w", err)
	}
	rows, err = pool.QueryContext(ctx, "SELECT link_id, tag_id FROM link_tags WHERE link_id "+in+" ORDER BY link_id, tag_id", args...)
	if err != nil {
		return nil, fmt.Errorf("load link tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return nil, fmt.Errorf("scan link tags: %w", err)
		}
		if as, ok := out[id]; ok {
			out[id] = append(as, LinkAttr{DimLinkTag, tag})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load link tags: %w", err)
	}
	return out, nil
}

// LoadLinkAttrsOutsideTx is LoadLinkAttrs on the database's pool, without
// locks (bulk loads, which do not edit links).
func (db *DB) LoadLinkAttrsOutsideTx(ctx context.Context, ids []string) (LinkAttrs, error) {
	var out LinkAttrs
	err := db.Tx(ctx, func(tx *DB) error {
		var err error
		out, err = tx.LoadLinkAttrs(ctx, ids, false)
		return err
	})
	return out, err
}

// linkRowSuffix returns the grain suffix of a per-link row's dimension
// ("", "@day", "@week") and whether dim is one.
func linkRowSuffix(dim string) (string, bool) {
	switch dim {
	case DimLink:
		return "", true
	case DimLink + DaySuffix:
		return DaySuffix, true
	case DimLink + WeekSuffix:
		return WeekSuffix, true
	}
	return "", false
}

// LinkIDsOf returns the distinct link ids of the per-link rows among rows.
func LinkIDsOf(rows []EventAggregate) []string {
	seen := map[string]bool{}
	var ids []string
	for i := range rows {
		if _, ok := linkRowSuffix(rows[i].Dim); ok && !seen[rows[i].Value] {
			seen[rows[i].Value] = true
			ids = append(ids, rows[i].Value)
		}
	}
	return ids
}

// LinkAttrRows sums the per-link rows among rows into link-attribute rows
// through attrs (links missing from attrs, deleted ones, add nothing).
func LinkAttrRows(rows []EventAggregate, attrs LinkAttrs) []EventAggregate {
	sums := map[aggKey]*EventAggregate{}
	for i := range rows {
		r := &rows[i]
		suffix, ok := linkRowSuffix(r.Dim)
		if !ok {
			continue
		}
		for _, a := range attrs[r.Value] {
			dim := a.Dim + suffix
			k := aggKey{r.WorkspaceID, r.Event, dim, a.Value, r.Hour.Unix()}
			s := sums[k]
			if s == nil {
				s = &EventAggregate{WorkspaceID: r.WorkspaceID, Event: r.Event, Dim: dim, Hour: r.Hour, Value: a.Value}
				sums[k] = s
			}
			s.Count += r.Count
			s.Amount += r.Amount
		}
	}
	res := make([]EventAggregate, 0, len(sums))
	for _, s := range sums {
		res = append(res, *s)
	}
	return res
}

// withLinkAttrRows appends the link-attribute rows of rows' per-link rows,
// reading the links' current attributes under a share lock, and returns
// everything sorted by primary key.
func (db *DB) withLinkAttrRows(ctx context.Context, rows []EventAggregate) ([]EventAggregate, error) {
	ids := LinkIDsOf(rows)
	if len(ids) == 0 {
		sortAggregates(rows) // the revision rows AddEventAggregates appended
		return rows, nil
	}
	attrs, err := db.LoadLinkAttrs(ctx, ids, true)
	if err != nil {
		return nil, err
	}
	out := WithLinkAttrRows(rows, attrs)
	sortAggregates(out)
	return out, nil
}

// WithLinkAttrRows returns rows followed by their link-attribute rows
// through attrs (not sorted: the bulk loader does not need it).
func WithLinkAttrRows(rows []EventAggregate, attrs LinkAttrs) []EventAggregate {
	extra := LinkAttrRows(rows, attrs)
	if len(extra) == 0 {
		return rows
	}
	out := make([]EventAggregate, 0, len(rows)+len(extra))
	return append(append(out, rows...), extra...)
}

// LinkAttrRollupSQL is the set-based form of LinkAttrRows over the stored
// per-link rows (migration 01650's backfill; a rebuild of one workspace: cond
// is then "a.workspace_id = ? AND "), one statement per attribute.
func LinkAttrRollupSQL(cond string) []string {
	const linkDims = "('link', 'link@day', 'link@week')"
	const ins = "INSERT INTO event_aggregates (workspace_id, event, dim, hour, value, count, amount) "
	var out []string
	for _, a := range []struct{ dim, expr string }{{DimLinkDomain, "l.domain"}, {DimLinkFolder, "l.folder_id"}, {DimLinkPartner, "l.partner_id"}} {
		out = append(out, ins+"SELECT a.workspace_id, a.event, '"+a.dim+"' || substr(a.dim, 5), a.hour, "+a.expr+", SUM(a.count), SUM(a.amount) "+
			"FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id "+
			"WHERE "+cond+"a.dim IN "+linkDims+" AND "+a.expr+" IS NOT NULL AND "+a.expr+" <> '' "+
			"GROUP BY a.workspace_id, a.event, a.dim, a.hour, "+a.expr)
	}
	out = append(out, ins+"SELECT a.workspace_id, a.event, '"+DimLinkTag+"' || substr(a.dim, 5), a.hour, lt.tag_id, SUM(a.count), SUM(a.amount) "+
		"FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id JOIN link_tags lt ON lt.link_id = l.id "+
		"WHERE "+cond+"a.dim IN "+linkDims+" GROUP BY a.workspace_id, a.event, a.dim, a.hour, lt.tag_id")
	out = append(out, ins+"SELECT a.workspace_id, a.event, '"+DimLinkGroup+"' || substr(a.dim, 5), a.hour, pe.group_id, SUM(a.count), SUM(a.amount) "+
		"FROM event_aggregates a JOIN links l ON l.id = a.value AND l.workspace_id = a.workspace_id "+
		"JOIN program_enrollments pe ON pe.program_id = l.program_id AND pe.partner_id = l.partner_id "+
		"WHERE "+cond+"a.dim IN "+linkDims+" AND pe.group_id IS NOT NULL AND pe.group_id <> '' "+
		"GROUP BY a.workspace_id, a.event, a.dim, a.hour, pe.group_id")
	return out
}
