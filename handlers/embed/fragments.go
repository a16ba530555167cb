package embed

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/views/embed"
)

// FragmentAuth is Auth for the htmx fragments: a missing, bad or expired
// token (or the rate limit) replaces the whole dashboard with the error
// state (HX-Retarget #embed-root), whose appearance the page script reports
// to the parent window. It answers 200 so htmx swaps it.
func (h *Handlers) FragmentAuth(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	err := h.Auth(c)
	if err == nil {
		return nil
	}
	e, ok := asAPIError(err)
	if !ok || e.Status() >= 500 || session(c) != nil {
		// A server error, or Auth passed and the fragment itself failed.
		return err
	}
	c.Set(render.HeaderRetarget, "#embed-root")
	c.Set(render.HeaderReswap, "innerHTML")
	c.Set("X-Embed-Error", string(e.Code))
	return render.Component(c, http.StatusOK, embed.ErrorFragment(errorView(e)))
}

// Overview is the hero, stat cards and chart.
func (h *Handlers) Overview(c *fiber.Ctx) error {
	ctx, sess, r := c.UserContext(), session(c), h.Referrals
	links, err := r.Links(ctx, sess)
	if err != nil {
		return err
	}
	earnings, err := r.Earnings(ctx, sess)
	if err != nil {
		return err
	}
	rewards, err := r.Rewards(ctx, sess)
	if err != nil {
		return err
	}
	points, err := r.EarningsChart(ctx, sess)
	if err != nil {
		return err
	}
	referral, err := r.PartnerReferral(ctx, sess)
	if err != nil {
		return err
	}
	st := referrals.StatsOf(links)
	var sparks *embed.Sparks
	if st.Clicks+st.Leads+st.Sales > 0 {
		// No activity: the empty hint instead, and no analytics query (§6.4).
		a, err := r.Activity(ctx, sess)
		if err != nil {
			return err
		}
		sparks = &embed.Sparks{Clicks: embed.Sparkline(a.Clicks), Leads: embed.Sparkline(a.Leads), Sales: embed.Sparkline(a.Sales)}
	}
	o := embed.Overview{
		Links: viewLinks(links), Rewards: rewards.Lines, NoLink: noLinkOf(sess, len(links)),
		Clicks: referrals.Thousands(st.Clicks), Leads: referrals.Thousands(st.Leads), Sales: referrals.Thousands(st.Sales),
		Earnings: referrals.Money(earnings.Upcoming + earnings.Paid),
		Upcoming: referrals.Money(earnings.Upcoming), Paid: referrals.Money(earnings.Paid),
		HideEarnings: sess.Embed.HideEarnings, PoweredBy: !sess.Embed.HidePoweredByBadge,
		Chart: chartOf(points), Sparks: sparks,
	}
	if referral != nil {
		o.Referral = &embed.PartnerReferral{Link: referral.Link, Rewards: referral.Rewards,
			Display: strings.TrimPrefix(strings.TrimPrefix(referral.Link, "https://"), "http://")}
	}
	if sess.Embed.CustomTermsURL != nil && safeURL(*sess.Embed.CustomTermsURL) {
		o.TermsURL = *sess.Embed.CustomTermsURL
	} else if sess.Program.TermsURL != nil && safeURL(*sess.Program.TermsURL) {
		o.TermsURL = *sess.Program.TermsURL
	}
	if !sess.Embed.HideEarnings {
		if m := sess.Program.MinPayoutAmount; m > 0 {
			o.Terms = append(o.Terms, strings.TrimSuffix(referrals.Money(m), ".00")+" minimum payout amount")
		}
		if d := sess.Group.HoldingPeriodDays; d > 0 {
			o.Terms = append(o.Terms, fmt.Sprintf("%d-day holding period", d))
		}
	}
	return render.Component(c, http.StatusOK, embed.OverviewFragment(o))
}

func safeURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func viewLinks(ls []wire.ReferralLink) []embed.Link {
	out := make([]embed.Link, len(ls))
	for i, l := range ls {
		dest := l.URL
		if u, err := url.Parse(l.URL); err == nil && u.Host != "" {
			dest = strings.TrimPrefix(u.Hostname(), "www.")
		}
		out[i] = embed.Link{ID: l.ID, Display: l.Display, Copy: l.Copy, Destination: dest, Domain: l.Domain, Key: l.Key,
			URL: l.URL, Clicks: referrals.Thousands(l.Clicks), Leads: referrals.Thousands(l.Leads),
			Conversions: referrals.Thousands(l.Conversions), Default: l.PartnerGroupDefaultLinkID != nil}
	}
	return out
}

