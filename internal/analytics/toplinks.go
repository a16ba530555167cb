package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// linkCache keeps the links top_links has shown, per workspace, while the
// workspace's link version (table link_versions, migration 01700: bumped
// by triggers when a link's shown columns change or it is deleted) stays
// the same. Loading 5,000 links by id cost 20–30 ms on SQLite at 50,000
// links, more than ranking them; checking the version is one key lookup.
type linkCache struct {
	mu    sync.Mutex
	ws    map[string]*cachedLinks
	total int
}

type cachedLinks struct {
	version int64
	links   map[string]TopLink
}

// maxCachedLinks bounds the cache: past it, it starts over.
const maxCachedLinks = 500_000

// topLinks returns the workspace's existing links among ids (copies: the
// caller sets their Short).
func (e *SQLEngine) topLinks(ctx context.Context, wsID string, ids []string) (map[string]*TopLink, error) {
	out := make(map[string]*TopLink, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var version int64
	if err := e.DB.WithContext(ctx).Raw("SELECT COALESCE(MAX(version), 0) FROM link_versions WHERE workspace_id = ?", wsID).Scan(&version).Error; err != nil {
		return nil, fmt.Errorf("load top links: %w", err)
	}
	c := &e.links
	c.mu.Lock()
	ws := c.ws[wsID]
	if ws == nil || ws.version != version {
		if c.ws == nil {
			c.ws = map[string]*cachedLinks{}
		}
		if ws != nil {
			c.total -= len(ws.links)
		}
		ws = &cachedLinks{version: version, links: map[string]TopLink{}}
		c.ws[wsID] = ws
	}
	var missing []string
	for _, id := range ids {
		if l, ok := ws.links[id]; ok {
			out[id] = &l
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	loaded, err := e.loadTopLinks(ctx, wsID, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total+len(loaded) > maxCachedLinks {
		c.ws, c.total = map[string]*cachedLinks{}, 0
	}
	// Loaded after the version was read: at least as new as it. A change
	// since bumps the version, and the next reader starts over.
	keep := c.ws[wsID]
	if keep == nil {
		keep = &cachedLinks{version: version, links: map[string]TopLink{}}
		c.ws[wsID] = keep
	}
	for _, l := range loaded {
		if keep.version == version {
			if _, had := keep.links[l.ID]; !had {
				keep.links[l.ID] = *l
				c.total++
			}
		}
		out[l.ID] = l
	}
	return out, nil
}

// loadTopLinks reads the workspace's links among ids.
func (e *SQLEngine) loadTopLinks(ctx context.Context, wsID string, ids []string) ([]*TopLink, error) {
	// At most RowLimit ids (the ranking is cut there): by id, never a scan
	// of a workspace's tens of thousands of links. The ids travel as one
	// parameter (an array, a JSON list on SQLite): binding 5,000 took the
	// drivers longer than the lookups. In id order, so the index is walked
	// forwards.
	ids = slices.Clone(ids)
	slices.Sort(ids)
	where := "workspace_id = $1 AND id = ANY($2)"
	var list any = ids
	if e.DB.Dialect == "sqlite" {
		j, err := json.Marshal(ids)
		if err != nil {
			return nil, fmt.Errorf("load top links: %w", err)
		}
		where, list = "workspace_id = ? AND id IN (SELECT value FROM json_each(?))", string(j)
	}
	// Scanned by hand: reflection over a thousand links cost more than the query.
	rows, err := e.DB.Statement.ConnPool.QueryContext(ctx, "SELECT id, domain, key, url, title, comments, folder_id, partner_id, created_at FROM links WHERE "+where, wsID, list)
	if err != nil {
		return nil, fmt.Errorf("load top links: %w", err)
	}
	defer rows.Close()
	var out []*TopLink
	for rows.Next() {
		l := &TopLink{}
		if err := rows.Scan(&l.ID, &l.Domain, &l.Key, &l.URL, &l.Title, &l.Comments, &l.FolderID, &l.PartnerID, &l.CreatedAt); err != nil {
			return nil, fmt.Errorf("load top links: %w", err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load top links: %w", err)
	}
	return out, nil
}
