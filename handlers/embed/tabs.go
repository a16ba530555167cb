package embed

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
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
	earnings, err := h.Referrals.Earnings(c.UserContext(), sess)
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
// progress, submission state and submission forms.
func (h *Handlers) Bounties(c *fiber.Ctx) error {
	out, err := h.bountyCards(c, "", "")
	if err != nil {
		return err
	}
	return render.Component(c, http.StatusOK, embed.BountiesFragment(out))
}

// bountyCards builds the tab's cards; errFor/errMsg put an error on one card.
func (h *Handlers) bountyCards(c *fiber.Ctx, errFor, errMsg string) ([]embed.Bounty, error) {
	sess := session(c)
	bs, err := h.Referrals.Bounties(c.UserContext(), sess)
	if err != nil {
		return nil, err
	}
	subs, err := h.DB.PartnerSubmissions(c.UserContext(), sess.Workspace.ID, sess.Program.ID, sess.Partner.ID)
	if err != nil {
		return nil, err
	}
	out := make([]embed.Bounty, len(bs))
	for i, b := range bs {
		v := embed.Bounty{ID: b.ID, Name: b.Name, Reward: strings.TrimSuffix(referrals.Money(b.RewardAmount), ".00"),
			Goal: strings.TrimSuffix(referrals.Money(b.GoalEarnings), ".00"), Progress: referrals.Money(b.Progress),
			Percent: int(min(100, b.Progress*100/max(b.GoalEarnings, 1))), Done: b.Done(), Window: "No end date",
			Proof: b.Type == models.BountyProof}
		if b.RewardAmount == 0 {
			v.Reward = "Custom"
			if b.RewardDescription != nil {
				v.Reward = *b.RewardDescription
			}
		}
		if b.Description != nil {
			v.Description = *b.Description
		}
		if b.EndsAt != nil {
			v.Window = "Ends " + b.EndsAt.UTC().Format("Jan 2, 2006")
		}
		if sub := subs[b.ID]; sub != nil {
			v.Status = sub.Status
			if sub.RejectionNote != nil {
				v.Note = *sub.RejectionNote
			}
		}
		if b.ID == errFor {
			v.Error = errMsg
		}
		out[i] = v
	}
	return out, nil
}

// SubmitBounty takes a submission from a Bounties tab card and answers with
// the tab, the card showing its new state or the reason it was refused.
func (h *Handlers) SubmitBounty(c *fiber.Ctx) error {
	sess := session(c)
	in := conversions.SubmissionInput{}
	if d := strings.TrimSpace(c.FormValue("description")); d != "" {
		in.Description = &d
	}
	errMsg := ""
	if u := strings.TrimSpace(c.FormValue("url")); u != "" {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			errMsg = "Enter a full link starting with https://."
		}
		in.URLs = []string{u}
	}
	if in.Description != nil && len([]rune(*in.Description)) > 1000 {
		errMsg = "The description is at most 1000 characters."
	}
	if errMsg == "" {
		if _, err := h.Referrals.Conversions.SubmitBounty(c.UserContext(), sess.Enrollment, c.Params("id"), in); err != nil {
			e, ok := asAPIError(err)
			if !ok || e.Status() >= 500 {
				return err
			}
			errMsg = e.FieldMessage()
		}
	}
	out, err := h.bountyCards(c, c.Params("id"), errMsg)
	if err != nil {
		return err
	}
	return render.Component(c, http.StatusOK, embed.BountiesFragment(out))
}

// submissionBody is POST /api/embed/referrals/bounties/{id}/submissions.
type submissionBody struct {
	Description *string  `json:"description"`
	URLs        []string `json:"urls"`
	IsDraft     bool     `json:"isDraft"`
}

// CreateSubmission answers POST /api/embed/referrals/bounties/{id}/submissions
// (spec/parity.md §7.3) with the new submission: the data API behind the tab.
func (h *Handlers) CreateSubmission(c *fiber.Ctx) error {
	var body submissionBody
	if err := input.BindJSON(c.Body(), &body); err != nil {
		return err
	}
	switch {
	case len(body.URLs) > 100:
		return apierr.Validation("too_big", "urls", "Too big: expected array to have <=100 items")
	case body.Description != nil && len([]rune(*body.Description)) > 1000:
		return apierr.Validation("too_big", "description", "Too big: expected string to have <=1000 characters")
	}
	for i, u := range body.URLs {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return apierr.Validation("invalid_format", fmt.Sprintf("urls[%d]", i), "Invalid URL")
		}
	}
	sub, err := h.Referrals.Conversions.SubmitBounty(c.UserContext(), session(c).Enrollment, c.Params("id"),
		conversions.SubmissionInput{Description: body.Description, URLs: body.URLs, IsDraft: body.IsDraft})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": sub.ID, "bountyId": sub.BountyID, "partnerId": sub.PartnerID, "description": sub.Description,
		"urls": sub.URLs.V, "status": sub.Status, "performanceCount": sub.PerformanceCount, "periodNumber": sub.PeriodNumber,
		"createdAt": sub.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), "completedAt": sub.CompletedAt})
}
