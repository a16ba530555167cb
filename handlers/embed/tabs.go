package embed

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/models"
	"github.com/relinkhq/relink/views/embed"
)

// Resources is the Resources tab: the program's logos, links, colours and
// files (§6.5).
func (h *Handlers) Resources(c *fiber.Ctx) error {
	r := session(c).Resources()
	v := embed.Resources{}
	for _, f := range r.Logos {
		v.Logos = append(v.Logos, embed.ResourceFile{Name: f.Name, URL: f.URL, Meta: fileMeta(f)})
	}
	for _, f := range r.Files {
		v.Files = append(v.Files, embed.ResourceFile{Name: f.Name, URL: f.URL, Meta: fileMeta(f)})
	}
	for _, col := range r.Colors {
		v.Colors = append(v.Colors, embed.ResourceColor{Name: col.Name, Hex: strings.ToUpper(col.Color)})
	}
	for _, l := range r.Links {
		rl := embed.ResourceLink{Name: l.Name, URL: l.URL}
		if u, err := url.Parse(l.URL); err == nil && u.Scheme == "mailto" {
			rl.Mail, rl.Display = true, u.Opaque
		} else if err == nil {
			rl.Display = strings.TrimSuffix(u.Host+u.EscapedPath(), "/")
		}
		v.Links = append(v.Links, rl)
	}
	return render.Component(c, http.StatusOK, embed.ResourcesFragment(v))
}

// fileMeta is "PNG · 12.3 KB": the extension of the URL's file name and the
// size.
func fileMeta(f models.ResourceFile) string {
	ext := "FILE"
	if u, err := url.Parse(f.URL); err == nil {
		if e := strings.TrimPrefix(path.Ext(u.Path), "."); e != "" {
			ext = strings.ToUpper(e)
		}
	}
	return ext + " · " + byteSize(f.Size)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Settings is the Settings tab: the partner's payout method, earnings and
// the program's payout terms. It is read-only: the payout destination is
// set up with the program, never through the embed token, so a leaked token
// cannot redirect payouts.
func (h *Handlers) Settings(c *fiber.Ctx) error {
	sess := session(c)
	earnings, err := h.d.Referrals.Earnings(c.UserContext(), sess)
	if err != nil {
		return err
	}
	p := sess.Partner
	v := embed.Settings{ProgramName: sess.Program.Name, Method: referrals.PayoutMethodLabel(p.DefaultPayoutMethod), Email: p.Email,
		Upcoming: referrals.Money(earnings.Upcoming), Paid: referrals.Money(earnings.Paid)}
	if p.DefaultPayoutMethod != nil && *p.DefaultPayoutMethod == "paypal" && p.PaypalEmail != nil {
		v.Email = *p.PaypalEmail
	}
	if m := sess.Program.MinPayoutAmount; m > 0 {
		v.Terms = append(v.Terms, "Payouts are sent once your processed earnings reach "+strings.TrimSuffix(referrals.Money(m), ".00")+".")
	}
	if sess.Group != nil && sess.Group.HoldingPeriodDays > 0 {
		v.Terms = append(v.Terms, fmt.Sprintf("Commissions are held for %d days before they are processed.", sess.Group.HoldingPeriodDays))
	} else {
		v.Terms = append(v.Terms, "Commissions are processed without a holding period.")
	}
	return render.Component(c, http.StatusOK, embed.SettingsFragment(v))
}

// Bounties is the Bounties tab: the active bounties with the partner's
// progress.
func (h *Handlers) Bounties(c *fiber.Ctx) error {
	bs, err := h.d.Referrals.Bounties(c.UserContext(), session(c))
	if err != nil {
		return err
	}
	out := make([]embed.Bounty, len(bs))
	for i, b := range bs {
		v := embed.Bounty{ID: b.ID, Name: b.Name, Reward: strings.TrimSuffix(referrals.Money(b.RewardAmount), ".00"),
			Goal: strings.TrimSuffix(referrals.Money(b.GoalEarnings), ".00"), Progress: referrals.Money(b.Progress),
			Percent: int(min(100, b.Progress*100/max(b.GoalEarnings, 1))), Done: b.Done(), Window: "No end date"}
		if b.Description != nil {
			v.Description = *b.Description
		}
		if b.EndsAt != nil {
			v.Window = "Ends " + b.EndsAt.UTC().Format("Jan 2, 2006")
		}
		out[i] = v
	}
	return render.Component(c, http.StatusOK, embed.BountiesFragment(out))
}
