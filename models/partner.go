package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/relinkhq/relink/internal/apierr"
)

// Partner is a person or company promoting a program (spec/partners-and-embed.md
// §3.1). Partners are scoped to a workspace: unique by email within it.
type Partner struct {
	ID                  string `gorm:"primaryKey"`
	WorkspaceID         string
	Email               string
	Name                string
	Username            *string
	Image               *string
	Country             *string
	Description         *string
	CompanyName         *string
	NetworkStatus       string
	DefaultPayoutMethod *string
	PaypalEmail         *string
	StripeConnectID     *string
	PayoutsEnabledAt    *time.Time
	IdentityVerifiedAt  *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// TableName pins the table.
func (Partner) TableName() string { return "partners" }

// Enrollment statuses (§3.1).
const (
	EnrollmentPending     = "pending"
	EnrollmentApproved    = "approved"
	EnrollmentRejected    = "rejected"
	EnrollmentInvited     = "invited"
	EnrollmentDeclined    = "declined"
	EnrollmentDeactivated = "deactivated"
	EnrollmentBanned      = "banned"
	EnrollmentArchived    = "archived"
)

// EnrollmentStatuses lists every status (the SDK's closed enum).
var EnrollmentStatuses = []string{EnrollmentPending, EnrollmentApproved, EnrollmentRejected, EnrollmentInvited,
	EnrollmentDeclined, EnrollmentDeactivated, EnrollmentBanned, EnrollmentArchived}

// Enrollment is a partner's membership of a program (`pge_`).
type Enrollment struct {
	ID               string `gorm:"primaryKey"`
	WorkspaceID      string
	ProgramID        string
	PartnerID        string
	TenantID         *string
	GroupID          *string
	Status           string
	ClickRewardID    *string
	LeadRewardID     *string
	SaleRewardID     *string
	ReferralRewardID *string
	DiscountID       *string
	ApplicationID    *string
	BannedAt         *time.Time
	BannedReason     *string
	TotalCommissions int64
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// TableName pins the table.
func (Enrollment) TableName() string { return "program_enrollments" }

// CommissionEligible reports whether events on the partner's links earn
// commissions: approved, archived and invited enrollments (§3.1).
func (e *Enrollment) CommissionEligible() bool {
	return e.Status == EnrollmentApproved || e.Status == EnrollmentArchived || e.Status == EnrollmentInvited
}

// RewardIDFor is the enrollment's reward id for an event.
func (e *Enrollment) RewardIDFor(event string) *string {
	switch event {
	case EventClick:
		return e.ClickRewardID
	case EventLead:
		return e.LeadRewardID
	case EventSale:
		return e.SaleRewardID
	case EventReferral:
		return e.ReferralRewardID
	}
	return nil
}

// PartnerByEmail finds a partner of the workspace by email.
func (db *DB) PartnerByEmail(ctx context.Context, workspaceID, email string) (*Partner, error) {
	var p Partner
	err := db.WithContext(ctx).Where("workspace_id = ? AND lower(email) = ?", workspaceID, NormalizeEmail(email)).Take(&p).Error
	if err != nil {
		return nil, dbErr(err, "get partner by email", "Partner not found.", "")
	}
	return &p, nil
}

// PartnerByID loads a partner of the workspace.
func (db *DB) PartnerByID(ctx context.Context, workspaceID, id string) (*Partner, error) {
	var p Partner
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&p).Error
	if err != nil {
		return nil, dbErr(err, "get partner", "Partner not found.", "")
	}
	return &p, nil
}

// CreatePartner stores a new partner; a taken email or username is a 409.
func (db *DB) CreatePartner(ctx context.Context, p *Partner) error {
	p.Email = strings.TrimSpace(p.Email) // kept as given (Dub does not lower-case it); matched case-insensitively
	if p.NetworkStatus == "" {
		p.NetworkStatus = "draft"
	}
	err := db.WithContext(ctx).Create(p).Error
	return dbErr(err, "create partner", "", "A partner with this email or username already exists.")
}

// MsgPartnerNotEnrolled is the answer for a partner without an enrollment.
const MsgPartnerNotEnrolled = "Partner not found."

// EnrollmentByPartner finds the partner's enrollment in the program.
func (db *DB) EnrollmentByPartner(ctx context.Context, workspaceID, programID, partnerID string) (*Enrollment, error) {
	var e Enrollment
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).Take(&e).Error
	if err != nil {
		return nil, dbErr(err, "get enrollment", MsgPartnerNotEnrolled, "")
	}
	return &e, nil
}

