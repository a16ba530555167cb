// Package referrals is the embedded referral dashboard's domain logic
// (spec/partners-and-embed.md §6): it resolves a public embed token to one
// enrollment and answers everything the dashboard shows for it — links with
// their counters, stats, earnings, the earnings chart, the anonymised
// leaderboard, rewards and FAQ — and the partner's own link writes within the
// program's rules. Every read is scoped by the token's workspace, program and
// partner; nothing here takes an id from the request that could widen it.
package referrals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Error messages of the data API (§6.7).
const (
	MsgTokenMissing = "Embed public token not found in the request."
	MsgTokenInvalid = "Invalid embed public token."
	MsgNoGroup      = "This partner is not yet in any partner group. Please contact the program owner."
	MsgInactive     = "Your enrollment in this program is not active."
)

// Service answers the dashboard's questions.
type Service struct {
	DB          *models.DB
	Conversions *conversions.Service // link writes and analytics
	// Analytics answers the partner's events (Events); nil: no events.
	Analytics analytics.Engine
	Now       func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// Session is what a valid token grants: one enrollment, read-only apart
// from the partner's own links.
type Session struct {
	Workspace  *models.Workspace
	Program    *models.Program
	Partner    *models.Partner
	Enrollment *models.Enrollment
	Group      *models.Group // nil: the enrollment has no group
	ExpiresAt  time.Time
	Embed      EmbedData
}

// Active reports an enrollment with the full dashboard (approved, archived).
func (s *Session) Active() bool {
	return s.Enrollment.Status == models.EnrollmentApproved || s.Enrollment.Status == models.EnrollmentArchived
}

// FAQItem is one entry of the FAQ.
type FAQItem struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Content string `json:"content"`
}

// EmbedData is program.embedData (§6.6).
type EmbedData struct {
	FAQ         *[]FAQItem `json:"faq"`
	Leaderboard struct {
		Mode string `json:"mode"`
	} `json:"leaderboard"`
	HidePoweredByBadge bool    `json:"hidePoweredByBadge"`
	HideEarnings       bool    `json:"hideEarnings"`
	CustomTermsURL     *string `json:"customTermsUrl"`
}

// LeaderboardEnabled reports whether the leaderboard is shown.
func (e EmbedData) LeaderboardEnabled() bool { return e.Leaderboard.Mode != "disabled" }

// ErrTokenExpired is the cause of the 401 for a real token past its expiry:
// the API answers "invalid" for it as for any unknown token (§6.7), the
// dashboard says "expired" (TokenExpired).
var ErrTokenExpired = errors.New("embed token expired")

// TokenExpired reports whether err is the 401 of an expired token.
func TokenExpired(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && errors.Is(e.Cause, ErrTokenExpired)
}

// Open resolves a token. An empty token is 401 "not found in the request";
// an unknown, malformed or expired one 401 "invalid" (an expired one with
// ErrTokenExpired as its cause).
func (s *Service) Open(ctx context.Context, token string) (*Session, error) {
	if token == "" {
		return nil, apierr.New(apierr.Unauthorized, MsgTokenMissing)
	}
	if !models.WellFormedEmbedToken(token) {
		return nil, apierr.New(apierr.Unauthorized, MsgTokenInvalid)
	}
	t, err := s.DB.EmbedTokenByToken(ctx, token, s.now())
	if models.IsNotFound(err) {
		expired, xerr := s.DB.EmbedTokenExpired(ctx, token, s.now())
		if xerr != nil {
			return nil, fmt.Errorf("open embed token: %w", xerr)
		}
		if expired {
			return nil, &apierr.Error{Code: apierr.Unauthorized, Message: MsgTokenInvalid, Cause: ErrTokenExpired}
		}
		return nil, apierr.New(apierr.Unauthorized, MsgTokenInvalid)
	}
	if err != nil {
		return nil, fmt.Errorf("open embed token: %w", err)
	}
	sess, err := s.load(ctx, t.WorkspaceID, t.ProgramID, t.EnrollmentID, t.PartnerID)
	if err != nil {
		return nil, err
	}
	sess.ExpiresAt = t.ExpiresAt
	return sess, nil
}

