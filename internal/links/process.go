package links

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Service runs the link, domain, tag and folder rules against the database.
// Every method takes the workspace from the authenticated principal.
type Service struct {
	DB *models.DB
	// ShortDomain is the configured default short domain (host[:port]); every
	// workspace may create links on it (spec/links.md §6.3).
	ShortDomain string
	// ReservedHosts are hosts that can never be registered as a domain (the
	// app and API hosts).
	ReservedHosts []string
	Now           func() time.Time
	// Wire writes the links' objects, short links and qrCode URLs
	// (internal/wire); app.Build sets it, the zero value writes https.
	Wire wire.Writer
	// Cache is told the (domain, key) of every link created, changed or
	// deleted, and every domain changed, after commit. May be nil.
	Cache Invalidator
	// Events is told of link.created, link.updated and link.deleted inside
	// the transaction of the change (spec/webhooks.md §3.2: single operations
	// only, never bulk ones or silent actors). May be nil.
	Events Events
}

// Events receives the link events; internal/webhooks' LinkEvents writes
// them to the webhook outbox. old is the stored link before an update (an
// update that changes nothing emits nothing), nil otherwise.
type Events interface {
	LinkEvent(ctx context.Context, tx *models.DB, event string, l, old *models.Link) error
}

// The link events.
const (
	EventCreated = "link.created"
	EventUpdated = "link.updated"
	EventDeleted = "link.deleted"
)

// Invalidator drops cached links (internal/linkcache's cache satisfies it).
type Invalidator interface {
	Invalidate(domain, key string)
	InvalidateDomain(domain string)
}

// Actor is who makes a change: the workspace and the user behind the key.
type Actor struct {
	Workspace *models.Workspace
	UserID    *string
	// Role is the user's workspace role when the caller knows it (the
	// console); "" makes folder checks look it up (Service.Role).
	Role models.Role
	// Silent makes the change fire no webhook event: the operations Dub
	// does not announce (upsert's create path, partner default links,
	// the dashboard's archive and delete, spec/webhooks.md §3.2).
	Silent bool
}

// emits reports whether a single operation by a fires webhook events.
func (s *Service) emits(a Actor) bool { return s.Events != nil && !a.Silent }

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

func (s *Service) changed(domain, key string) {
	if s.Cache != nil {
		s.Cache.Invalidate(domain, key)
	}
}

func (s *Service) domainChanged(domain string) {
	if s.Cache != nil {
		s.Cache.InvalidateDomain(domain)
	}
}

// DefaultDomain is the configured default short domain, lower-case.
func (s *Service) DefaultDomain() string { return strings.ToLower(s.ShortDomain) }

// IsDefaultDomain reports the shared default short domain.
func (s *Service) IsDefaultDomain(d string) bool { return strings.EqualFold(d, s.ShortDomain) }

// The fixed business-rule messages (spec/links.md §4).
const (
	msgInvalidURL       = "Invalid destination URL"
	msgMissingURL       = "Missing destination URL"
	msgDomainNotOwned   = "Domain does not belong to workspace."
	msgABNeedsTracking  = "Conversion tracking must be enabled to use A/B testing."
	msgFolderFree       = "You can't add a folder to a link on a free plan."
	msgInvalidExpiry    = "Invalid expiration date."
	msgInvalidTestEnd   = "Invalid test completion date."
	msgInvalidTestStart = "Invalid test start date."
	msgRootFree         = "You can only set a redirect for a root domain link on a Pro plan and above. Upgrade to Pro to use this feature."
	msgRootDelete       = "You can't delete a custom domain link. You can delete the domain instead."
)

// mode tunes Process for the operation (spec/links.md §5.6, §5.9, §5.10).
type mode struct {
	existing   *models.Link // update: the stored link
	bulk       bool         // bulk create: no externalId check, tag union, bulk messages
	skipUnique bool         // bulk update: no key or externalId checks
	bodyURL    bool         // update: the body carried url
	bodyUTM    [5]bool      // update: which utm_* the body carried
}

// prepared is a processed link ready to store.
type prepared struct {
	link   *models.Link
	tagIDs *[]string // nil: leave the tags as they are
}

