package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

// Program is a workspace's partner program (spec/partners-and-embed.md §3.1).
// Every workspace has exactly one, created with the workspace.
type Program struct {
	ID              string `gorm:"primaryKey"`
	WorkspaceID     string
	Name            string
	Slug            string
	Domain          *string // short domain of partner links
	URL             *string `gorm:"column:url"` // default destination of partner links
	DefaultGroupID  *string
	DefaultFolderID *string
	MinPayoutAmount int64
	TermsURL        *string `gorm:"column:terms_url"`
	EmbedData       *string
	Resources       JSONCol[ProgramResources] // what partners may download and copy (§6.5)
	// ApplicationsOpenAt is when the public application page opened; nil:
	// the page accepts no applications.
	ApplicationsOpenAt *time.Time
	// ApplicationsClosedAt is when the page last closed after being open;
	// nil while open or when it never opened (then the page is 404).
	ApplicationsClosedAt *time.Time
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// TableName pins the table.
func (Program) TableName() string { return "programs" }

// DefaultLink is a link every newly enrolled partner of a group gets. Links
// created from it record its ID (partnerGroupDefaultLinkId).
type DefaultLink struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	URL    string `json:"url"`
}

// AdditionalLink is a destination partners may create links to.
type AdditionalLink struct {
	Domain         string `json:"domain"`
	Path           string `json:"path,omitempty"`
	ValidationMode string `json:"validationMode"` // "domain" | "exact"
}

// Group is a partner group: rewards, holding period and link rules shared
// by its partners.
type Group struct {
	ID                string `gorm:"primaryKey"`
	WorkspaceID       string
	ProgramID         string
	Name              string
	Slug              string
	ClickRewardID     *string
	LeadRewardID      *string
	SaleRewardID      *string
	ReferralRewardID  *string
	DiscountID        *string
	HoldingPeriodDays int
	AdditionalLinks   JSONCol[[]AdditionalLink]
	MaxPartnerLinks   int
	LinkStructure     string
	DefaultLinks      JSONCol[[]DefaultLink]
	UTMTemplate       JSONCol[map[string]string] `gorm:"column:utm_template"`
	// Branding (Dub's group logo, wordmark and brandColor): BrandColor is
	// the accent of the dashboards of the group's partners, a hex colour;
	// Logo and Wordmark are http(s) image URLs.
	Logo       *string
	Wordmark   *string
	BrandColor *string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// TableName pins the table.
func (Group) TableName() string { return "partner_groups" }

// DefaultBrandColor is the dashboards' accent when the group sets none
// (Dub's embed: group.brandColor || "#2563eb").
const DefaultBrandColor = "#2563eb"

// Accent is the group's brand colour, else DefaultBrandColor.
func (g *Group) Accent() string {
	if g != nil && g.BrandColor != nil && *g.BrandColor != "" {
		return *g.BrandColor
	}
	return DefaultBrandColor
}

// validBranding checks the group's branding: a brand colour is #rgb or
// #rrggbb (it lands in a style attribute, so nothing else is taken), logo
// and wordmark are http(s) URLs.
func validBranding(g *Group) error {
	if c := g.BrandColor; c != nil && *c != "" {
		ok := (len(*c) == 4 || len(*c) == 7) && (*c)[0] == '#'
		for i := 1; ok && i < len(*c); i++ {
			ch := (*c)[i]
			ok = '0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F'
		}
		if !ok {
			return apierr.Validation("invalid_string", "brandColor", "Brand color must be a hex color such as #2563eb.")
		}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"logo", g.Logo}, {"wordmark", g.Wordmark}} {
		if f.v != nil && *f.v != "" && !strings.HasPrefix(*f.v, "https://") && !strings.HasPrefix(*f.v, "http://") {
			return apierr.Validation("invalid_string", f.name, "Must be an http(s) URL.")
		}
	}
	return nil
}

// DefaultGroupSlug is the slug of every program's first group.
const DefaultGroupSlug = "default"