// ApprovedEnrollmentsInGroup pages through the group's approved
// enrollments by id (after: the last id of the previous page).
func (db *DB) ApprovedEnrollmentsInGroup(ctx context.Context, workspaceID, groupID, after string, limit int) ([]Enrollment, error) {
	var es []Enrollment
	err := db.WithContext(ctx).Where("workspace_id = ? AND group_id = ? AND status = ? AND id > ?", workspaceID, groupID, EnrollmentApproved, after).
		Order("id").Limit(limit).Find(&es).Error
	return es, dbErr(err, "list group enrollments", "", "")
}

// EnrollmentByTenant finds the enrollment holding a tenantId in the program.
func (db *DB) EnrollmentByTenant(ctx context.Context, workspaceID, programID, tenantID string) (*Enrollment, error) {
	var e Enrollment
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND tenant_id = ?", workspaceID, programID, tenantID).Take(&e).Error
	if err != nil {
		return nil, dbErr(err, "get enrollment by tenant", MsgPartnerNotEnrolled, "")
	}
	return &e, nil
}

// EnrollmentByID loads an enrollment of the workspace.
func (db *DB) EnrollmentByID(ctx context.Context, workspaceID, id string) (*Enrollment, error) {
	var e Enrollment
	err := db.WithContext(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&e).Error
	if err != nil {
		return nil, dbErr(err, "get enrollment", MsgPartnerNotEnrolled, "")
	}
	return &e, nil
}

// EnrollmentByTenantOrEmail is POST /partners' lookup (§3.3 step 1): the
// program's enrollment whose tenantId equals tenantID (when given) or whose
// partner's email equals email; a tenant match wins.
func (db *DB) EnrollmentByTenantOrEmail(ctx context.Context, workspaceID, programID, tenantID, email string) (*Enrollment, error) {
	if tenantID != "" {
		e, err := db.EnrollmentByTenant(ctx, workspaceID, programID, tenantID)
		if err == nil || !IsNotFound(err) {
			return e, err
		}
	}
	var e Enrollment
	err := db.WithContext(ctx).Table("program_enrollments AS e").Select("e.*").
		Joins("JOIN partners p ON p.id = e.partner_id AND p.workspace_id = e.workspace_id").
		Where("e.workspace_id = ? AND e.program_id = ? AND lower(p.email) = ?", workspaceID, programID, NormalizeEmail(email)).
		Take(&e).Error
	if err != nil {
		return nil, dbErr(err, "get enrollment by email", MsgPartnerNotEnrolled, "")
	}
	return &e, nil
}

// CreateEnrollment stores an enrollment; a partner already enrolled or a
// taken tenantId is a 409.
func (db *DB) CreateEnrollment(ctx context.Context, e *Enrollment) error {
	err := db.WithContext(ctx).Create(e).Error
	return dbErr(err, "create enrollment", "", "This partner is already enrolled in this program.")
}

// SetEnrollmentTenant changes an enrollment's tenantId.
func (db *DB) SetEnrollmentTenant(ctx context.Context, e *Enrollment, tenantID string) error {
	err := db.WithContext(ctx).Model(&Enrollment{}).Where("workspace_id = ? AND id = ?", e.WorkspaceID, e.ID).
		Updates(map[string]any{"tenant_id": tenantID, "updated_at": time.Now().UTC()}).Error
	if err != nil {
		return dbErr(err, "set tenant", MsgPartnerNotEnrolled,
			fmt.Sprintf("The tenantId '%s' is already in associated with another partner in this program.", tenantID))
	}
	e.TenantID = &tenantID
	return nil
}

// SetEnrollmentStatus changes an enrollment's status.
func (db *DB) SetEnrollmentStatus(ctx context.Context, e *Enrollment, status string) error {
	err := db.WithContext(ctx).Model(&Enrollment{}).Where("workspace_id = ? AND id = ?", e.WorkspaceID, e.ID).
		Updates(map[string]any{"status": status, "updated_at": time.Now().UTC()}).Error
	if err != nil {
		return dbErr(err, "set enrollment status", MsgPartnerNotEnrolled, "")
	}
	e.Status = status
	return nil
}