// workspaceDomains loads the workspace's domains once per request.
func (s *Service) workspaceDomains(ctx context.Context, ws *models.Workspace) ([]models.Domain, error) {
	return s.DB.WorkspaceDomains(ctx, ws.ID)
}

// resolveDomain picks the link's domain: the given one, else the primary
// domain, else the default short domain; it must be the workspace's or the
// default one.
func (s *Service) resolveDomain(given string, domains []models.Domain) (string, error) {
	given = strings.ToLower(strings.TrimSpace(given))
	if given == "" {
		for _, d := range domains {
			if d.Primary {
				return d.Slug, nil
			}
		}
		return s.DefaultDomain(), nil
	}
	if s.IsDefaultDomain(given) {
		return given, nil
	}
	for _, d := range domains {
		if d.Slug == given {
			return given, nil
		}
	}
	return "", apierr.New(apierr.Forbidden, msgDomainNotOwned)
}

// process applies spec/links.md §4 to an effective input and builds the link.
func (s *Service) process(ctx context.Context, a Actor, in *Input, domains []models.Domain, m mode) (*prepared, error) {
	ws := a.Workspace
	old := m.existing
	l := &models.Link{WorkspaceID: ws.ID, UserID: a.UserID}
	if old != nil {
		cp := *old
		cp.Tags = nil
		l = &cp
	}

	// §4.1 destination.
	dest := in.URL.Value
	key := in.Key.Value
	if old != nil && old.IsRoot() {
		key = models.RootKey
	}
	if dest != "" && (!ValidURL(dest) || UnsafeScheme(dest)) {
		return nil, apierr.New(apierr.Unprocessable, msgInvalidURL)
	}
	if dest == "" && key != models.RootKey {
		return nil, apierr.New(apierr.BadRequest, msgMissingURL)
	}
	dest = s.applyUTM(dest, in, old, m)

	// §4.2 domain and plan.
	domain := in.Domain.Value
	if old != nil && (old.IsRoot() || !in.Domain.Has()) {
		domain = old.Domain
	}
	resolved, err := s.resolveDomain(domain, domains)
	switch {
	case err == nil:
		domain = resolved
	case old != nil && strings.EqualFold(domain, old.Domain):
		domain = old.Domain // a link keeps its domain even if that is no longer the workspace's
	default:
		return nil, err
	}
	if err := planGates(ws, in, key, dest); err != nil {
		return nil, err
	}
	if in.TestVariants.Has() && !in.TrackConversion.Value {
		return nil, apierr.New(apierr.Unprocessable, msgABNeedsTracking)
	}

	// §4.3 key.
	if key, err = s.processKey(ctx, in, key, domain, old, m); err != nil {
		return nil, err
	}

	// §4.4 externalId.
	ext := in.ExternalID.Ptr()
	if err := s.checkExternalID(ctx, ws.ID, ext, old, m); err != nil {
		return nil, err
	}

	// §4.5 tags.
	tagIDs, err := s.resolveTags(ctx, ws.ID, in, m.bulk)
	if err != nil {
		return nil, err
	}

	// §4.6 folder.
	folderID := in.FolderID.Ptr()
	if err := s.checkLinkFolder(ctx, a, folderID, old, m); err != nil {
		return nil, err
	}
	refs, err := s.checkProgram(ctx, ws, in, folderID, old)
	if err != nil {
		return nil, err
	}

	// §4.7 dates and the rest.
	expiresAt, err := parseOptTime(in.ExpiresAt, msgInvalidExpiry)
	if err != nil {
		return nil, err
	}
	testStarted, err := parseOptTime(in.TestStartedAt, msgInvalidTestStart)
	if err != nil {
		return nil, err
	}
	testCompleted, err := parseOptTime(in.TestCompletedAt, msgInvalidTestEnd)
	if err != nil {
		return nil, err
	}
	image := in.Image.Ptr()
	if image != nil {
		if strings.HasPrefix(strings.ToLower(*image), "data:") {
			if m.bulk {
				return nil, apierr.New(apierr.Unprocessable, "You cannot upload custom link preview images with bulk link creation.")
			}
			return nil, apierr.New(apierr.Unprocessable, "Uploading images is not supported: host the image and send its public https URL.")
		}
		if !PublicHTTPURL(*image) {
			return nil, apierr.New(apierr.Unprocessable, "Invalid image URL: use a public http(s) URL (no localhost or IP address).")
		}
	}
	hooks, err := s.checkWebhookIDs(ctx, ws, in)
	if err != nil {
		return nil, err
	}

	l.Domain, l.Key, l.URL = domain, key, dest
	fillLink(l, in, dest)
	l.ExternalID, l.ExpiresAt, l.Image, l.FolderID = ext, expiresAt, image, refs.folderID
	l.ProgramID, l.PartnerID = refs.programID, refs.partnerID
	l.TestStartedAt, l.TestCompletedAt = testStarted, testCompleted
	l.WebhookIDs = hooks
	return &prepared{link: l, tagIDs: tagIDs}, nil
}

