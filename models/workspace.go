package models

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Plan is a workspace's billing plan; plans are ordered.
type Plan string

// The plans, lowest first.
const (
	PlanFree       Plan = "free"
	PlanPro        Plan = "pro"
	PlanBusiness   Plan = "business"
	PlanAdvanced   Plan = "advanced"
	PlanEnterprise Plan = "enterprise"
)

// Plans lists every plan in ascending order.
var Plans = []Plan{PlanFree, PlanPro, PlanBusiness, PlanAdvanced, PlanEnterprise}

// Rank orders plans; -1 for an unknown plan.
func (p Plan) Rank() int {
	for i, q := range Plans {
		if q == p {
			return i
		}
	}
	return -1
}

// AtLeast reports whether p is min or higher.
func (p Plan) AtLeast(min Plan) bool { return p.Rank() >= min.Rank() && p.Rank() >= 0 }

// ParsePlan validates a plan name.
func ParsePlan(s string) (Plan, error) {
	p := Plan(strings.ToLower(strings.TrimSpace(s)))
	if p.Rank() < 0 {
		names := make([]string, len(Plans))
		for i, q := range Plans {
			names[i] = string(q)
		}
		return "", fmt.Errorf("unknown plan %q (want one of %s)", s, strings.Join(names, ", "))
	}
	return p, nil
}

// Workspace is the tenant every other record belongs to.
type Workspace struct {
	ID   string `gorm:"primaryKey"` // cuid; exposed as "ws_"+ID
	Name string
	Slug string
	Plan Plan
	// EmbedAllowedHostnames lists the hostnames allowed to frame the embed
	// dashboard, newline-separated (see EmbedHostnames).
	EmbedAllowedHostnames string
	// PublishableKey (dub_pk_…) authenticates the client-side conversion
	// endpoints; nil until generated (RotatePublishableKey).
	PublishableKey *string
	// KeepIPs: clicks keep the visitor's IP address (never for EU
	// visitors); off, the address is used to locate the click and dropped.
	KeepIPs bool `gorm:"column:keep_ips"`
	// EventRetentionDays: raw click events older than this are deleted by
	// the retention job (0: kept forever); aggregates stay.
	EventRetentionDays int `gorm:"column:event_retention_days"`
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// AllowsHost reports whether a page on host may use the workspace's public
// endpoints (client-side clicks and conversions, spec/partners-and-embed.md
// §1.4): yes when the allowed-hostnames list is empty, else when host
// (without "www.") is on it, or a proper subdomain of a "*.example.com"
// entry.
func (w *Workspace) AllowsHost(host string) bool {
	allowed := w.EmbedHostnames()
	if len(allowed) == 0 {
		return true
	}
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	if host == "" {
		return false
	}
	for _, a := range allowed {
		a = strings.ToLower(a)
		if rest, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+rest) {
				return true
			}
		} else if host == strings.TrimPrefix(a, "www.") {
			return true
		}
	}
	return false
}

// PublishableKeyPrefix starts every publishable key.
const PublishableKeyPrefix = "dub_pk_"

// RotatePublishableKey gives the workspace a new publishable key (the old
// one stops working) and returns it.
func (db *DB) RotatePublishableKey(ctx context.Context, w *Workspace) (string, error) {
	k := PublishableKeyPrefix + ids.Nano(24)
	err := db.WithContext(ctx).Model(w).Select("publishable_key", "updated_at").
		Updates(&Workspace{PublishableKey: &k, UpdatedAt: time.Now().UTC()}).Error
	if err != nil {
		return "", dbErr(err, "rotate publishable key", "Workspace not found.", "")
	}
	w.PublishableKey = &k
	return k, nil
}

// WorkspaceByPublishableKey finds the workspace a publishable key belongs to.
func (db *DB) WorkspaceByPublishableKey(ctx context.Context, key string) (*Workspace, error) {
	var w Workspace
	err := db.WithContext(ctx).Where("publishable_key = ?", key).Take(&w).Error
	return &w, dbErr(err, "get workspace by publishable key", "Invalid publishable key.", "")
}