// RecomputeTotalCommissions refreshes the enrollment's cached total:
// Σ earnings of its commissions with status pending, processed or paid.
func (db *DB) RecomputeTotalCommissions(ctx context.Context, workspaceID, programID, partnerID string) error {
	var total int64
	err := db.WithContext(ctx).Model(&Commission{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND status IN ?", workspaceID, programID, partnerID, CountedStatuses).
		Select("COALESCE(SUM(earnings), 0)").Scan(&total).Error
	if err != nil {
		return dbErr(err, "sum commissions", "", "")
	}
	err = db.WithContext(ctx).Model(&Enrollment{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		Update("total_commissions", total).Error
	return dbErr(err, "update total commissions", "", "")
}

// PartnerStats are a partner's totals: link counters summed over the
// partner's links in the program, and the enrollment's commissions.
type PartnerStats struct {
	Clicks, Leads, Conversions, Sales, SaleAmount, Commissions int64
}

// EnrolledPartner is a partner with its enrollment, totals and links.
type EnrolledPartner struct {
	Partner    Partner
	Enrollment Enrollment
	Stats      PartnerStats
	Links      []Link
}

// SetFilter is a multi-value filter: values, or NOT IN values when Not.
type SetFilter struct {
	Values []string
	Not    bool
}

// ParseSetFilter reads "a,b" or "-a,b" (spec/partners-and-embed.md §3.4).
func ParseSetFilter(s string) *SetFilter {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	f := &SetFilter{}
	if strings.HasPrefix(s, "-") {
		f.Not, s = true, s[1:]
	}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			f.Values = append(f.Values, v)
		}
	}
	if len(f.Values) == 0 {
		return nil
	}
	return f
}

func (f *SetFilter) apply(q *gorm.DB, col string) *gorm.DB {
	if f == nil {
		return q
	}
	if f.Not {
		return q.Where("("+col+" IS NULL OR "+col+" NOT IN ?)", f.Values)
	}
	return q.Where(col+" IN ?", f.Values)
}

// PartnerQuery filters and orders GET /partners (§3.4).
type PartnerQuery struct {
	Status    string
	GroupID   *SetFilter
	Country   *SetFilter
	Email     string
	TenantID  string
	Search    string
	PartnerID string // exact, for single lookups
	// PartnerIDs keeps only these partners (Dub's partnerIds filter).
	PartnerIDs []string
	SortBy     string // one of PartnerSortColumns' keys
	Desc       bool
	Limit      int
	Offset     int
}

// PartnerSortColumns maps GET /partners sortBy values to SQL.
var PartnerSortColumns = map[string]string{
	"createdAt":             "e.created_at",
	"totalClicks":           "total_clicks",
	"totalLeads":            "total_leads",
	"totalConversions":      "total_conversions",
	"totalSales":            "total_sales",
	"totalSaleAmount":       "total_sale_amount",
	"totalCommissions":      "e.total_commissions",
	"netRevenue":            "(total_sale_amount - e.total_commissions)",
	"earningsPerClick":      "(CASE WHEN total_clicks = 0 THEN NULL ELSE total_sale_amount * 1.0 / total_clicks END)",
	"averageLifetimeValue":  "(CASE WHEN total_conversions = 0 THEN NULL ELSE total_sale_amount * 1.0 / total_conversions END)",
	"clickToLeadRate":       "(CASE WHEN total_clicks = 0 THEN NULL ELSE total_leads * 1.0 / total_clicks END)",
	"clickToConversionRate": "(CASE WHEN total_clicks = 0 THEN NULL ELSE total_conversions * 1.0 / total_clicks END)",
	"leadToConversionRate":  "(CASE WHEN total_leads = 0 THEN NULL ELSE total_conversions * 1.0 / total_leads END)",
	"returnOnAdSpend":       "(CASE WHEN e.total_commissions = 0 THEN NULL ELSE total_sale_amount * 1.0 / e.total_commissions END)",
}

type enrolledRow struct {
	ID               string
	TotalClicks      int64
	TotalLeads       int64
	TotalConversions int64
	TotalSales       int64
	TotalSaleAmount  int64
}

// ListEnrolledPartners lists the program's partners with totals and links.
func (db *DB) ListEnrolledPartners(ctx context.Context, workspaceID, programID string, q PartnerQuery) ([]EnrolledPartner, error) {
	stats := db.WithContext(ctx).Model(&Link{}).
		Select("partner_id, SUM(clicks) AS clicks, SUM(leads) AS leads, SUM(conversions) AS conversions, SUM(sales) AS sales, SUM(sale_amount) AS sale_amount").
		Where("workspace_id = ? AND program_id = ? AND partner_id IS NOT NULL", workspaceID, programID).
		Group("partner_id")
	inner := db.WithContext(ctx).Table("program_enrollments AS e").
		Select(`e.id, e.created_at, e.total_commissions,
			COALESCE(s.clicks, 0) AS total_clicks, COALESCE(s.leads, 0) AS total_leads,
			COALESCE(s.conversions, 0) AS total_conversions, COALESCE(s.sales, 0) AS total_sales,
			COALESCE(s.sale_amount, 0) AS total_sale_amount`).
		Joins("JOIN partners p ON p.id = e.partner_id AND p.workspace_id = e.workspace_id").
		Joins("LEFT JOIN (?) s ON s.partner_id = e.partner_id", stats).
		Where("e.workspace_id = ? AND e.program_id = ?", workspaceID, programID)
	if q.Status != "" {
		inner = inner.Where("e.status = ?", q.Status)
	}
	inner = q.GroupID.apply(inner, "e.group_id")
	inner = q.Country.apply(inner, "p.country")
	switch {
	case q.PartnerID != "":
		inner = inner.Where("e.partner_id = ?", q.PartnerID)
	case q.Email != "":
		inner = inner.Where("lower(p.email) = ?", NormalizeEmail(q.Email))
	case q.Search != "":
		s := strings.TrimSpace(q.Search)
		switch {
		case strings.Contains(s, "@"):
			inner = inner.Where("lower(p.email) = ?", NormalizeEmail(s))
		case strings.HasPrefix(s, "pn_"):
			inner = inner.Where("p.id = ?", s)
		default:
			like := "%" + escapeLike(strings.ToLower(s)) + "%"
			inner = inner.Where(`(lower(p.email) LIKE ? ESCAPE '\' OR lower(p.name) LIKE ? ESCAPE '\' OR lower(COALESCE(p.company_name, '')) LIKE ? ESCAPE '\')`, like, like, like)
		}
	}
	if q.TenantID != "" {
		inner = inner.Where("e.tenant_id = ?", q.TenantID)
	}
	if len(q.PartnerIDs) > 0 {
		inner = inner.Where("e.partner_id IN ?", q.PartnerIDs)
	}
	sortExpr, ok := PartnerSortColumns[q.SortBy]
	if !ok {
		sortExpr = PartnerSortColumns["totalSaleAmount"]
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	// Nulls (undefined ratios) sort last either way, as on both dialects alike.
	outer := db.WithContext(ctx).Table("(?) AS e", inner).Select("e.*").
		Order(fmt.Sprintf("CASE WHEN %s IS NULL THEN 1 ELSE 0 END, %s %s, e.id %s", sortExpr, sortExpr, dir, dir))
	if q.Limit > 0 {
		outer = outer.Limit(q.Limit).Offset(q.Offset)
	}
	var rows []enrolledRow
	if err := outer.Scan(&rows).Error; err != nil {
		return nil, dbErr(err, "list partners", "", "")
	}
	if len(rows) == 0 {
		return []EnrolledPartner{}, nil
	}
	idsList := make([]string, len(rows))
	for i, r := range rows {
		idsList[i] = r.ID
	}
	var ens []Enrollment
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, idsList).Find(&ens).Error; err != nil {
		return nil, dbErr(err, "load enrollments", "", "")
	}
	byID := map[string]Enrollment{}
	partnerIDs := make([]string, 0, len(ens))
	for _, e := range ens {
		byID[e.ID] = e
		partnerIDs = append(partnerIDs, e.PartnerID)
	}
	var ps []Partner
	if err := db.WithContext(ctx).Where("workspace_id = ? AND id IN ?", workspaceID, partnerIDs).Find(&ps).Error; err != nil {
		return nil, dbErr(err, "load partners", "", "")
	}
	partners := map[string]Partner{}
	for _, p := range ps {
		partners[p.ID] = p
	}
	var ls []Link
	if err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id IN ?", workspaceID, programID, partnerIDs).
		Order("created_at, id").Find(&ls).Error; err != nil {
		return nil, dbErr(err, "load partner links", "", "")
	}
	links := map[string][]Link{}
	for _, l := range ls {
		links[*l.PartnerID] = append(links[*l.PartnerID], l)
	}
	out := make([]EnrolledPartner, 0, len(rows))
	for _, r := range rows {
		e := byID[r.ID]
		ep := EnrolledPartner{
			Partner: partners[e.PartnerID], Enrollment: e, Links: links[e.PartnerID],
			Stats: PartnerStats{Clicks: r.TotalClicks, Leads: r.TotalLeads, Conversions: r.TotalConversions,
				Sales: r.TotalSales, SaleAmount: r.TotalSaleAmount, Commissions: e.TotalCommissions},
		}
		if ep.Links == nil {
			ep.Links = []Link{}
		}
		out = append(out, ep)
	}
	return out, nil
}

// EnrolledPartnerByID loads one enrolled partner with totals and links.
func (db *DB) EnrolledPartnerByID(ctx context.Context, workspaceID, programID, partnerID string) (*EnrolledPartner, error) {
	list, err := db.ListEnrolledPartners(ctx, workspaceID, programID, PartnerQuery{PartnerID: partnerID, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, apierr.New(apierr.NotFound, MsgPartnerNotEnrolled)
	}
	return &list[0], nil
}

// PartnerLinks lists the partner's links in the program, oldest first.
func (db *DB) PartnerLinks(ctx context.Context, workspaceID, programID, partnerID string) ([]Link, error) {
	var ls []Link
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		Order("created_at, id").Find(&ls).Error
	return ls, dbErr(err, "list partner links", "", "")
}

// escapeLike escapes LIKE wildcards; the queries use ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// CreatePartnerIfAbsent inserts a partner unless its email or username is
// taken in the workspace; it reports whether it was inserted. It never
// aborts the surrounding transaction.
func (db *DB) CreatePartnerIfAbsent(ctx context.Context, p *Partner) (bool, error) {
	p.Email = strings.TrimSpace(p.Email) // kept as given (Dub does not lower-case it); matched case-insensitively
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(p)
	if res.Error != nil {
		return false, dbErr(res.Error, "create partner", "", "")
	}
	return res.RowsAffected == 1, nil
}

// CreateEnrollmentIfAbsent inserts an enrollment unless the partner is
// already enrolled or its tenantId is taken; it reports whether it was
// inserted. It never aborts the surrounding transaction.
func (db *DB) CreateEnrollmentIfAbsent(ctx context.Context, e *Enrollment) (bool, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(e)
	if res.Error != nil {
		return false, dbErr(res.Error, "create enrollment", "", "")
	}
	return res.RowsAffected == 1, nil
}

// PartnerLinkByURL finds the partner's link in the program with exactly url.
func (db *DB) PartnerLinkByURL(ctx context.Context, workspaceID, programID, partnerID, url string) (*Link, error) {
	var l Link
	err := db.WithContext(ctx).Where("workspace_id = ? AND program_id = ? AND partner_id = ? AND url = ?", workspaceID, programID, partnerID, url).
		Order("created_at, id").Take(&l).Error
	if err != nil {
		return nil, dbErr(err, "get partner link", "Link not found.", "")
	}
	return &l, nil
}

// AddTotalCommissions adds a new commission's earnings to the enrollment's
// cached total (cheaper than RecomputeTotalCommissions on the tracking path).
func (db *DB) AddTotalCommissions(ctx context.Context, workspaceID, programID, partnerID string, earnings int64) error {
	err := db.WithContext(ctx).Model(&Enrollment{}).
		Where("workspace_id = ? AND program_id = ? AND partner_id = ?", workspaceID, programID, partnerID).
		UpdateColumn("total_commissions", gorm.Expr("total_commissions + ?", earnings)).Error
	return dbErr(err, "add total commissions", "", "")
}
