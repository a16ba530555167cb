package shortlink

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/linkcache"
	"github.com/relinkhq/relink/internal/useragent"
	"github.com/relinkhq/relink/models"
)

// Resolved is what the link cache holds for a (domain, key): the link's
// redirect-relevant fields (nil when there is no usable link) and the
// domain's own not-found and expired destinations. Cached values are shared
// between requests and never modified.
type Resolved struct {
	Link *Target

	DomainNotFoundURL string
	DomainExpiredURL  string
	// Disabled is set when the link exists but is disabled (#6); Link is
	// then nil, as for a missing link.
	Disabled bool
}

// Target is the redirect's view of a link (spec/links.md §2, §10).
type Target struct {
	ID, WorkspaceID, Domain, Key, URL string
	TrackConversion                   bool
	Partner                           bool // programId and partnerId set
	ProgramID, PartnerID              string
	ExpiresAt                         time.Time
	ExpiredURL                        string
	Password                          string
	Proxy, Rewrite, DoIndex           bool
	Title, Description, Image, Video  string
	IOS, Android                      string
	IOSStore, AndroidStore            string // appStore of IOS and Android, computed once when cached
	Geo                               map[string]string
	TestVariants                      []models.TestVariant
	TestCompletedAt                   time.Time
}

// Expired reports whether the link's expiresAt has passed at now.
func (t *Target) Expired(now time.Time) bool {
	return !t.ExpiresAt.IsZero() && !t.ExpiresAt.After(now)
}

// StoreTarget is #12/#13's choice for a user agent: the link's iOS or
// Android target when it has one for the visitor's OS (else ""), and the
// store it is a listing of (else "").
func (t *Target) StoreTarget(ua string) (target, store string) {
	switch {
	case t.IOS != "" && useragent.IsIOS(ua):
		return t.IOS, t.IOSStore
	case t.Android != "" && useragent.IsAndroid(ua):
		return t.Android, t.AndroidStore
	}
	return "", ""
}

// Root reports the domain's root link.
func (t *Target) Root() bool { return t.Key == models.RootKey }

// Cache is the link cache the redirect reads: (domain, LookupKey) → Resolved.
type Cache = linkcache.Cache[*Resolved]

// NewCache builds the link cache over db.
func NewCache(db *models.DB, opt linkcache.Options) (*Cache, error) {
	return linkcache.New(Loader(db), opt)
}

// Loader reads a (domain, key) from the database for the cache: the link
// (disabled links count as missing, spec/links.md §10.2 #6) and the domain's
// settings. found is false when there is no usable link.
func Loader(db *models.DB) linkcache.Loader[*Resolved] {
	return func(ctx context.Context, domain, key string) (*Resolved, bool, error) {
		r := &Resolved{}
		d, err := db.DomainByName(ctx, domain)
		switch {
		case err == nil:
			r.DomainNotFoundURL, r.DomainExpiredURL = deref(d.NotFoundURL), deref(d.ExpiredURL)
		case !apierr.Is(err, apierr.NotFound):
			return nil, false, err
		}
		l, err := db.LinkByDomainKey(ctx, domain, key)
		if err != nil {
			if apierr.Is(err, apierr.NotFound) {
				return r, false, nil
			}
			return nil, false, err
		}
		if l.DisabledAt != nil {
			r.Disabled = true
			return r, false, nil
		}
		r.Link = targetOf(l)
		return r, true, nil
	}
}

func targetOf(l *models.Link) *Target {
	t := &Target{
		ID: l.ID, WorkspaceID: l.WorkspaceID, Domain: l.Domain, Key: l.Key, URL: l.URL,
		TrackConversion: l.TrackConversion, Partner: deref(l.ProgramID) != "" && deref(l.PartnerID) != "",
		ProgramID: deref(l.ProgramID), PartnerID: deref(l.PartnerID),
		ExpiredURL: deref(l.ExpiredURL), Password: deref(l.Password),
		Proxy: l.Proxy, Rewrite: l.Rewrite, DoIndex: l.DoIndex,
		Title: deref(l.Title), Description: deref(l.Description), Image: deref(l.Image), Video: deref(l.Video),
		IOS: deref(l.IOS), Android: deref(l.Android), Geo: l.Geo, TestVariants: l.TestVariants,
	}
	t.IOSStore, t.AndroidStore = appStore(t.IOS), appStore(t.Android)
	if l.ExpiresAt != nil {
		t.ExpiresAt = *l.ExpiresAt
	}
	if l.TestCompletedAt != nil {
		t.TestCompletedAt = *l.TestCompletedAt
	}
	return t
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// appStore names the store a target is a listing of: "the App Store" for
// apps.apple.com and itunes.apple.com, "Google Play" for play.google.com's
// app pages, else "".
func appStore(target string) string {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	switch strings.ToLower(u.Hostname()) {
	case "apps.apple.com", "itunes.apple.com":
		return "the App Store"
	case "play.google.com":
		if strings.HasPrefix(u.Path, "/store/apps") {
			return "Google Play"
		}
	}
	return ""
}