// DefaultMaxPartnerLinks is how many links a partner of a new group may
// create in the embed (Dub's DEFAULT_ADDITIONAL_PARTNER_LINKS).
const DefaultMaxPartnerLinks = 10

// DefaultHoldingPeriodDays is the default group's holding period.
const DefaultHoldingPeriodDays = 30

// HoldingPeriods are the allowed holding periods in days.
var HoldingPeriods = []int{0, 7, 14, 30, 60, 90}

// Reward events and types.
const (
	EventClick    = "click"
	EventLead     = "lead"
	EventSale     = "sale"
	EventReferral = "referral"

	RewardFlat       = "flat"
	RewardPercentage = "percentage"
)

// Reward pays partners for one kind of event (spec/partners-and-embed.md §4.1).
// Percentages are kept exactly in basis points (hundredths of a percent).
type Reward struct {
	ID                   string `gorm:"primaryKey"`
	WorkspaceID          string
	ProgramID            string
	Event                string
	Type                 string
	AmountInCents        *int64
	AmountInPercentageBP *int64 `gorm:"column:amount_in_percentage_bp"`
	MaxDuration          *int   // months; nil = lifetime, 0 = first sale only
	Description          *string
	TooltipDescription   *string
	Modifiers            JSONCol[[]RewardModifier]
	SpendLimitAmount     *int64
	SpendLimitInterval   *string
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// TableName pins the table.
func (Reward) TableName() string { return "rewards" }

// RewardCondition is one condition of a modifier group.
type RewardCondition struct {
	Entity        string  `json:"entity"`
	Attribute     string  `json:"attribute"`
	Operator      string  `json:"operator"`
	Value         any     `json:"value"`
	MetadataField *string `json:"metadataField,omitempty"`
	Label         *string `json:"label,omitempty"`
}

// RewardModifier is a condition group that overrides the reward when it
// matches. MaxDuration distinguishes an absent key (nil) from JSON null
// (lifetime).
type RewardModifier struct {
	Operator           string            `json:"operator,omitempty"` // AND (default) | OR
	Conditions         []RewardCondition `json:"conditions"`
	Type               *string           `json:"type,omitempty"`
	AmountInCents      *int64            `json:"amountInCents,omitempty"`
	AmountInPercentage *float64          `json:"amountInPercentage,omitempty"`
	MaxDuration        json.RawMessage   `json:"maxDuration,omitempty"`
}

// PercentageBP converts a percentage with up to two decimals to basis points.
func PercentageBP(pct float64) int64 {
	if pct < 0 {
		return -int64(-pct*100 + 0.5)
	}
	return int64(pct*100 + 0.5)
}

// Validate checks a reward before it is stored.
func (r *Reward) Validate() error {
	switch r.Event {
	case EventClick, EventLead, EventSale, EventReferral:
	default:
		return apierr.Validation("invalid_value", "event", `Invalid option: expected one of "click"|"lead"|"sale"|"referral"`)
	}
	switch r.Type {
	case RewardFlat:
		if r.AmountInCents == nil || *r.AmountInCents < 0 || *r.AmountInCents > 99_999_999 {
			return apierr.Validation("too_small", "amountInCents", "A flat reward needs amountInCents between 0 and 99999999.")
		}
	case RewardPercentage:
		if r.Event == EventClick || r.Event == EventLead {
			return apierr.Validation("invalid_value", "type", "Click and lead rewards are always flat.")
		}
		if r.AmountInPercentageBP == nil || *r.AmountInPercentageBP < 0 || *r.AmountInPercentageBP > 10_000 {
			return apierr.Validation("too_big", "amountInPercentage", "A percentage reward needs amountInPercentage between 0 and 100.")
		}
	default:
		return apierr.Validation("invalid_value", "type", `Invalid option: expected one of "flat"|"percentage"`)
	}
	if r.MaxDuration != nil && (*r.MaxDuration < 0 || *r.MaxDuration > 600) {
		return apierr.Validation("too_big", "maxDuration", "maxDuration must be between 0 and 600 months.")
	}
	if (r.Event == EventClick || r.Event == EventLead) && (r.MaxDuration == nil || *r.MaxDuration != 0) {
		zero := 0
		r.MaxDuration = &zero
	}
	return nil
}

// CreateDefaultProgram creates the workspace's program with its default
// group. It runs inside CreateWorkspaceWithKey's transaction.
func (db *DB) CreateDefaultProgram(ctx context.Context, w *Workspace) (*Program, *Group, error) {
	p := &Program{ID: ids.New(ids.Program), WorkspaceID: w.ID, Name: w.Name, Slug: w.Slug}
	g := &Group{
		ID: ids.New(ids.Group), WorkspaceID: w.ID, ProgramID: p.ID, Name: "Default Group", Slug: DefaultGroupSlug,
		HoldingPeriodDays: DefaultHoldingPeriodDays, LinkStructure: "short", MaxPartnerLinks: DefaultMaxPartnerLinks,
	}
	p.DefaultGroupID = &g.ID
	if err := db.WithContext(ctx).Create(p).Error; err != nil {
		return nil, nil, dbErr(err, "create program", "", "This workspace already has a program.")
	}
	if err := db.WithContext(ctx).Create(g).Error; err != nil {
		return nil, nil, dbErr(err, "create default group", "", "")
	}
	return p, g, nil
}

// MsgProgramNotFound is the answer when a workspace has no program.
const MsgProgramNotFound = "Program not found"

// DefaultProgram loads the workspace's program.
func (db *DB) DefaultProgram(ctx context.Context, workspaceID string) (*Program, error) {
	var p Program
	err := db.WithContext(ctx).Where("workspace_id = ?", workspaceID).Take(&p).Error
	if err != nil {
		return nil, dbErr(err, "get program", MsgProgramNotFound, "")
	}
	return &p, nil
}

// SaveProgram updates a program's settings.
func (db *DB) SaveProgram(ctx context.Context, p *Program) error {
	err := db.WithContext(ctx).Model(p).Where("workspace_id = ?", p.WorkspaceID).
		Select("name", "domain", "url", "default_folder_id", "min_payout_amount", "terms_url", "embed_data", "resources", "updated_at").
		Updates(p).Error
	return dbErr(err, "update program", MsgProgramNotFound, "")
}

// GroupByIDOrSlug finds one of the program's groups by grp_ id or slug.
func (db *DB) GroupByIDOrSlug(ctx context.Context, workspaceID, programID, idOrSlug string) (*Group, error) {
	var g Group
	q := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ?", workspaceID, programID)
	if strings.HasPrefix(idOrSlug, ids.Group) {
		q = q.Where("id = ?", idOrSlug)
	} else {
		q = q.Where("slug = ?", idOrSlug)
	}
	if err := q.Take(&g).Error; err != nil {
		return nil, dbErr(err, "get group", fmt.Sprintf("Group %q not found.", idOrSlug), "")
	}
	return &g, nil
}

// GroupByID loads a group of the workspace.
func (db *DB) GroupByID(ctx context.Context, workspaceID, id string) (*Group, error) {
	var g Group
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&g).Error
	if err != nil {
		return nil, dbErr(err, "get group", fmt.Sprintf("Group %q not found.", id), "")
	}
	return &g, nil
}