// processKey is §4.3: a random key when none is given, else the given key
// as checkKey answers for it (unless the link keeps its key).
func (s *Service) processKey(ctx context.Context, in *Input, key, domain string, old *models.Link, m mode) (string, error) {
	if key == "" {
		return s.randomKey(ctx, domain, in.KeyLength.Value, in.Prefix.Value)
	}
	if unchanged := old != nil && old.Domain == domain && strings.EqualFold(old.Key, key); unchanged || m.skipUnique {
		return key, nil
	}
	return s.checkKey(ctx, domain, key, old)
}

// checkKey is the one owner of key availability (spec/links.md §4.3): it
// answers key normalised, or the 4xx that refuses it — 422 for a key that
// does not normalise, 403 for a reserved path, 409 "Duplicate key" for
// upstream's reserved slugs on the shared domain and for a key another link
// of the domain holds (case-insensitively; old, the link being edited, does
// not count). The database's unique index on
// (domain, lower(key)) is the only backstop, for a key taken between this
// check and the write (models.DB.linkConflict maps it to the same 409).
func (s *Service) checkKey(ctx context.Context, domain, key string, old *models.Link) (string, error) {
	key, err := shortlink.NormalizeKey(key)
	if err != nil {
		return "", err
	}
	if err := shortlink.CheckReservedKey(key, s.IsDefaultDomain(domain)); err != nil {
		return "", err
	}
	if old != nil && old.Domain == domain && strings.EqualFold(old.Key, key) {
		return key, nil
	}
	taken, err := s.DB.LinkExists(ctx, domain, key)
	if err != nil {
		return "", err
	}
	if taken {
		return "", apierr.New(apierr.Conflict, models.MsgDuplicateKey)
	}
	return key, nil
}

// checkExternalID is §4.4: an externalId is unique in the workspace.
func (s *Service) checkExternalID(ctx context.Context, workspaceID string, ext *string, old *models.Link, m mode) error {
	if ext != nil && !m.bulk && !m.skipUnique && (old == nil || old.ExternalID == nil || !strings.EqualFold(*old.ExternalID, *ext)) {
		exceptID := ""
		if old != nil {
			exceptID = old.ID
		}
		taken, err := s.DB.ExternalIDTaken(ctx, workspaceID, *ext, exceptID)
		if err != nil {
			return err
		}
		if taken {
			return apierr.New(apierr.Conflict, models.MsgDuplicateExternalID)
		}
	}
	return nil
}

// fillLink copies the validated input's plain fields onto l.
func fillLink(l *models.Link, in *Input, dest string) {
	l.TrackConversion = in.TrackConversion.Value
	l.TenantID = in.TenantID.Ptr()
	l.ProgramID = in.ProgramID.Ptr()
	l.PartnerID = in.PartnerID.Ptr()
	l.Archived = in.Archived.Value
	l.ExpiredURL = in.ExpiredURL.Ptr()
	l.Password = in.Password.Ptr()
	l.Proxy = in.Proxy.Value
	l.Title = truncate(in.Title.Ptr(), 120)
	l.Description = truncate(in.Description.Ptr(), 240)
	l.Video = in.Video.Ptr()
	l.Rewrite = in.Rewrite.Value
	l.DoIndex = in.DoIndex.Value
	l.IOS = in.IOS.Ptr()
	l.Android = in.Android.Ptr()
	l.Geo = nil
	if in.Geo.Has() {
		l.Geo = models.Geo(in.Geo.Value)
	}
	l.PublicStats = in.PublicStats.Value
	l.Comments = in.Comments.Ptr()
	utm := UTMFromURL(dest)
	l.UTMSource, l.UTMMedium, l.UTMCampaign, l.UTMTerm, l.UTMContent =
		utm["utm_source"], utm["utm_medium"], utm["utm_campaign"], utm["utm_term"], utm["utm_content"]
	l.TestVariants = nil
	if in.TestVariants.Has() {
		l.TestVariants = in.TestVariants.Value
	}
}

