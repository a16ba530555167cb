package conversions

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// LinkCreator stores partner links through the links API's own create and
// update logic (validation, key checks, cache invalidation).
type LinkCreator interface {
	CreateLink(ctx context.Context, tx *models.DB, ws *models.Workspace, l *models.Link) error
	UpdateLink(ctx context.Context, tx *models.DB, ws *models.Workspace, l *models.Link) error
}

// BasicLinkCreator stores links with the models layer only.
type BasicLinkCreator struct{}

// CreateLink stores a new link.
func (BasicLinkCreator) CreateLink(ctx context.Context, tx *models.DB, _ *models.Workspace, l *models.Link) error {
	return tx.CreateLink(ctx, l)
}

// UpdateLink saves a link.
func (BasicLinkCreator) UpdateLink(ctx context.Context, tx *models.DB, _ *models.Workspace, l *models.Link) error {
	l.UpdatedAt = time.Now().UTC()
	return tx.UpdatePartnerLinkFields(ctx, l)
}

// LinkProps are the link options partners' links accept (§3.3).
type LinkProps struct {
	ExternalID, TenantID, Prefix, Comments, ExpiredURL, Password *string
	Title, Description, Image, Video, IOS, Android               *string
	ExpiresAt                                                    *time.Time
	Archived, Proxy, Rewrite, DoIndex                            *bool
	TestVariants                                                 models.TestVariants
	TestStartedAt, TestCompletedAt                               *time.Time
}

func (p *LinkProps) apply(l *models.Link) {
	if p == nil {
		return
	}
	set := func(dst **string, v *string) {
		if v != nil {
			*dst = v
		}
	}
	set(&l.ExternalID, p.ExternalID)
	set(&l.Comments, p.Comments)
	set(&l.ExpiredURL, p.ExpiredURL)
	set(&l.Password, p.Password)
	set(&l.Title, p.Title)
	set(&l.Description, p.Description)
	set(&l.Image, p.Image)
	set(&l.Video, p.Video)
	set(&l.IOS, p.IOS)
	set(&l.Android, p.Android)
	if p.ExpiresAt != nil {
		l.ExpiresAt = p.ExpiresAt
	}
	if p.Archived != nil {
		l.Archived = *p.Archived
	}
	if p.Proxy != nil {
		l.Proxy = *p.Proxy
	}
	if p.Rewrite != nil {
		l.Rewrite = *p.Rewrite
	}
	if p.DoIndex != nil {
		l.DoIndex = *p.DoIndex
	}
	if p.TestVariants != nil {
		l.TestVariants = p.TestVariants
	}
	if p.TestStartedAt != nil {
		l.TestStartedAt = p.TestStartedAt
	}
	if p.TestCompletedAt != nil {
		l.TestCompletedAt = p.TestCompletedAt
	}
}

// EnrollInput is a validated POST /partners body.
type EnrollInput struct {
	Email       string
	Name        *string
	Username    *string
	Image       *string
	TenantID    string
	GroupID     string
	Country     *string
	Description *string
	LinkProps   *LinkProps
}

func msgTenantTaken(t string) string {
	return fmt.Sprintf("The tenantId '%s' is already in associated with another partner in this program.", t)
}

// EnrollPartner creates or enrolls a partner (§3.3) and returns it with its
// enrollment, totals and links.
func (s *Service) EnrollPartner(ctx context.Context, ws *models.Workspace, in EnrollInput) (*models.EnrolledPartner, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	var partnerID string
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		e, err := s.enroll(ctx, tx, ws, prog, in)
		if err != nil {
			return err
		}
		partnerID = e.PartnerID
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.DB.EnrolledPartnerByID(ctx, ws.ID, prog.ID, partnerID)
}