// ListGroups lists the program's groups, oldest first.
func (db *DB) ListGroups(ctx context.Context, workspaceID, programID string) ([]Group, error) {
	var gs []Group
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ?", workspaceID, programID).
		Order("created_at, id").Find(&gs).Error
	return gs, dbErr(err, "list groups", "", "")
}

// SaveGroup updates a group's settings (not its rewards: SetGroupReward).
func (db *DB) SaveGroup(ctx context.Context, g *Group) error {
	ok := false
	for _, d := range HoldingPeriods {
		ok = ok || d == g.HoldingPeriodDays
	}
	if !ok {
		return apierr.Validation("invalid_value", "holdingPeriodDays", "Holding period must be one of 0, 7, 14, 30, 60 or 90 days.")
	}
	if err := validBranding(g); err != nil {
		return err
	}
	if g.DefaultLinks.Valid && len(g.DefaultLinks.V) > 5 {
		return apierr.Validation("too_big", "defaultLinks", "A group has at most 5 default links.")
	}
	for i := range g.DefaultLinks.V {
		if g.DefaultLinks.V[i].ID == "" {
			g.DefaultLinks.V[i].ID = ids.New(ids.DefaultLink)
		}
	}
	err := db.WithContext(ctx).Model(g).Where("workspace_id = ?", g.WorkspaceID).
		Select("name", "holding_period_days", "additional_links", "max_partner_links", "link_structure",
			"default_links", "utm_template", "logo", "wordmark", "brand_color", "updated_at").
		Updates(g).Error
	return dbErr(err, "update group", "Group not found.", "")
}