// chartOf draws the sale earnings per day as SVG paths on a 600×160 canvas.
func chartOf(points []conversions.EarningsBucket) embed.Chart {
	const w, hgt = 600, 160
	c := embed.Chart{Width: w, Height: hgt}
	var maxV, total int64
	for _, p := range points {
		maxV, total = max(maxV, p.Earnings), total+p.Earnings
	}
	c.Total, c.Max, c.Empty = referrals.Money(total), referrals.Money(maxV), total == 0
	if len(points) == 0 {
		return c
	}
	c.From, c.To = points[0].Start.Format("Jan 2"), points[len(points)-1].Start.Format("Jan 2")
	step := float64(w) / float64(max(len(points)-1, 1))
	scale := float64(hgt-8) / float64(max(maxV, 1))
	var line strings.Builder
	for i, p := range points {
		x := float64(i) * step
		y := float64(hgt-1) - float64(p.Earnings)*scale
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&line, "%s%.1f %.1f ", cmd, x, y)
		c.Bars = append(c.Bars, embed.ChartBar{
			X: strconv.FormatFloat(max(x-step/2, 0), 'f', 1, 64), W: strconv.FormatFloat(step, 'f', 1, 64),
			Title: p.Start.Format("Jan 2, 2006") + ": " + referrals.Money(p.Earnings),
		})
	}
	c.Line = strings.TrimSpace(line.String())
	c.Area = c.Line + fmt.Sprintf(" L%d %d L0 %d Z", w, hgt, hgt)
	return c
}

// earningsPageSize is the table's rows per page (§6.5).
const earningsPageSize = 8

// Earnings is the paginated earnings table.
func (h *Handlers) Earnings(c *fiber.Ctx) error {
	sess := session(c)
	page, _ := strconv.Atoi(c.Query("page", "1"))
	page = max(page, 1)
	rows, total, err := h.Referrals.EarningsPage(c.UserContext(), sess, referrals.EarningsQuery{Page: page, PageSize: earningsPageSize, Interval: "all"})
	if err != nil {
		return err
	}
	pages := max(int((total+earningsPageSize-1)/earningsPageSize), 1)
	v := embed.Earnings{Page: page, Pages: pages, Total: referrals.Thousands(total)}
	if page > 1 {
		v.PrevPath = embed.PathEarnings + "?page=" + strconv.Itoa(page-1)
	}
	if page < pages {
		v.NextPath = embed.PathEarnings + "?page=" + strconv.Itoa(page+1)
	}
	for _, r := range rows {
		customer := "-"
		if r.Customer != nil {
			customer = r.Customer.Email
		}
		amount := "-"
		if r.Type == "sale" {
			amount = referrals.Money(r.Amount)
		}
		v.Rows = append(v.Rows, embed.EarningsRow{
			Date: r.CreatedAt.UTC().Format("Jan 2"), DateTitle: r.CreatedAt.UTC().Format(time.RFC1123),
			Customer: customer, Amount: amount, Earnings: referrals.Money(r.Earnings),
			Status: embed.StatusLabel(r.Status), StatusClass: embed.StatusClass(r.Status),
		})
	}
	return render.Component(c, http.StatusOK, embed.EarningsFragment(v))
}

// Leaderboard is the anonymised leaderboard: the real rows only (the JSON
// keeps Dub's zero filler rows), the viewer's row marked, and how many
// partners the program has.
func (h *Handlers) Leaderboard(c *fiber.Ctx) error {
	st, err := h.Referrals.Standings(c.UserContext(), session(c))
	if err != nil {
		return err
	}
	v := embed.Leaderboard{Partners: st.Partners, You: st.You, Rows: make([]embed.LeaderRow, len(st.Rows))}
	for i, r := range st.Rows {
		initials := ""
		for _, w := range strings.Fields(r.Name) {
			initials += w[:1]
		}
		hue := 0
		for _, b := range []byte(r.ID) {
			hue = (hue*31 + int(b)) % 360
		}
		v.Rows[i] = embed.LeaderRow{Rank: r.Rank, Name: r.Name, Earnings: referrals.Money(r.TotalCommissions),
			Initials: initials[:min(2, len(initials))], Hue: hue, You: r.Rank == st.You}
	}
	return render.Component(c, http.StatusOK, embed.LeaderboardFragment(v))
}

// FAQ is the program's FAQ, or the four defaults.
func (h *Handlers) FAQ(c *fiber.Ctx) error {
	sess := session(c)
	var items []referrals.FAQItem
	if sess.Embed.FAQ != nil {
		items = *sess.Embed.FAQ
	} else {
		rw, err := h.Referrals.Rewards(c.UserContext(), sess)
		if err != nil {
			return err
		}
		items = referrals.DefaultFAQ(sess.Program.Name, rw.First)
	}
	out := make([]embed.FAQItem, len(items))
	for i, it := range items {
		out[i] = embed.FAQItem{ID: it.ID, Title: it.Title, Content: it.Content}
	}
	return render.Component(c, http.StatusOK, embed.FAQFragment(out))
}

// Quickstart is the three starter cards.
func (h *Handlers) Quickstart(c *fiber.Ctx) error {
	sess := session(c)
	links, err := h.Referrals.Links(c.UserContext(), sess)
	if err != nil {
		return err
	}
	earnings, err := h.Referrals.Earnings(c.UserContext(), sess)
	if err != nil {
		return err
	}
	q := embed.Quickstart{HasResources: !sess.Resources().Empty(), ShowEarnings: !sess.Embed.HideEarnings,
		CanPayout: earnings.Upcoming+earnings.Paid > 0, HasFAQ: sess.Embed.FAQ == nil || len(*sess.Embed.FAQ) > 0}
	if v := viewLinks(links); len(v) > 0 {
		q.First = &v[0]
	}
	q.NoLink = noLinkOf(sess, len(links))
	return render.Component(c, http.StatusOK, embed.QuickstartFragment(q))
}
