package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// linkAttributes answers the group-B groupings: per-link counts mapped to
// the current attributes of existing links (spec 4.5).
func (e *Engine) linkAttributes(ctx context.Context, s *scope) ([]Row, error) {
	if s.q.GroupBy == TopPartnerTags {
		return []Row{}, nil // partner tags are not modelled: no link has any
	}
	perLink := map[kind]map[string]counts{}
	var ids []string
	seen := map[string]bool{}
	ms, err := e.measureAll(ctx, s, keySpec{kind: keyLink})
	if err != nil {
		return nil, err
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
		return nil, err
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
	keys, cs := combine(s.q.Event, per, true)
	rows := make([]Row, 0, len(keys))
	for _, key := range keys {
		r, ok := entities[key]
		if !ok {
			continue // the folder, tag, partner or group is gone
		}
		rows = append(rows, r().set(*cs[key]))
	}
	return rows, nil
}

// linkAttrKeys maps each existing link among ids to its attribute keys for
// the grouping, and each key to its row builder.
func (e *Engine) linkAttrKeys(ctx context.Context, s *scope, ids []string) (map[string][]string, map[string]func() Row, error) {
	attrs := map[string][]string{}
	entities := map[string]func() Row{}
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
	switch s.q.GroupBy {
	case TopDomains:
		for _, k := range keys {
			entities[k] = func() Row { return Row{"domain": k} }
		}
	case TopFolders:
		var fs []struct {
			ID, Name    string
			AccessLevel *string
		}
		if err := db.Raw("SELECT id, name, access_level FROM folders WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&fs).Error; err != nil {
			return nil, nil, fmt.Errorf("load folders: %w", err)
		}
		for _, f := range fs {
			entities[f.ID] = func() Row {
				return Row{"folderId": f.ID, "folder": map[string]any{"id": f.ID, "name": f.Name, "accessLevel": f.AccessLevel}}
			}
		}
	case TopLinkTags:
		var ts []struct{ ID, Name, Color string }
		if err := db.Raw("SELECT id, name, color FROM tags WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&ts).Error; err != nil {
			return nil, nil, fmt.Errorf("load tags: %w", err)
		}
		for _, t := range ts {
			entities[t.ID] = func() Row {
				return Row{"tagId": t.ID, "tag": map[string]any{"id": t.ID, "name": t.Name, "color": t.Color}}
			}
		}
	case TopPartners:
		var ps []struct {
			ID, Name              string
			Email, Image, Country *string
			PayoutsEnabledAt      *time.Time
		}
		if err := db.Raw("SELECT id, name, email, image, country, payouts_enabled_at FROM partners WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&ps).Error; err != nil {
			return nil, nil, fmt.Errorf("load partners: %w", err)
		}
		for _, p := range ps {
			var enabled any
			if p.PayoutsEnabledAt != nil {
				enabled = isoMillis(*p.PayoutsEnabledAt)
			}
			entities[p.ID] = func() Row {
				return Row{"partnerId": p.ID, "partner": map[string]any{"id": p.ID, "name": p.Name, "email": p.Email,
					"image": p.Image, "payoutsEnabledAt": enabled, "country": p.Country}}
			}
		}
	case TopGroups:
		var gs []struct{ ID, Name, Slug string }
		if err := db.Raw("SELECT id, name, slug FROM partner_groups WHERE workspace_id = ? AND id IN ?", s.wsID, keys).Scan(&gs).Error; err != nil {
			return nil, nil, fmt.Errorf("load partner groups: %w", err)
		}
		for _, g := range gs {
			entities[g.ID] = func() Row {
				return Row{"groupId": g.ID, "group": map[string]any{"id": g.ID, "name": g.Name, "slug": g.Slug, "color": nil}}
			}
		}
	}
	return attrs, entities, nil
}
