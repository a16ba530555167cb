package referrals

import (
	"context"
	"net/url"
	"time"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
)

// Resources is the program's resources for partners (§6.5); empty when
// the program has none.
func (s *Session) Resources() models.ProgramResources {
	if !s.Program.Resources.Valid {
		return models.ProgramResources{}
	}
	return s.Program.Resources.V
}

// PartnerReferral is the hero's partner-referral section (§6.4): shown only
// when the enrollment has a referral reward and the partner a username.
type PartnerReferral struct {
	Link    string // where referred partners go, with ?via=<username>
	Rewards []string
}

// PartnerReferral loads the section, or nil when it is not shown. Relink
// has no partner application portal of its own, so the link is the
// program's URL with via=<username>: the program's site reads it and sends
// the applicant to its partner signup.
func (s *Service) PartnerReferral(ctx context.Context, sess *Session) (*PartnerReferral, error) {
	e, p := sess.Enrollment, sess.Partner
	if e.ReferralRewardID == nil || p.Username == nil || *p.Username == "" || sess.Program.URL == nil {
		return nil, nil
	}
	r, err := s.DB.RewardByID(ctx, sess.Workspace.ID, *e.ReferralRewardID)
	if models.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(*sess.Program.URL)
	if err != nil || u.Host == "" {
		return nil, nil
	}
	q := u.Query()
	q.Set("via", *p.Username)
	u.RawQuery = q.Encode()
	return &PartnerReferral{Link: u.String(), Rewards: []string{RewardSentence(r)}}, nil
}

// Activity is the stat cards' sparklines: clicks, leads and sales per month
// over the last year (§6.4: composite timeseries, interval 1y).
type Activity struct {
	Clicks, Leads, Sales []int64
}

// Activity loads the sparklines; the caller skips it when every total is 0.
func (s *Service) Activity(ctx context.Context, sess *Session) (Activity, error) {
	res, err := s.Conversions.PartnerAnalytics(ctx, sess.Workspace, conversions.AnalyticsQuery{
		PartnerSelector: conversions.PartnerSelector{PartnerID: sess.Partner.ID}, GroupBy: "timeseries", Interval: "1y",
	})
	if err != nil {
		return Activity{}, err
	}
	var a Activity
	for _, r := range res.Timeseries {
		a.Clicks = append(a.Clicks, r.Clicks)
		a.Leads = append(a.Leads, r.Leads)
		a.Sales = append(a.Sales, r.Sales)
	}
	return a, nil
}

// Bounty is an active bounty with the partner's progress towards its goal.
type Bounty struct {
	models.Bounty
	Progress int64 // sale commission earnings (cents) inside the window so far
}

// Done reports a reached goal.
func (b Bounty) Done() bool { return b.Progress >= b.GoalEarnings }

// Bounties lists the bounties open to the partner's group now, each with
// the partner's sale earnings since it started (the same query as the
// earnings timeseries).
func (s *Service) Bounties(ctx context.Context, sess *Session) ([]Bounty, error) {
	if sess.Group == nil {
		return nil, nil
	}
	now := s.now()
	bs, err := s.DB.ActiveBounties(ctx, sess.Workspace.ID, sess.Program.ID, &sess.Group.ID, now)
	if err != nil {
		return nil, err
	}
	out := make([]Bounty, len(bs))
	for i, b := range bs {
		out[i].Bounty = b
		end := now.Add(time.Second)
		if b.EndsAt != nil && b.EndsAt.Before(end) {
			end = *b.EndsAt
		}
		points, err := s.DB.PartnerSaleEarnings(ctx, sess.Workspace.ID, sess.Program.ID, sess.Partner.ID, b.StartsAt, end, "")
		if err != nil {
			return nil, err
		}
		for _, p := range points {
			out[i].Progress += p.Earnings
		}
	}
	return out, nil
}

// PayoutMethodLabel names a partner's payout method for the Settings tab.
func PayoutMethodLabel(m *string) string {
	if m == nil {
		return ""
	}
	switch *m {
	case "connect":
		return "Bank transfer (Stripe Connect)"
	case "paypal":
		return "PayPal"
	case "stablecoin":
		return "Stablecoin (USDC)"
	case "tremendous":
		return "Gift cards (Tremendous)"
	}
	return *m
}