// OpenEnrollment is the partner portal's session for one enrollment the
// signed-in address owns (the caller checked it): the same session a token
// of that enrollment opens, without an expiry. A vanished row is 404.
func (s *Service) OpenEnrollment(ctx context.Context, workspaceID, programID, enrollmentID, partnerID string) (*Session, error) {
	sess, err := s.load(ctx, workspaceID, programID, enrollmentID, partnerID)
	if apierr.Is(err, apierr.Unauthorized) {
		return nil, apierr.New(apierr.NotFound, "Program not found.")
	}
	return sess, err
}

// load reads everything a session holds, each row scoped by the workspace.
func (s *Service) load(ctx context.Context, workspaceID, programID, enrollmentID, partnerID string) (*Session, error) {
	sess := &Session{}
	var err error
	if sess.Workspace, err = s.DB.WorkspaceByID(ctx, workspaceID); err != nil {
		return nil, invalidIfMissing(err)
	}
	if sess.Program, err = s.DB.DefaultProgram(ctx, workspaceID); err != nil || sess.Program.ID != programID {
		return nil, invalidIfMissing(err)
	}
	if sess.Enrollment, err = s.DB.EnrollmentByID(ctx, workspaceID, enrollmentID); err != nil || sess.Enrollment.PartnerID != partnerID {
		return nil, invalidIfMissing(err)
	}
	if sess.Partner, err = s.DB.PartnerByID(ctx, workspaceID, partnerID); err != nil {
		return nil, invalidIfMissing(err)
	}
	if sess.Enrollment.GroupID != nil {
		g, err := s.DB.GroupByID(ctx, workspaceID, *sess.Enrollment.GroupID)
		if err != nil && !models.IsNotFound(err) {
			return nil, err
		}
		if err == nil {
			sess.Group = g
		}
	}
	if sess.Program.EmbedData != nil && *sess.Program.EmbedData != "" {
		// A malformed setting falls back to the defaults.
		_ = json.Unmarshal([]byte(*sess.Program.EmbedData), &sess.Embed)
	}
	return sess, nil
}

// invalidIfMissing turns a vanished row behind a token into the token error.
func invalidIfMissing(err error) error {
	if err == nil || models.IsNotFound(err) {
		return apierr.New(apierr.Unauthorized, MsgTokenInvalid)
	}
	return err
}

// RequireGroup is the data API's 403 for an enrollment without a group.
func (s *Session) RequireGroup() error {
	if s.Group == nil {
		return apierr.New(apierr.Forbidden, MsgNoGroup)
	}
	return nil
}

// Links lists the partner's links in the program, oldest first.
func (s *Service) Links(ctx context.Context, sess *Session) ([]wire.ReferralLink, error) {
	ls, err := s.DB.PartnerLinks(ctx, sess.Workspace.ID, sess.Program.ID, sess.Partner.ID)
	if err != nil {
		return nil, err
	}
	out := make([]wire.ReferralLink, len(ls))
	for i := range ls {
		out[i] = s.linkOf(sess, &ls[i])
	}
	return out, nil
}

// SortLinks orders links as the Links tab does: sale amount, leads, clicks,
// all descending.
func SortLinks(ls []wire.ReferralLink) {
	sort.SliceStable(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		if a.SaleAmount != b.SaleAmount {
			return a.SaleAmount > b.SaleAmount
		}
		if a.Leads != b.Leads {
			return a.Leads > b.Leads
		}
		return a.Clicks > b.Clicks
	})
}

func (s *Service) linkOf(sess *Session, l *models.Link) wire.ReferralLink {
	out := wire.ReferralLink{ID: l.ID, Domain: l.Domain, Key: l.Key, URL: l.URL, ShortLink: s.Conversions.Links.Wire.LinkShort(l), Clicks: l.Clicks,
		Leads: l.Leads, Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount, PartnerGroupDefaultLinkID: l.PartnerGroupDefaultLinkID}
	out.Copy = out.ShortLink
	if sess.Group != nil && sess.Group.LinkStructure == "query" {
		// §6.4: <destination origin + path, trailing slash removed>?via=<key>.
		dest := l.URL
		if i := strings.IndexAny(dest, "?#"); i >= 0 {
			dest = dest[:i]
		}
		out.Copy = strings.TrimSuffix(dest, "/") + "?via=" + l.Key
	}
	out.Display = strings.TrimPrefix(strings.TrimPrefix(out.Copy, "https://"), "http://")
	return out
}