// RewardByID loads a reward of the workspace.
func (db *DB) RewardByID(ctx context.Context, workspaceID, id string) (*Reward, error) {
	var r Reward
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&r).Error
	if err != nil {
		return nil, dbErr(err, "get reward", "Reward not found.", "")
	}
	return &r, nil
}

// RewardsByID loads several rewards of the workspace, keyed by id.
func (db *DB) RewardsByID(ctx context.Context, workspaceID string, rewardIDs []string) (map[string]*Reward, error) {
	out := map[string]*Reward{}
	if len(rewardIDs) == 0 {
		return out, nil
	}
	var rs []Reward
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, rewardIDs).Find(&rs).Error; err != nil {
		return nil, dbErr(err, "get rewards", "", "")
	}
	for i := range rs {
		out[rs[i].ID] = &rs[i]
	}
	return out, nil
}

// rewardColumn is the group/enrollment column holding the reward of an event.
func rewardColumn(event string) (string, error) {
	switch event {
	case EventClick, EventLead, EventSale, EventReferral:
		return event + "_reward_id", nil
	}
	return "", apierr.Validation("invalid_value", "event", `Invalid option: expected one of "click"|"lead"|"sale"|"referral"`)
}

// SetGroupReward stores r as the group's reward for r.Event, replacing the
// previous one, and points every enrollment of the group at it (enrollments
// copy their group's rewards).
func (db *DB) SetGroupReward(ctx context.Context, g *Group, r *Reward) error {
	if err := r.Validate(); err != nil {
		return err
	}
	col, err := rewardColumn(r.Event)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(tx *DB) error {
		r.ID, r.WorkspaceID, r.ProgramID = ids.New(ids.Reward), g.WorkspaceID, g.ProgramID
		if err := tx.WithContext(ctx).Create(r).Error; err != nil {
			return dbErr(err, "create reward", "", "")
		}
		return tx.pointGroupReward(ctx, g, col, &r.ID)
	})
}

// ClearGroupReward removes the group's reward for an event.
func (db *DB) ClearGroupReward(ctx context.Context, g *Group, event string) error {
	col, err := rewardColumn(event)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(tx *DB) error { return tx.pointGroupReward(ctx, g, col, nil) })
}

func (db *DB) pointGroupReward(ctx context.Context, g *Group, col string, id *string) error {
	now := time.Now().UTC()
	if err := db.WithContext(ctx).Model(&Group{}).Where("workspace_id = ? AND id = ?", g.WorkspaceID, g.ID).
		Updates(map[string]any{col: id, "updated_at": now}).Error; err != nil {
		return dbErr(err, "set group reward", "", "")
	}
	if err := db.WithContext(ctx).Model(&Enrollment{}).Where("workspace_id = ? AND group_id = ?", g.WorkspaceID, g.ID).
		Updates(map[string]any{col: id, "updated_at": now}).Error; err != nil {
		return dbErr(err, "set enrollment rewards", "", "")
	}
	switch col {
	case "click_reward_id":
		g.ClickRewardID = id
	case "lead_reward_id":
		g.LeadRewardID = id
	case "sale_reward_id":
		g.SaleRewardID = id
	case "referral_reward_id":
		g.ReferralRewardID = id
	}
	return nil
}