// applyUTM writes the utm_* and ref fields into the destination (§4.8). On
// create only the fields sent are applied. On update the stored UTM values
// are carried onto a new url (upstream keeps them), fields sent win, and a
// param the new url already carries is kept rather than stripped.
func (s *Service) applyUTM(dest string, in *Input, old *models.Link, m mode) string {
	values := map[string]*string{}
	var keys []string
	for i, k := range UTMKeys {
		f := in.UTM[i]
		switch {
		case old == nil && f.Set, old != nil && m.bodyUTM[i]:
			keys = append(keys, k)
			values[k] = f.Ptr()
		case old != nil && m.bodyURL && f.Has():
			if _, has := UTMFromURL(dest)[k]; !has {
				keys = append(keys, k)
				values[k] = f.Ptr()
			}
		}
	}
	if in.Ref.Set {
		keys = append(keys, "ref")
		values["ref"] = in.Ref.Ptr()
	}
	return ApplyUTM(dest, keys, values)
}

var proFeatures = []struct {
	name string
	on   func(in *Input) bool
}{
	{"custom social media cards", func(in *Input) bool { return in.Proxy.Value }},
	{"password-protected links", func(in *Input) bool { return in.Password.Has() }},
	{"link cloaking", func(in *Input) bool { return in.Rewrite.Value }},
	{"link expiration", func(in *Input) bool { return in.ExpiresAt.Has() }},
	{"iOS targeting", func(in *Input) bool { return in.IOS.Has() }},
	{"Android targeting", func(in *Input) bool { return in.Android.Has() }},
	{"geo targeting", func(in *Input) bool { return in.Geo.Has() && len(in.Geo.Value) > 0 }},
	{"search engine indexing", func(in *Input) bool { return in.DoIndex.Value }},
}

// checkWebhookIDs is process-link.ts's webhook check: a non-empty
// webhookIds needs a Business plan, is deduplicated, and every id must be
// one of the workspace's webhooks (422 naming the others). It returns the
// ids to store (nil: the body did not set them; an explicit [] or null
// clears them, as upstream's deleteMany on update).
func (s *Service) checkWebhookIDs(ctx context.Context, ws *models.Workspace, in *Input) ([]string, error) {
	if !in.WebhookIDs.Has() {
		return nil, nil
	}
	if len(in.WebhookIDs.Value) == 0 {
		return []string{}, nil
	}
	if !ws.Plan.AtLeast(models.PlanBusiness) {
		return nil, apierr.New(apierr.Forbidden, "You can only use webhooks on a Business plan and above. Upgrade to Business to use this feature.")
	}
	var ids []string
	for _, id := range in.WebhookIDs.Value {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	bad, err := s.DB.UnknownWebhookIDs(ctx, ws.ID, ids)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		return nil, apierr.Newf(apierr.Unprocessable, "Invalid webhookIds detected: %s", strings.Join(bad, ", "))
	}
	return ids, nil
}

// planGates are upstream's plan rules for link features (spec/links.md §4.2).
func planGates(ws *models.Workspace, in *Input, key, dest string) error {
	if !ws.Plan.AtLeast(models.PlanPro) {
		if key == models.RootKey && dest != "" {
			return apierr.New(apierr.Forbidden, msgRootFree)
		}
		var used []string
		for _, f := range proFeatures {
			if f.on(in) {
				used = append(used, f.name)
			}
		}
		if len(used) > 0 {
			return apierr.Newf(apierr.Forbidden, "You can only use %s on a Pro plan and above. Upgrade to Pro to use these features.", joinAnd(used, ", and "))
		}
	}
	if !ws.Plan.AtLeast(models.PlanBusiness) {
		var used []string
		if in.TestVariants.Has() {
			used = append(used, "A/B testing")
		}
		if in.TrackConversion.Value {
			used = append(used, "conversion tracking")
		}
		if len(used) > 0 {
			return apierr.Newf(apierr.Forbidden, "You can only use %s on a Business plan and above. Upgrade to Business to use these features.", strings.Join(used, " and "))
		}
	}
	return nil
}