// Stats are the activity card's totals over the partner's links.
type Stats struct {
	Clicks, Leads, Conversions, Sales, SaleAmount int64
}

// StatsOf sums the links' counters.
func StatsOf(ls []wire.ReferralLink) Stats {
	var st Stats
	for _, l := range ls {
		st.Clicks += l.Clicks
		st.Leads += l.Leads
		st.Conversions += l.Conversions
		st.Sales += l.Sales
		st.SaleAmount += l.SaleAmount
	}
	return st
}

// Earnings is the earnings card (§4.6).
func (s *Service) Earnings(ctx context.Context, sess *Session) (models.EarningsSummary, error) {
	return s.DB.PartnerEarningsSummary(ctx, sess.Workspace.ID, sess.Program.ID, sess.Partner.ID)
}

// EarningsQuery pages the earnings table.
type EarningsQuery struct {
	Page, PageSize int
	Interval       string // 24h 7d 30d 90d 1y mtd qtd ytd all
}

// EarningsPage lists the partner's commissions (earnings ≠ 0), newest
// first, with customers masked, and the number of rows in the range.
func (s *Service) EarningsPage(ctx context.Context, sess *Session, q EarningsQuery) ([]wire.EarningsRow, int64, error) {
	if q.PageSize <= 0 || q.PageSize > 100 {
		q.PageSize = 100
	}
	if q.Page < 1 {
		q.Page = 1
	}
	since, _ := conversions.IntervalStart(q.Interval, s.now(), time.UTC)
	ws, prog, partner := sess.Workspace.ID, sess.Program.ID, sess.Partner.ID
	cs, err := s.DB.PartnerCommissions(ctx, ws, prog, partner, since, q.PageSize, (q.Page-1)*q.PageSize)
	if err != nil {
		return nil, 0, err
	}
	total, err := s.DB.CountPartnerCommissions(ctx, ws, prog, partner, since)
	if err != nil {
		return nil, 0, err
	}
	var custIDs, linkIDs []string
	for _, c := range cs {
		if c.CustomerID != nil {
			custIDs = append(custIDs, *c.CustomerID)
		}
		if c.LinkID != nil {
			linkIDs = append(linkIDs, *c.LinkID)
		}
	}
	customers, err := s.DB.CustomersByID(ctx, ws, custIDs)
	if err != nil {
		return nil, 0, err
	}
	links := map[string]*models.Link{}
	if len(linkIDs) > 0 {
		ls, err := s.DB.PartnerLinks(ctx, ws, prog, partner)
		if err != nil {
			return nil, 0, err
		}
		for i := range ls {
			links[ls[i].ID] = &ls[i]
		}
	}
	out := make([]wire.EarningsRow, len(cs))
	for i, c := range cs {
		r := wire.EarningsRow{ID: c.ID, Type: c.Type, Amount: c.Amount, Earnings: c.Earnings, Currency: c.Currency,
			Status: c.Status, Description: c.Description, Quantity: c.Quantity, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
		if c.CustomerID != nil {
			if cu := customers[*c.CustomerID]; cu != nil {
				r.Customer = &wire.EarningsCustomer{ID: cu.ID, Email: MaskEmail(customerEmail(cu)), Country: cu.Country}
			}
		}
		if c.LinkID != nil {
			if l := links[*c.LinkID]; l != nil {
				lk := s.linkOf(sess, l)
				r.Link = &wire.EarningsLink{ID: l.ID, ShortLink: lk.ShortLink, URL: l.URL}
			}
		}
		out[i] = r
	}
	return out, total, nil
}

// customerEmail is what gets masked: the email, else the name, else a name
// derived from the id (§6.7).
func customerEmail(c *models.Customer) string {
	switch {
	case c.Email != nil && *c.Email != "":
		return *c.Email
	case c.Name != nil && *c.Name != "":
		return *c.Name
	}
	return AnonymousName(c.ID)
}

// EarningsSeries is GET /api/embed/referrals/earnings/timeseries over the
// token's own enrollment: the partner's sale commission earnings per bucket
// (§3.6), the same numbers as GET /partners/analytics.
func (s *Service) EarningsSeries(ctx context.Context, sess *Session, q conversions.EarningsQuery) ([]conversions.EarningsBucket, error) {
	if err := sess.RequireGroup(); err != nil {
		return nil, err
	}
	return s.Conversions.EarningsTimeseries(ctx, sess.Workspace, sess.Program, sess.Enrollment, q)
}

// ChartDays is the span of the dashboard's earnings chart.
const ChartDays = 30

// EarningsChart is the dashboard's chart: the earnings timeseries over the
// last 30 days in UTC, one bucket a day, oldest first, zero-filled.
func (s *Service) EarningsChart(ctx context.Context, sess *Session) ([]conversions.EarningsBucket, error) {
	return s.EarningsSeries(ctx, sess, conversions.EarningsQuery{Interval: "30d", Location: time.UTC})
}

// Leaderboard lists up to 100 approved enrollments by totalCommissions,
// padded with zero filler rows to 20 (§6.7).
func (s *Service) Leaderboard(ctx context.Context, sess *Session) ([]wire.LeaderRow, error) {
	rows, err := s.DB.Leaderboard(ctx, sess.Workspace.ID, sess.Program.ID, 100)
	if err != nil {
		return nil, err
	}
	out := make([]wire.LeaderRow, 0, max(len(rows), 20))
	for _, r := range rows {
		out = append(out, wire.LeaderRow{ID: r.ID, TotalCommissions: r.TotalCommissions})
	}
	for i := 0; len(out) < 20; i++ {
		out = append(out, wire.LeaderRow{ID: AnonymousName(fmt.Sprint(i))})
	}
	for i := range out {
		out[i].Rank, out[i].Name = i+1, AnonymousName(out[i].ID)
	}
	return out, nil
}

// Standings is the dashboard's leaderboard: only the real rows (no zero
// filler), the viewer's row marked, and how many partners the program has.
type Standings struct {
	Rows     []wire.LeaderRow // real rows, ranked
	You      int              // the viewer's rank; 0: not on the board (no earnings yet)
	Partners int64            // approved partners in the program
}

// Standings loads the leaderboard as the dashboard shows it: Dub's JSON pads
// with invented zero rows (§6.7) for clients that expect 20; a person
// reading the board must not take them for competitors.
func (s *Service) Standings(ctx context.Context, sess *Session) (Standings, error) {
	rows, err := s.DB.Leaderboard(ctx, sess.Workspace.ID, sess.Program.ID, 100)
	if err != nil {
		return Standings{}, err
	}
	var out Standings
	if out.Partners, err = s.DB.CountApprovedEnrollments(ctx, sess.Workspace.ID, sess.Program.ID); err != nil {
		return Standings{}, err
	}
	for i, r := range rows {
		out.Rows = append(out.Rows, wire.LeaderRow{ID: r.ID, TotalCommissions: r.TotalCommissions, Rank: i + 1, Name: AnonymousName(r.ID)})
		if r.ID == sess.Enrollment.ID {
			out.You = i + 1
		}
	}
	return out, nil
}

// LinkWrite is a POST or PATCH /api/embed/referrals/links body: only url
// and key are read.
type LinkWrite struct {
	URL string `json:"url"`
	Key string `json:"key"`
}

func (s *Service) checkLinkWrite(sess *Session) error {
	if !sess.Active() {
		return apierr.New(apierr.Forbidden, MsgInactive)
	}
	if err := sess.RequireGroup(); err != nil {
		return err
	}
	p := sess.Program
	if p.Domain == nil || *p.Domain == "" || p.URL == nil || *p.URL == "" {
		return apierr.New(apierr.BadRequest, "You need to set a domain and url for this program before creating a link.")
	}
	return nil
}

// CreateLink creates one of the partner's links within the group's rules:
// the link limit, then the destination rules of POST /partners/links.
// Without a destination, a group default link the partner has no link from
// yet is used first (its domain, URL and partnerGroupDefaultLinkId), then the
// group's first default-link URL on the program domain.
func (s *Service) CreateLink(ctx context.Context, sess *Session, in LinkWrite) (*wire.ReferralLink, error) {
	if err := s.checkLinkWrite(sess); err != nil {
		return nil, err
	}
	ls, err := s.DB.PartnerLinks(ctx, sess.Workspace.ID, sess.Program.ID, sess.Partner.ID)
	if err != nil {
		return nil, err
	}
	if n := sess.Group.MaxPartnerLinks; len(ls) >= n {
		return nil, apierr.Newf(apierr.BadRequest, "You have reached the limit of %d program links.", n)
	}
	sel := conversions.PartnerSelector{PartnerID: sess.Partner.ID}
	url, key := strings.TrimSpace(in.URL), strings.TrimSpace(in.Key)
	var l *models.Link
	if dl, ok := conversions.MissingDefaultLink(sess.Group, ls); ok && url == "" {
		// No destination, and a group default link the partner has no link
		// from yet: this becomes that default link (its domain, URL and id).
		l, err = s.Conversions.CreateDefaultPartnerLink(ctx, sess.Workspace, sel, dl, key)
	} else {
		l, err = s.Conversions.CreatePartnerLink(ctx, sess.Workspace, conversions.PartnerLinkInput{PartnerSelector: sel, URL: url, Key: key})
	}
	if err != nil {
		return nil, err
	}
	out := s.linkOf(sess, l)
	return &out, nil
}

// UpdateLink changes the key and/or destination of one of the partner's
// links; another partner's link is "Link not found." like a missing one.
func (s *Service) UpdateLink(ctx context.Context, sess *Session, linkID string, in LinkWrite) (*wire.ReferralLink, error) {
	if err := s.checkLinkWrite(sess); err != nil {
		return nil, err
	}
	l, err := s.DB.LinkByID(ctx, sess.Workspace.ID, linkID)
	if err != nil && !models.IsNotFound(err) {
		return nil, err
	}
	if l == nil || err != nil || l.ProgramID == nil || *l.ProgramID != sess.Program.ID || l.PartnerID == nil || *l.PartnerID != sess.Partner.ID {
		return nil, apierr.New(apierr.NotFound, "Link not found.")
	}
	dest := strings.TrimSpace(in.URL)
	switch {
	case dest == "" && l.PartnerGroupDefaultLinkID != nil:
		dest = l.URL // a default link keeps its destination
	case dest == "":
		dest = *sess.Program.URL
	}
	up, err := s.Conversions.UpdateEmbedLink(ctx, sess.Workspace, sess.Enrollment, l, dest, strings.TrimSpace(in.Key))
	if err != nil {
		return nil, err
	}
	out := s.linkOf(sess, up)
	return &out, nil
}

// Rewards is the rewards block: a line per click, lead and sale reward of
// the enrollment (§6.4), and the first of them for the default FAQ.
type Rewards struct {
	Lines []string
	First *models.Reward
}

// Rewards loads the enrollment's rewards.
func (s *Service) Rewards(ctx context.Context, sess *Session) (Rewards, error) {
	e := sess.Enrollment
	return RewardLines(ctx, s.DB, sess.Workspace.ID, e.SaleRewardID, e.LeadRewardID, e.ClickRewardID, e.DiscountID)
}

// RewardLines are the sentences of rewards (sale first, as the program's
// headline reward, then lead and click) and of a discount: the embed's
// rewards for an enrollment, the application page's for the program's
// default group.
func RewardLines(ctx context.Context, db *models.DB, workspaceID string, sale, lead, click, discount *string) (Rewards, error) {
	var idList []string
	for _, id := range []*string{sale, lead, click} {
		if id != nil {
			idList = append(idList, *id)
		}
	}
	byID, err := db.RewardsByID(ctx, workspaceID, idList)
	if err != nil {
		return Rewards{}, err
	}
	var out Rewards
	for _, id := range []*string{sale, lead, click} {
		if id == nil || byID[*id] == nil {
			continue
		}
		r := byID[*id]
		if out.First == nil {
			out.First = r
		}
		out.Lines = append(out.Lines, RewardSentence(r))
	}
	// The discount, as /track/click gives it (spec/parity.md §8.7): none
	// when its amount is 0. Codes are never shown.
	if discount != nil {
		d, err := db.DiscountByID(ctx, workspaceID, *discount)
		switch {
		case err == nil && d.Amount > 0:
			out.Lines = append(out.Lines, DiscountSentence(d))
		case err != nil && !models.IsNotFound(err):
			return Rewards{}, err
		}
	}
	return out, nil
}
