package analytics

import (
	"context"
	"fmt"
	"strings"
)

// linkAttributes answers the group-B groupings: per-link counts mapped to
// the current attributes of existing links (spec 4.5).
func (e *SQLEngine) linkAttributes(ctx context.Context, s *scope) ([]Group, error) {
	if s.q.GroupBy == TopPartnerTags {
		return []Group{}, nil // partner tags are not modelled: no link has any
	}
	per, done, err := e.rankAll(ctx, s)
	if err != nil {
		return nil, err
	}
	var entities map[string]Group
	if done {
		entities, err = e.rankedEntities(ctx, s, per)
	} else {
		per, entities, err = e.foldLinkAttributes(ctx, s)
	}
	if err != nil {
		return nil, err
	}
	keys, cs := combine(s.q.Event, per, true)
	rows := make([]Group, 0, len(keys))
	for _, key := range keys {
		g, ok := entities[key]
		if !ok {
			continue // the folder, tag, partner or group is gone
		}
		g.Key, g.Counters = key, *cs[key]
		rows = append(rows, g)
	}
	return rows, nil
}

// rankedEntities loads the entities of the keys the database ranked.
func (e *SQLEngine) rankedEntities(ctx context.Context, s *scope, per map[kind]ranked) (map[string]Group, error) {
	entities := map[string]Group{}
	seen := map[string]bool{}
	var keys []string
	for _, r := range per {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return entities, nil
	}
	return entities, e.loadEntities(ctx, s, keys, entities)
}

// foldLinkAttributes sums per link and folds the links into their current
// attributes in Go (link filters or event filters: the general path).
func (e *SQLEngine) foldLinkAttributes(ctx context.Context, s *scope) (map[kind]ranked, map[string]Group, error) {
	perLink := map[kind]map[string]counts{}
	var ids []string
	seen := map[string]bool{}
	ms, err := e.measureAll(ctx, s, keySpec{kind: keyLink})
	if err != nil {
		return nil, nil, err
	}
	for i, k := range kindsOf(s.q.Event) {
		m := ms[i]
		perLink[k] = m
		for id := range m {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	attrs, entities, err := e.linkAttrKeys(ctx, s, ids)
	if err != nil {
		return nil, nil, err
	}
	per := map[kind]ranked{}
	for k, m := range perLink {
		folded := map[string]counts{}
		for id, v := range m {
			for _, a := range attrs[id] {
				o := folded[a]
				o.n += v.n
				o.amount += v.amount
				folded[a] = o
			}
		}
		per[k] = rank(k, folded)
	}
	return per, entities, nil
}

// linkAttrKeys maps each existing link among ids to its attribute keys for
// the grouping, and each key to its row's entity.
func (e *SQLEngine) linkAttrKeys(ctx context.Context, s *scope, ids []string) (map[string][]string, map[string]Group, error) {
	attrs := map[string][]string{}
	entities := map[string]Group{}
	if len(ids) == 0 {
		return attrs, entities, nil
	}
	db := e.DB.WithContext(ctx)
	type pair struct{ LinkID, Key string }
	var pairs []pair
	var q string
	switch s.q.GroupBy {
	case TopDomains:
		q = "SELECT id AS link_id, domain AS key FROM links WHERE workspace_id = ? AND id IN ?"
	case TopFolders:
		q = "SELECT id AS link_id, folder_id AS key FROM links WHERE workspace_id = ? AND id IN ? AND folder_id IS NOT NULL AND folder_id <> ''"
	case TopLinkTags:
		q = "SELECT lt.link_id, lt.tag_id AS key FROM link_tags lt JOIN links l ON l.id = lt.link_id WHERE l.workspace_id = ? AND lt.link_id IN ?"
	case TopPartners:
		q = "SELECT id AS link_id, partner_id AS key FROM links WHERE workspace_id = ? AND id IN ? AND partner_id IS NOT NULL AND partner_id <> ''"
	case TopGroups:
		q = "SELECT l.id AS link_id, pe.group_id AS key FROM links l JOIN program_enrollments pe ON pe.program_id = l.program_id AND pe.partner_id = l.partner_id WHERE l.workspace_id = ? AND l.id IN ? AND pe.group_id IS NOT NULL"
	case TopPartnerTags:
		return attrs, entities, nil // partner tags are not modelled: no rows
	}
	if len(ids) > manyLinks {
		// Many links: one scan of the workspace's links beats a long IN list.
		var all []pair
		wide := strings.Replace(strings.Replace(q, " AND lt.link_id IN ?", "", 1), " AND l.id IN ?", "", 1)
		wide = strings.Replace(wide, " AND id IN ?", "", 1)
		if err := db.Raw(wide, s.wsID).Scan(&all).Error; err != nil {
			return nil, nil, fmt.Errorf("map links to %s: %w", s.q.GroupBy, err)
		}
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			want[id] = true
		}
		for _, p := range all {
			if want[p.LinkID] {
				pairs = append(pairs, p)
			}
		}
	} else if err := db.Raw(q, s.wsID, ids).Scan(&pairs).Error; err != nil {
		return nil, nil, fmt.Errorf("map links to %s: %w", s.q.GroupBy, err)
	}
	keySet := map[string]bool{}
	var keys []string
	for _, p := range pairs {
		attrs[p.LinkID] = append(attrs[p.LinkID], p.Key)
		if !keySet[p.Key] {
			keySet[p.Key] = true
			keys = append(keys, p.Key)
		}
	}
	if len(keys) == 0 {
		return attrs, entities, nil
	}
	if err := e.loadEntities(ctx, s, keys, entities); err != nil {
		return nil, nil, err
	}
	return attrs, entities, nil
}

// loadEntities fills entities with the grouping's existing entities among
// keys (domains are their own entity).
func (e *SQLEngine) loadEntities(ctx context.Context, s *scope, keys []string, entities map[string]Group) error {
	db := e.DB.WithContext(ctx)
	switch s.q.GroupBy {
	case TopDomains:
		for _, k := range keys {
			entities[k] = Group{}
		}
	case TopFolders:
		var fs []Folder
		if err := db.Raw("SELECT id, name, access_level FROM folders WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&fs).Error; err != nil {
			return fmt.Errorf("load folders: %w", err)
		}
		for i := range fs {
			entities[fs[i].ID] = Group{Folder: &fs[i]}
		}
	case TopLinkTags:
		var ts []Tag
		if err := db.Raw("SELECT id, name, color FROM tags WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&ts).Error; err != nil {
			return fmt.Errorf("load tags: %w", err)
		}
		for i := range ts {
			entities[ts[i].ID] = Group{Tag: &ts[i]}
		}
	case TopPartners:
		var ps []Partner
		if err := db.Raw("SELECT id, name, email, image, country, payouts_enabled_at FROM partners WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&ps).Error; err != nil {
			return fmt.Errorf("load partners: %w", err)
		}
		for i := range ps {
			entities[ps[i].ID] = Group{Partner: &ps[i]}
		}
	case TopGroups:
		var gs []PartnerGroup
		if err := db.Raw("SELECT id, name, slug FROM partner_groups WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&gs).Error; err != nil {
			return fmt.Errorf("load partner groups: %w", err)
		}
		for i := range gs {
			entities[gs[i].ID] = Group{PartnerGroup: &gs[i]}
		}
	}
	return nil
}