// enroll is EnrollPartner inside a transaction.
func (s *Service) enroll(ctx context.Context, tx *models.DB, ws *models.Workspace, prog *models.Program, in EnrollInput) (*models.Enrollment, error) {
	e, err := tx.EnrollmentByTenantOrEmail(ctx, ws.ID, prog.ID, in.TenantID, in.Email)
	if err != nil && !models.IsNotFound(err) {
		return nil, err
	}
	if err == nil {
		if in.TenantID == "" || (e.TenantID != nil && *e.TenantID == in.TenantID) {
			return e, nil
		}
		if other, err := tx.EnrollmentByTenant(ctx, ws.ID, prog.ID, in.TenantID); err == nil && other.ID != e.ID {
			return nil, apierr.New(apierr.Conflict, msgTenantTaken(in.TenantID))
		} else if err != nil && !models.IsNotFound(err) {
			return nil, err
		}
		if err := tx.SetEnrollmentTenant(ctx, e, in.TenantID); err != nil {
			return nil, err
		}
		return e, nil
	}
	groupSel := in.GroupID
	if groupSel == "" && prog.DefaultGroupID != nil {
		groupSel = *prog.DefaultGroupID
	}
	g, err := tx.GroupByIDOrSlug(ctx, ws.ID, prog.ID, groupSel)
	if err != nil {
		return nil, err
	}
	now := s.now()
	p, err := s.partnerByEmailOrCreate(ctx, tx, ws, in, now)
	if err != nil {
		return nil, err
	}
	e = &models.Enrollment{
		ID: ids.New(ids.Enrollment), WorkspaceID: ws.ID, ProgramID: prog.ID, PartnerID: p.ID,
		GroupID: &g.ID, Status: models.EnrollmentApproved,
		ClickRewardID: g.ClickRewardID, LeadRewardID: g.LeadRewardID, SaleRewardID: g.SaleRewardID,
		ReferralRewardID: g.ReferralRewardID, DiscountID: g.DiscountID, CreatedAt: now, UpdatedAt: now,
	}
	if in.TenantID != "" {
		e.TenantID = &in.TenantID
	}
	created, err := tx.CreateEnrollmentIfAbsent(ctx, e)
	if err != nil {
		return nil, err
	}
	if !created {
		// A concurrent request enrolled the partner first; or the tenantId
		// belongs to someone else.
		other, err := tx.EnrollmentByPartner(ctx, ws.ID, prog.ID, p.ID)
		if models.IsNotFound(err) {
			return nil, apierr.New(apierr.Conflict, msgTenantTaken(in.TenantID))
		}
		return other, err
	}
	if err := s.createDefaultLinks(ctx, tx, ws, prog, g, p, e, in); err != nil {
		return nil, err
	}
	return e, nil
}

// partnerByEmailOrCreate finds the workspace's partner by email or creates it
// with a generated username.
func (s *Service) partnerByEmailOrCreate(ctx context.Context, tx *models.DB, ws *models.Workspace, in EnrollInput, now time.Time) (*models.Partner, error) {
	p, err := tx.PartnerByEmail(ctx, ws.ID, in.Email)
	if err == nil || !models.IsNotFound(err) {
		return p, err
	}
	name := in.Email
	if in.Name != nil && strings.TrimSpace(*in.Name) != "" {
		name = strings.TrimSpace(*in.Name)
	}
	base := Slugify(name)
	if base == "" || (in.Name == nil || strings.TrimSpace(*in.Name) == "") {
		local, _, _ := strings.Cut(in.Email, "@")
		base = Slugify(local)
	}
	if base == "" {
		base = "partner"
	}
	for attempt := 0; attempt < 5; attempt++ {
		username := base + randomSuffix()
		p = &models.Partner{
			ID: ids.New(ids.Partner), WorkspaceID: ws.ID, Email: in.Email, Name: name, Username: &username,
			Image: nonEmpty(in.Image), Country: in.Country, Description: in.Description,
			NetworkStatus: "draft", CreatedAt: now, UpdatedAt: now,
		}
		created, err := tx.CreatePartnerIfAbsent(ctx, p)
		if err != nil {
			return nil, err
		}
		if created {
			return p, nil
		}
		if existing, err := tx.PartnerByEmail(ctx, ws.ID, in.Email); err == nil || !models.IsNotFound(err) {
			return existing, err
		}
		// The username was taken: try another suffix.
	}
	return nil, fmt.Errorf("create partner %s: no free username", in.Email)
}