// EmbedHostnames is the list of hostnames allowed to frame the embed
// dashboard ("example.com", or "*.example.com" for its subdomains).
func (w *Workspace) EmbedHostnames() []string {
	var out []string
	for _, h := range strings.Split(w.EmbedAllowedHostnames, "\n") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// hostnameRe is a DNS name, optionally with a leading "*." wildcard label.
var hostnameRe = regexp.MustCompile(`^(\*\.)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(:[0-9]{1,5})?$`)

// MaxEmbedHostnames bounds the allow-list.
const MaxEmbedHostnames = 50

// SetEmbedHostnames validates and stores hostnames (lower-cased, de-duplicated,
// blanks dropped). A scheme or path is refused: only hostnames go here.
func (w *Workspace) SetEmbedHostnames(hosts []string) error {
	seen := map[string]bool{}
	var keep []string
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" || seen[h] {
			continue
		}
		if len(h) > 253 || !hostnameRe.MatchString(h) {
			return apierr.Validation("invalid_format", "embedAllowedHostnames", fmt.Sprintf("%q is not a hostname (like app.example.com or *.example.com, without https:// or a path).", h))
		}
		seen[h] = true
		keep = append(keep, h)
	}
	if len(keep) > MaxEmbedHostnames {
		return apierr.Validation("too_big", "embedAllowedHostnames", fmt.Sprintf("At most %d hostnames.", MaxEmbedHostnames))
	}
	w.EmbedAllowedHostnames = strings.Join(keep, "\n")
	return nil
}

// PublicID is the id the API shows ("ws_" + cuid).
func (w *Workspace) PublicID() string { return ids.Workspace + w.ID }

var slugRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$`)

// Validate checks a workspace before it is stored.
func (w *Workspace) Validate() error {
	switch {
	case strings.TrimSpace(w.Name) == "":
		return apierr.Validation("too_small", "name", "Name is required.")
	case len(w.Name) > 190:
		return apierr.Validation("too_big", "name", "Too big: expected string to have <=190 characters")
	case !slugRe.MatchString(w.Slug):
		return apierr.Validation("invalid_format", "slug", "Slug must be 1-48 lowercase letters, digits or hyphens, not starting or ending with a hyphen.")
	case w.Plan.Rank() < 0:
		return apierr.Validation("invalid_value", "plan", "Invalid option: expected one of \"free\"|\"pro\"|\"business\"|\"advanced\"|\"enterprise\"")
	}
	return nil
}

// CreateWorkspace stores a new workspace; a taken slug is a 409 conflict.
func (db *DB) CreateWorkspace(ctx context.Context, name, slug string, plan Plan) (*Workspace, error) {
	w := &Workspace{ID: ids.CUID(), Name: strings.TrimSpace(name), Slug: strings.ToLower(strings.TrimSpace(slug)), Plan: plan}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	err := db.WithContext(ctx).Create(w).Error
	if err != nil {
		return nil, dbErr(err, "create workspace", "", fmt.Sprintf("The slug %q is already in use.", w.Slug))
	}
	return w, nil
}

// WorkspaceByID loads a workspace by its internal id.
func (db *DB) WorkspaceByID(ctx context.Context, id string) (*Workspace, error) {
	var w Workspace
	err := db.WithContext(ctx).Where("id = ?", id).Take(&w).Error
	return &w, dbErr(err, "get workspace", "Workspace not found.", "")
}

// WorkspaceBySlug loads a workspace by slug.
func (db *DB) WorkspaceBySlug(ctx context.Context, slug string) (*Workspace, error) {
	var w Workspace
	err := db.WithContext(ctx).Where("slug = ?", strings.ToLower(slug)).Take(&w).Error
	return &w, dbErr(err, "get workspace by slug", "Workspace not found.", "")
}

// UpdateWorkspace changes name, slug, plan or embed hostnames; a taken slug is a 409 conflict.
func (db *DB) UpdateWorkspace(ctx context.Context, w *Workspace) error {
	if err := w.Validate(); err != nil {
		return err
	}
	err := db.WithContext(ctx).Model(w).Select("name", "slug", "plan", "embed_allowed_hostnames", "updated_at").Updates(w).Error
	return dbErr(err, "update workspace", "Workspace not found.", fmt.Sprintf("The slug %q is already in use.", w.Slug))
}

// BackdateWorkspace moves workspace id's creation back to at when it is
// later (never forward); changed says whether it moved.
func (db *DB) BackdateWorkspace(ctx context.Context, id string, at time.Time) (changed bool, err error) {
	res := db.WithContext(ctx).Model(&Workspace{}).Where("id = ? AND created_at > ?", id, at.UTC()).Update("created_at", at.UTC())
	if res.Error != nil {
		return false, fmt.Errorf("backdate workspace: %w", res.Error)
	}
	return res.RowsAffected > 0, nil
}

// RequirePlan is the plan gate later endpoints call: 403 forbidden when the
// workspace's plan is below min.
func (w *Workspace) RequirePlan(min Plan) error {
	if !w.Plan.AtLeast(min) {
		return apierr.New(apierr.Forbidden, "Unauthorized: Need higher plan.")
	}
	return nil
}
