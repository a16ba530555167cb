package conversions

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
)

// LinkProps are the link options of the partner endpoints (§3.3): the
// links API's input (parsed with links.ParseLinkProps) and the key prefix.
// Options partner links do not take (url, domain, key, program, partner,
// tracking, folder, UTM, ref, publicStats, geo, webhooks) are ignored.
type LinkProps struct {
	*links.Input
	Prefix string
}

// tenant is linkProps.tenantId, if given.
func (p *LinkProps) tenant() string {
	if p == nil || p.Input == nil || !p.TenantID.Has() {
		return ""
	}
	return p.TenantID.Value
}

func field[T any](v T) links.Field[T] { return links.Field[T]{Set: true, Value: v} }

func optField[T any](p *T) links.Field[T] {
	if p == nil {
		return links.Field[T]{Set: true, Null: true}
	}
	return field(*p)
}

// partnerLinkInput builds the links API input of a partner link: linkProps
// applied, then domain, destination, program, partner, tenant, folder and
// conversion tracking forced. An empty key lets the links API pick one.
func partnerLinkInput(props *LinkProps, prog *models.Program, e *models.Enrollment, domain, dest, key string) *links.Input {
	in := &links.Input{}
	if props != nil && props.Input != nil {
		cp := *props.Input
		in = &cp
	}
	in.URL, in.Domain = field(dest), field(strings.ToLower(domain))
	in.Key, in.KeyLength = links.Field[string]{}, links.Field[int]{}
	if key != "" {
		in.Key = field(key)
	}
	in.Prefix = links.Field[string]{}
	if props != nil && props.Prefix != "" {
		in.Prefix = field(props.Prefix)
	}
	in.ProgramID, in.PartnerID, in.TenantID = field(prog.ID), field(e.PartnerID), optField(e.TenantID)
	in.TrackConversion = field(true)
	in.FolderID = optField(prog.DefaultFolderID)
	in.UTM = [5]links.Field[string]{}
	in.Ref, in.PublicStats, in.TagID = links.Field[string]{}, links.Field[bool]{}, links.Field[string]{}
	in.Geo, in.WebhookIDs = links.Field[map[string]string]{}, links.Field[[]string]{}
	return in
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
	// UserID is the user the request acts as (the API key's user): the
	// creator (userId) of the partner's default links.
	UserID *string
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
	var res *enrolled
	err = s.DB.Tx(ctx, func(tx *models.DB) (err error) {
		if res, err = s.enroll(ctx, tx, ws, prog, in); err != nil {
			return err
		}
		return s.welcome(ctx, tx, ws, prog, res, in)
	})
	if err != nil {
		return nil, err
	}
	return s.DB.EnrolledPartnerByID(ctx, ws.ID, prog.ID, res.e.PartnerID)
}

// enrolled is the outcome of enroll: the enrollment, and for a new one the
// group whose default links still have to be created (welcome).
type enrolled struct {
	e     *models.Enrollment
	group *models.Group // nil unless newly enrolled
}

// enroll is EnrollPartner's database part, inside a transaction.
func (s *Service) enroll(ctx context.Context, tx *models.DB, ws *models.Workspace, prog *models.Program, in EnrollInput) (*enrolled, error) {
	e, err := tx.EnrollmentByTenantOrEmail(ctx, ws.ID, prog.ID, in.TenantID, in.Email)
	if err != nil && !models.IsNotFound(err) {
		return nil, err
	}
	if err == nil {
		if in.TenantID == "" || (e.TenantID != nil && *e.TenantID == in.TenantID) {
			return &enrolled{e: e}, nil
		}
		if other, err := tx.EnrollmentByTenant(ctx, ws.ID, prog.ID, in.TenantID); err == nil && other.ID != e.ID {
			return nil, apierr.New(apierr.Conflict, msgTenantTaken(in.TenantID))
		} else if err != nil && !models.IsNotFound(err) {
			return nil, err
		}
		if err := tx.SetEnrollmentTenant(ctx, e, in.TenantID); err != nil {
			return nil, err
		}
		return &enrolled{e: e}, nil
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
		if err != nil {
			return nil, err
		}
		return &enrolled{e: other}, nil
	}
	return &enrolled{e: e, group: g}, nil
}