// createDefaultLinks creates one link per default link of the group (§3.3
// step 5), retrying taken keys with a random suffix.
func (s *Service) createDefaultLinks(ctx context.Context, tx *models.DB, ws *models.Workspace, prog *models.Program, g *models.Group, p *models.Partner, e *models.Enrollment, in EnrollInput) error {
	if !g.DefaultLinks.Valid || len(g.DefaultLinks.V) == 0 {
		return nil
	}
	slug := ""
	switch {
	case in.Username != nil && *in.Username != "":
		slug = *in.Username
	case in.Name != nil && Slugify(*in.Name) != "":
		slug = Slugify(*in.Name)
	default:
		local, _, _ := strings.Cut(in.Email, "@")
		slug = Slugify(local)
	}
	for _, dl := range g.DefaultLinks.V {
		key := slug
		if len(g.DefaultLinks.V) > 1 {
			key += randomSuffix()
		}
		if in.LinkProps != nil && in.LinkProps.Prefix != nil && strings.Trim(*in.LinkProps.Prefix, "/") != "" {
			key = strings.Trim(*in.LinkProps.Prefix, "/") + "/" + key
		}
		l := s.partnerLink(prog, g, e, dl.Domain, withUTM(dl.URL, g), in.LinkProps)
		for attempt := 0; ; attempt++ {
			l.ID, l.Key = ids.New(ids.Link), key
			err := s.Links.CreateLink(ctx, tx, ws, l)
			if err == nil {
				break
			}
			if !apierr.Is(err, apierr.Conflict) || attempt == 4 {
				return err
			}
			key = slug + randomSuffix()
		}
	}
	return nil
}

// partnerLink builds a partner link: domain, url, program, partner, tenant,
// folder and conversion tracking forced, linkProps applied.
func (s *Service) partnerLink(prog *models.Program, g *models.Group, e *models.Enrollment, domain, dest string, props *LinkProps) *models.Link {
	now := s.now()
	l := &models.Link{
		WorkspaceID: e.WorkspaceID, Domain: strings.ToLower(domain), URL: dest, TrackConversion: true,
		CreatedAt: now, UpdatedAt: now,
	}
	props.apply(l)
	s.forcePartnerFields(l, prog, e)
	applyUTM(l, g)
	return l
}

func (s *Service) forcePartnerFields(l *models.Link, prog *models.Program, e *models.Enrollment) {
	pid, pnid := prog.ID, e.PartnerID
	l.ProgramID, l.PartnerID, l.TenantID = &pid, &pnid, e.TenantID
	l.FolderID = prog.DefaultFolderID
	l.TrackConversion = true
}