// joinAnd joins "a, b, and c" (two items: "a and b").
func joinAnd(items []string, last string) string {
	switch len(items) {
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + last + items[len(items)-1]
}

func (s *Service) randomKey(ctx context.Context, domain string, n int, prefix string) (string, error) {
	for range 10 {
		k := RandomKey(n, prefix)
		taken, err := s.DB.LinkExists(ctx, domain, k)
		if err != nil {
			return "", err
		}
		if !taken {
			return k, nil
		}
	}
	return "", apierr.New(apierr.Conflict, "Could not find a free random key: try a longer keyLength.")
}

// resolveTags validates the tag fields (§4.5) and returns the tag ids to
// set, or nil when the body does not touch tags. Single writes use tagIds
// over tagNames over tagId; bulk create applies tagIds and tagNames together.
func (s *Service) resolveTags(ctx context.Context, workspaceID string, in *Input, bulk bool) (*[]string, error) {
	var out []string
	byIDs := func(want []string) error {
		got, err := s.DB.TagsByIDs(ctx, workspaceID, want)
		if err != nil {
			return err
		}
		if bad := missing(want, got, func(t models.Tag) string { return t.ID }, false); len(bad) > 0 {
			return apierr.Newf(apierr.Unprocessable, "Invalid tagIds detected: %s", strings.Join(bad, ", "))
		}
		for _, t := range got {
			out = appendUnique(out, t.ID)
		}
		return nil
	}
	byNames := func(want []string) error {
		got, err := s.DB.TagsByNames(ctx, workspaceID, want)
		if err != nil {
			return err
		}
		if bad := missing(want, got, func(t models.Tag) string { return t.Name }, true); len(bad) > 0 {
			return apierr.Newf(apierr.Unprocessable, "Invalid tagNames detected: %s", strings.Join(bad, ", "))
		}
		for _, t := range got {
			out = appendUnique(out, t.ID)
		}
		return nil
	}
	switch {
	case bulk && (in.TagIDs.Set || in.TagNames.Set):
		if err := byIDs(in.TagIDs.Value); err != nil {
			return nil, err
		}
		if err := byNames(in.TagNames.Value); err != nil {
			return nil, err
		}
	case in.TagIDs.Set:
		if err := byIDs(in.TagIDs.Value); err != nil {
			return nil, err
		}
	case in.TagNames.Set:
		if err := byNames(in.TagNames.Value); err != nil {
			return nil, err
		}
	case in.TagID.Set:
		if in.TagID.Has() && in.TagID.Value != "" {
			if err := byIDs([]string{in.TagID.Value}); err != nil {
				return nil, err
			}
		}
	default:
		return nil, nil
	}
	if out == nil {
		out = []string{}
	}
	return &out, nil
}

func missing(want []string, got []models.Tag, id func(models.Tag) string, fold bool) []string {
	have := map[string]bool{}
	for _, t := range got {
		k := id(t)
		if fold {
			k = strings.ToLower(k)
		}
		have[k] = true
	}
	var bad []string
	for _, w := range want {
		k := w
		if fold {
			k = strings.ToLower(k)
		}
		if !have[k] {
			bad = append(bad, w)
		}
	}
	return bad
}

func appendUnique(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// truncate cuts a title or description to n characters (n-3 + "...").
func truncate(s *string, n int) *string {
	if s == nil {
		return nil
	}
	r := []rune(*s)
	if len(r) <= n {
		return s
	}
	t := string(r[:n-3]) + "..."
	return &t
}

var timeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02",
}

// ParseTime accepts RFC 3339 / ISO 8601 with or without fraction and zone
// (no zone means UTC), and date-only strings (spec/links.md §13).
func ParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func parseOptTime(f Field[string], msg string) (*time.Time, error) {
	if !f.Has() {
		return nil, nil
	}
	t, ok := ParseTime(f.Value)
	if !ok {
		return nil, apierr.New(apierr.Unprocessable, msg)
	}
	return &t, nil
}

// fromLink is the stored link as an update's starting payload.
func fromLink(l *models.Link) *Input {
	ts := func(t *time.Time) Field[string] {
		if t == nil {
			return Field[string]{Set: true, Null: true}
		}
		return value(t.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	in := &Input{
		URL: value(l.URL), Domain: value(l.Domain), Key: value(l.Key),
		ExternalID: nullable(l.ExternalID), TenantID: nullable(l.TenantID), ProgramID: nullable(l.ProgramID),
		PartnerID: nullable(l.PartnerID), TrackConversion: value(l.TrackConversion), Archived: value(l.Archived),
		FolderID: nullable(l.FolderID), Comments: nullable(l.Comments), ExpiresAt: ts(l.ExpiresAt),
		ExpiredURL: nullable(l.ExpiredURL), Password: nullable(l.Password), Proxy: value(l.Proxy),
		Title: nullable(l.Title), Description: nullable(l.Description), Image: nullable(l.Image),
		Video: nullable(l.Video), Rewrite: value(l.Rewrite), IOS: nullable(l.IOS), Android: nullable(l.Android),
		DoIndex: value(l.DoIndex), TestStartedAt: ts(l.TestStartedAt), TestCompletedAt: ts(l.TestCompletedAt),
		PublicStats: value(l.PublicStats),
	}
	if l.Geo != nil {
		in.Geo = value(map[string]string(l.Geo))
	} else {
		in.Geo = Field[map[string]string]{Set: true, Null: true}
	}
	if l.TestVariants != nil {
		in.TestVariants = value([]models.TestVariant(l.TestVariants))
	} else {
		in.TestVariants = Field[[]models.TestVariant]{Set: true, Null: true}
	}
	for i, p := range []*string{l.UTMSource, l.UTMMedium, l.UTMCampaign, l.UTMTerm, l.UTMContent} {
		in.UTM[i] = nullable(p)
	}
	return in
}

// merge overlays the fields a body carries on a stored link's payload.
func merge(l *models.Link, body *Input) (*Input, mode) {
	in := fromLink(l)
	m := mode{existing: l, bodyURL: body.URL.Set}
	set := func(dst *Field[string], src Field[string]) {
		if src.Set {
			*dst = src
		}
	}
	setB := func(dst *Field[bool], src Field[bool]) {
		if src.Set {
			*dst = src
		}
	}
	set(&in.URL, body.URL)
	set(&in.Domain, body.Domain)
	set(&in.Key, body.Key)
	set(&in.ExternalID, body.ExternalID)
	set(&in.TenantID, body.TenantID)
	set(&in.ProgramID, body.ProgramID)
	set(&in.PartnerID, body.PartnerID)
	setB(&in.TrackConversion, body.TrackConversion)
	setB(&in.Archived, body.Archived)
	in.TagIDs, in.TagNames, in.TagID = body.TagIDs, body.TagNames, body.TagID
	set(&in.FolderID, body.FolderID)
	set(&in.Comments, body.Comments)
	set(&in.ExpiresAt, body.ExpiresAt)
	set(&in.ExpiredURL, body.ExpiredURL)
	set(&in.Password, body.Password)
	setB(&in.Proxy, body.Proxy)
	set(&in.Title, body.Title)
	set(&in.Description, body.Description)
	set(&in.Image, body.Image)
	set(&in.Video, body.Video)
	setB(&in.Rewrite, body.Rewrite)
	set(&in.IOS, body.IOS)
	set(&in.Android, body.Android)
	if body.Geo.Set {
		in.Geo = body.Geo
	}
	setB(&in.DoIndex, body.DoIndex)
	for i := range UTMKeys {
		if body.UTM[i].Set {
			in.UTM[i] = body.UTM[i]
			m.bodyUTM[i] = true
		}
	}
	in.Ref = body.Ref
	if body.TestVariants.Set {
		in.TestVariants = body.TestVariants
	}
	set(&in.TestStartedAt, body.TestStartedAt)
	set(&in.TestCompletedAt, body.TestCompletedAt)
	setB(&in.PublicStats, body.PublicStats)
	in.WebhookIDs = body.WebhookIDs
	in.Raw = body.Raw
	return in, m
}

var domainRe = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]{2,}$`)

// ValidDomainName reports a syntactically valid domain name (spec/links.md §6.2).
func ValidDomainName(s string) bool { return len(s) <= 190 && domainRe.MatchString(s) }