// inTx is the service bound to transaction tx, its links service too, so
// what it writes commits or rolls back with the caller's change.
func (s *Service) inTx(tx *models.DB) *Service {
	c := *s
	c.DB = tx
	if s.Links != nil {
		l := *s.Links
		l.DB = tx
		c.Links = &l
	}
	return &c
}

// welcome finishes a new enrollment (res.group set) inside its
// transaction: the group's default links (Dub's createPartnerDefaultLinks,
// which skips a link it cannot make: logged here), then partner.enrolled
// (spec/webhooks.md §3.7) carrying them, so the event exists exactly when the
// enrollment does and lists the links POST /partners answers with.
func (s *Service) welcome(ctx context.Context, tx *models.DB, ws *models.Workspace, prog *models.Program, res *enrolled, in EnrollInput) error {
	if res == nil || res.group == nil {
		return nil
	}
	t := s.inTx(tx)
	if err := t.createDefaultLinks(ctx, ws, prog, res, in); err != nil {
		if apierr.As(err) == nil {
			return err
		}
		s.Log.Warn("partner default link not created", "workspace", ws.ID, "partner", res.e.PartnerID, "err", err)
	}
	return t.emitEnrolled(ctx, tx, ws, prog.ID, res.e.PartnerID)
}

// emitEnrolled writes partner.enrolled (spec/webhooks.md §3.7) for the partner's
// enrollment, in the caller's transaction.
func (s *Service) emitEnrolled(ctx context.Context, tx *models.DB, ws *models.Workspace, programID, partnerID string) error {
	ep, err := tx.EnrolledPartnerByID(ctx, ws.ID, programID, partnerID)
	if err != nil {
		return err
	}
	return webhooks.Emit(ctx, tx, ws.ID, webhooks.PartnerEnrolled, s.Links.Wire.EnrolledPartner(ep))
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

// createDefaultLinks creates one link per default link of a new
// enrollment's group (§3.3 step 5) through the links API, retrying a taken
// key with a random suffix.
func (s *Service) createDefaultLinks(ctx context.Context, ws *models.Workspace, prog *models.Program, res *enrolled, in EnrollInput) error {
	g := res.group
	if err := s.programDefaultLink(ctx, prog, g); err != nil {
		return err
	}
	if g == nil || !g.DefaultLinks.Valid || len(g.DefaultLinks.V) == 0 {
		return nil
	}
	return s.createDefaultLinksFor(ctx, ws, prog, res.e, g, g.DefaultLinks.V, in)
}

// programDefaultLink gives group g the program's link as its default link
// when the program has a domain and a destination and the group's default
// links were never set: Dub's program onboarding creates the default
// group with that default link, so every partner enrolled gets a link
// (issue 36 item 4). A group whose list was set, even to none, is kept.
func (s *Service) programDefaultLink(ctx context.Context, prog *models.Program, g *models.Group) error {
	if g == nil || g.DefaultLinks.Valid || prog.Domain == nil || prog.URL == nil || *prog.Domain == "" || *prog.URL == "" {
		return nil
	}
	g.DefaultLinks = models.Some([]models.DefaultLink{{Domain: *prog.Domain, URL: *prog.URL}})
	g.UpdatedAt = s.now()
	return s.DB.SaveGroup(ctx, g)
}

// createDefaultLinksFor creates the partner's links from dls, some of the
// group's default links: the key is the username, else the slug of the
// name, else of the e-mail's local part (with a random suffix when the
// group has several default links, or when the key is taken).
func (s *Service) createDefaultLinksFor(ctx context.Context, ws *models.Workspace, prog *models.Program, e *models.Enrollment, g *models.Group, dls []models.DefaultLink, in EnrollInput) error {
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
	prefix := ""
	if in.LinkProps != nil {
		prefix = strings.Trim(in.LinkProps.Prefix, "/")
	}
	for _, dl := range dls {
		key := slug
		if len(g.DefaultLinks.V) > 1 {
			key += randomSuffix()
		}
		for attempt := 0; ; attempt++ {
			full := key
			if prefix != "" {
				full = prefix + "/" + key
			}
			// Default links made on enrollment fire no link.created (spec/webhooks.md §3.2).
			_, err := s.createFromDefaultLink(ctx, links.Actor{Workspace: ws, UserID: in.UserID, Silent: true}, prog, e, g, dl, in.LinkProps, full)
			if err == nil {
				break
			}
			if !apierr.Is(err, apierr.Conflict) || attempt == 4 {
				return err
			}
			key += randomSuffix() // generate-partner-link.ts: the suffix goes on the current key
		}
	}
	return nil
}

// createFromDefaultLink creates a partner's link from one of its group's
// default links (§3.3 step 5): the default link's domain, its URL with the
// group's UTM template, and partnerGroupDefaultLinkId recorded.
func (s *Service) createFromDefaultLink(ctx context.Context, a links.Actor, prog *models.Program, e *models.Enrollment, g *models.Group, dl models.DefaultLink, props *LinkProps, key string) (*models.Link, error) {
	ws := a.Workspace
	l, err := s.Links.Create(ctx, a, partnerLinkInput(props, prog, e, dl.Domain, withUTM(dl.URL, g), key))
	if err != nil {
		return nil, err
	}
	if dl.ID == "" {
		return l, nil // a default link stored before default links had ids
	}
	if err := s.DB.SetPartnerGroupDefaultLink(ctx, ws.ID, l.ID, dl.ID); err != nil {
		return nil, fmt.Errorf("record default link of %s: %w", l.ID, err)
	}
	l.PartnerGroupDefaultLinkID = &dl.ID
	return l, nil
}

// MissingDefaultLink is the first of the group's default links the partner
// has no link from yet, if any.
func MissingDefaultLink(g *models.Group, partnerLinks []models.Link) (models.DefaultLink, bool) {
	if g == nil || !g.DefaultLinks.Valid {
		return models.DefaultLink{}, false
	}
	have := map[string]bool{}
	for _, l := range partnerLinks {
		if l.PartnerGroupDefaultLinkID != nil {
			have[*l.PartnerGroupDefaultLinkID] = true
		}
	}
	for _, dl := range g.DefaultLinks.V {
		if dl.ID != "" && !have[dl.ID] {
			return dl, true
		}
	}
	return models.DefaultLink{}, false
}

// CreateDefaultPartnerLink creates the partner's link from a group default
// link it does not have yet (the embed's "create a link" without a
// destination, §6.7), with the given key ("" = random).
func (s *Service) CreateDefaultPartnerLink(ctx context.Context, ws *models.Workspace, sel PartnerSelector, dl models.DefaultLink, key string) (*models.Link, error) {
	prog, g, e, err := s.partnerLinkContext(ctx, s.DB, ws, sel)
	if err != nil {
		return nil, err
	}
	return s.createFromDefaultLink(ctx, links.Actor{Workspace: ws}, prog, e, g, dl, nil, key)
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
	// UserID is the user the request acts as: the link's creator (userId).
	UserID *string
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
	return s.Links.Create(ctx, links.Actor{Workspace: ws, UserID: in.UserID}, partnerLinkInput(in.LinkProps, prog, e, *prog.Domain, withUTM(dest, g), in.Key))
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
		return s.CreatePartnerLink(ctx, ws, PartnerLinkInput{PartnerSelector: PartnerSelector{PartnerID: e.PartnerID}, URL: in.URL, Key: in.Key, LinkProps: in.LinkProps, UserID: in.UserID})
	}
	if err != nil {
		return nil, err
	}
	body := partnerLinkInput(in.LinkProps, prog, e, *prog.Domain, existing.URL, in.Key)
	if in.Key == "" {
		body.Key = field(existing.Key)
	}
	return s.Links.Update(ctx, links.Actor{Workspace: ws, UserID: in.UserID}, existing.ID, body)
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
		if tenant == "" {
			tenant = in.Partner.LinkProps.tenant()
		}
	}
	var token string
	var expires time.Time
	var res *enrolled
	var pin EnrollInput
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
				pin = *in.Partner
				pin.TenantID = tenant
				if res, err = s.enroll(ctx, tx, ws, prog, pin); err != nil {
					return err
				}
				// The new partner's links carry its tenantId (forced from
				// the enrollment), as linkProps.tenantId does in §5 step 3.
				if err := s.welcome(ctx, tx, ws, prog, res, pin); err != nil {
					return err
				}
				e = res.e
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
	if err != nil {
		return "", time.Time{}, err
	}
	return token, expires, nil
}