// withUTM adds the group's UTM template to a destination, keeping
// parameters the URL already has.
func withUTM(dest string, g *models.Group) string {
	if !g.UTMTemplate.Valid || len(g.UTMTemplate.V) == 0 {
		return dest
	}
	u, err := url.Parse(dest)
	if err != nil {
		return dest
	}
	q := u.Query()
	for k, v := range g.UTMTemplate.V {
		if q.Get(k) == "" && v != "" {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// applyUTM copies the destination's utm_* parameters to the link's columns.
func applyUTM(l *models.Link, _ *models.Group) {
	u, err := url.Parse(l.URL)
	if err != nil {
		return
	}
	q := u.Query()
	get := func(k string) *string {
		if v := q.Get(k); v != "" {
			return &v
		}
		return nil
	}
	l.UTMSource, l.UTMMedium, l.UTMCampaign, l.UTMTerm, l.UTMContent =
		get("utm_source"), get("utm_medium"), get("utm_campaign"), get("utm_term"), get("utm_content")
}

// PartnerSelector names a partner by id (wins) or tenantId (§3.5).
type PartnerSelector struct{ PartnerID, TenantID string }

// ResolveEnrollment finds the program's enrollment for a selector.
func (s *Service) ResolveEnrollment(ctx context.Context, db *models.DB, ws *models.Workspace, prog *models.Program, sel PartnerSelector) (*models.Enrollment, error) {
	switch {
	case sel.PartnerID != "":
		return db.EnrollmentByPartner(ctx, ws.ID, prog.ID, sel.PartnerID)
	case sel.TenantID != "":
		return db.EnrollmentByTenant(ctx, ws.ID, prog.ID, sel.TenantID)
	}
	return nil, apierr.New(apierr.BadRequest, "Either `partnerId` or `tenantId` must be provided.")
}

// PartnerLinkInput is a validated POST /partners/links or PUT
// /partners/links/upsert body.
type PartnerLinkInput struct {
	PartnerSelector
	URL       string // "" = the group's first default link (POST only)
	Key       string // "" = random
	LinkProps *LinkProps
}

// checkDestination applies the group's additional-link rules (§3.5 check 3).
func checkDestination(g *models.Group, dest string) error {
	if !g.AdditionalLinks.Valid {
		return apierr.New(apierr.BadRequest, "You cannot create additional links for this program.")
	}
	u, err := url.Parse(dest)
	if err != nil || u.Host == "" {
		return apierr.Validation("invalid_format", "url", "Invalid URL")
	}
	host := strings.ToLower(u.Hostname())
	matched := false
	for _, al := range g.AdditionalLinks.V {
		if strings.ToLower(al.Domain) != host {
			continue
		}
		if al.ValidationMode == "exact" {
			path := u.EscapedPath()
			if u.RawQuery != "" {
				path += "?" + u.RawQuery
			}
			if strings.TrimSuffix(al.Path, "/") != strings.TrimSuffix(path, "/") {
				continue
			}
		}
		matched = true
		break
	}
	if matched {
		return nil
	}
	for _, al := range g.AdditionalLinks.V {
		if strings.ToLower(al.Domain) == host {
			return apierr.New(apierr.BadRequest, "The provided URL does not match the URL configured for this program.")
		}
	}
	return apierr.Newf(apierr.BadRequest, "The provided URL's domain (%s) does not match the program's link domains.", host)
}

// partnerLinkContext loads and checks what partner links need.
func (s *Service) partnerLinkContext(ctx context.Context, db *models.DB, ws *models.Workspace, sel PartnerSelector) (*models.Program, *models.Group, *models.Enrollment, error) {
	prog, err := db.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	e, err := s.ResolveEnrollment(ctx, db, ws, prog, sel)
	if err != nil {
		return nil, nil, nil, err
	}
	if prog.Domain == nil || *prog.Domain == "" || prog.URL == nil || *prog.URL == "" {
		return nil, nil, nil, apierr.New(apierr.BadRequest, "You need to set a domain and url for this program before creating a link.")
	}
	if e.GroupID == nil {
		return nil, nil, nil, apierr.New(apierr.NotFound, "This partner is not part of a partner group.")
	}
	g, err := db.GroupByID(ctx, ws.ID, *e.GroupID)
	if models.IsNotFound(err) {
		return nil, nil, nil, apierr.New(apierr.NotFound, "This partner is not part of a partner group.")
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return prog, g, e, nil
}

// CreatePartnerLink creates a link for a partner (POST /partners/links).
func (s *Service) CreatePartnerLink(ctx context.Context, ws *models.Workspace, in PartnerLinkInput) (*models.Link, error) {
	prog, g, e, err := s.partnerLinkContext(ctx, s.DB, ws, in.PartnerSelector)
	if err != nil {
		return nil, err
	}
	dest := in.URL
	if dest != "" {
		if err := checkDestination(g, dest); err != nil {
			return nil, err
		}
	} else {
		dest = *prog.URL
		if g.DefaultLinks.Valid && len(g.DefaultLinks.V) > 0 {
			dest = g.DefaultLinks.V[0].URL
		}
	}
	l := s.partnerLink(prog, g, e, *prog.Domain, withUTM(dest, g), in.LinkProps)
	l.ID, l.Key = ids.New(ids.Link), in.Key
	if l.Key == "" {
		l.Key = ids.Random(ids.Alphanumeric, 7)
	}
	if in.LinkProps != nil && in.LinkProps.Prefix != nil && strings.Trim(*in.LinkProps.Prefix, "/") != "" {
		l.Key = strings.Trim(*in.LinkProps.Prefix, "/") + "/" + l.Key
	}
	err = s.DB.Tx(ctx, func(tx *models.DB) error { return s.Links.CreateLink(ctx, tx, ws, l) })
	if err != nil {
		return nil, err
	}
	return l, nil
}

// UpsertPartnerLink finds the partner's link with exactly in.URL and updates
// it, or creates it (PUT /partners/links/upsert). The tenantId is resolved to
// its partner first, so one partner never matches another's link.
func (s *Service) UpsertPartnerLink(ctx context.Context, ws *models.Workspace, in PartnerLinkInput) (*models.Link, error) {
	prog, _, e, err := s.partnerLinkContext(ctx, s.DB, ws, in.PartnerSelector)
	if err != nil {
		return nil, err
	}
	existing, err := s.DB.PartnerLinkByURL(ctx, ws.ID, prog.ID, e.PartnerID, in.URL)
	if models.IsNotFound(err) {
		return s.CreatePartnerLink(ctx, ws, PartnerLinkInput{PartnerSelector: PartnerSelector{PartnerID: e.PartnerID}, URL: in.URL, Key: in.Key, LinkProps: in.LinkProps})
	}
	if err != nil {
		return nil, err
	}
	before := *existing
	l := existing
	in.LinkProps.apply(l)
	if in.Key != "" {
		l.Key = in.Key
	}
	l.Domain = strings.ToLower(*prog.Domain)
	s.forcePartnerFields(l, prog, e)
	if sameLink(&before, l) {
		return l, nil
	}
	err = s.DB.Tx(ctx, func(tx *models.DB) error { return s.Links.UpdateLink(ctx, tx, ws, l) })
	if err != nil {
		return nil, err
	}
	return l, nil
}

func sameLink(a, b *models.Link) bool {
	eq := func(x, y *string) bool { return (x == nil && y == nil) || (x != nil && y != nil && *x == *y) }
	eqt := func(x, y *time.Time) bool { return (x == nil && y == nil) || (x != nil && y != nil && x.Equal(*y)) }
	return a.Key == b.Key && a.Domain == b.Domain && a.URL == b.URL && a.TrackConversion == b.TrackConversion &&
		eq(a.ExternalID, b.ExternalID) && eq(a.TenantID, b.TenantID) && eq(a.ProgramID, b.ProgramID) &&
		eq(a.PartnerID, b.PartnerID) && eq(a.FolderID, b.FolderID) && eq(a.Comments, b.Comments) &&
		eq(a.ExpiredURL, b.ExpiredURL) && eq(a.Password, b.Password) && eq(a.Title, b.Title) &&
		eq(a.Description, b.Description) && eq(a.Image, b.Image) && eq(a.Video, b.Video) &&
		eq(a.IOS, b.IOS) && eq(a.Android, b.Android) && eqt(a.ExpiresAt, b.ExpiresAt) &&
		a.Archived == b.Archived && a.Proxy == b.Proxy && a.Rewrite == b.Rewrite && a.DoIndex == b.DoIndex
}

// EmbedInput is a validated POST /tokens/embed/referrals body.
type EmbedInput struct {
	PartnerID string
	TenantID  string
	Partner   *EnrollInput
}

// EmbedToken mints a referral-dashboard token for one enrollment (§5).
func (s *Service) EmbedToken(ctx context.Context, ws *models.Workspace, in EmbedInput) (string, time.Time, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return "", time.Time{}, err
	}
	tenant := in.TenantID
	if tenant == "" && in.Partner != nil {
		tenant = in.Partner.TenantID
		if tenant == "" && in.Partner.LinkProps != nil && in.Partner.LinkProps.TenantID != nil {
			tenant = *in.Partner.LinkProps.TenantID
		}
	}
	var token string
	var expires time.Time
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		var e *models.Enrollment
		var err error
		switch {
		case in.PartnerID != "":
			e, err = tx.EnrollmentByPartner(ctx, ws.ID, prog.ID, in.PartnerID)
		case tenant != "":
			e, err = tx.EnrollmentByTenant(ctx, ws.ID, prog.ID, tenant)
		default:
			err = apierr.New(apierr.NotFound, models.MsgPartnerNotEnrolled)
		}
		if err != nil && !models.IsNotFound(err) {
			return err
		}
		if e == nil && in.Partner != nil {
			if p, perr := tx.PartnerByEmail(ctx, ws.ID, in.Partner.Email); perr == nil {
				if pe, eerr := tx.EnrollmentByPartner(ctx, ws.ID, prog.ID, p.ID); eerr == nil {
					e = pe // enrolled already: its tenantId is not updated
				} else if !models.IsNotFound(eerr) {
					return eerr
				}
			} else if !models.IsNotFound(perr) {
				return perr
			}
			if e == nil {
				pin := *in.Partner
				pin.TenantID = tenant
				if tenant != "" {
					props := LinkProps{}
					if pin.LinkProps != nil {
						props = *pin.LinkProps
					}
					props.TenantID = &tenant
					pin.LinkProps = &props
				}
				if e, err = s.enroll(ctx, tx, ws, prog, pin); err != nil {
					return err
				}
			}
		}
		if e == nil {
			return apierr.New(apierr.NotFound, "The partner is not enrolled in this program.")
		}
		tok, t, err := tx.CreateEmbedToken(ctx, e, s.now())
		if err != nil {
			return err
		}
		token, expires = tok, t.ExpiresAt
		return nil
	})
	return token, expires, err
}
