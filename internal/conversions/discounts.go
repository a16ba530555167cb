package conversions

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// DiscountCodeInput is a validated POST /discount-codes body (spec/parity.md §8.4).
type DiscountCodeInput struct {
	Code      string // "" = generated from the partner's name
	PartnerID string
	LinkID    string
	AppURL    string // the console's origin, linked from the taken-code message
}

// ListDiscountCodes answers GET /discount-codes (§8.3).
func (s *Service) ListDiscountCodes(ctx context.Context, ws *models.Workspace, f models.DiscountCodeFilter) ([]models.DiscountCode, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return nil, err
	}
	if f.DiscountID != "" {
		d, err := s.DB.DiscountByID(ctx, ws.ID, f.DiscountID)
		if err != nil {
			return nil, err
		}
		if d.ProgramID != prog.ID {
			return nil, apierr.New(apierr.NotFound, "Discount does not belong to this program.")
		}
	}
	if f.PartnerID != "" {
		if _, _, err := s.programEnrollment(ctx, s.DB, ws, PartnerSelector{PartnerID: f.PartnerID}); err != nil {
			return nil, err
		}
	}
	return s.DB.ListDiscountCodes(ctx, ws.ID, prog.ID, f)
}

// CreateDiscountCode answers POST /discount-codes (§8.4): the checks in
// upstream's order, a generated code when none is given, and
// discount_code.created in the insert's transaction. Relink's discounts are
// all provider "custom": no payment provider is called.
func (s *Service) CreateDiscountCode(ctx context.Context, ws *models.Workspace, in DiscountCodeInput) (*models.DiscountCode, error) {
	prog, e, err := s.programEnrollment(ctx, s.DB, ws, PartnerSelector{PartnerID: in.PartnerID})
	if err != nil {
		return nil, err
	}
	links, err := s.DB.PartnerLinks(ctx, ws.ID, prog.ID, in.PartnerID)
	if err != nil {
		return nil, err
	}
	found := false
	for _, l := range links {
		found = found || l.ID == in.LinkID
	}
	if !found {
		return nil, apierr.New(apierr.BadRequest, "Partner link not found.")
	}
	if e.DiscountID == nil {
		return nil, apierr.New(apierr.BadRequest, "No discount is assigned to this partner group. Please add a discount before proceeding.")
	}
	d, err := s.DB.DiscountByID(ctx, ws.ID, *e.DiscountID)
	if err != nil {
		return nil, err
	}
	if existing, err := s.DB.DiscountCodeOfLink(ctx, ws.ID, in.LinkID); err == nil {
		return nil, apierr.Newf(apierr.BadRequest, "This link already has a discount code (%s) assigned.", existing.Code)
	} else if !models.IsNotFound(err) {
		return nil, err
	}
	code := in.Code
	if code != "" {
		if err := s.codeFree(ctx, ws, prog, code, in.AppURL); err != nil {
			return nil, err
		}
	} else if code, err = s.generateCode(ctx, ws, prog, in.PartnerID, d); err != nil {
		return nil, err
	}
	c := &models.DiscountCode{ID: ids.New(ids.DiscCode), WorkspaceID: ws.ID, ProgramID: prog.ID, DiscountID: &d.ID,
		PartnerID: in.PartnerID, LinkID: in.LinkID, Code: code, CreatedAt: s.now()}
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.CreateDiscountCode(ctx, c); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, ws.ID, webhooks.DiscountCodeCreated, wire.DiscountCodeEventOf(c, d))
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// codeFree answers §8.4 step 6's 409 when a program's code is taken.
func (s *Service) codeFree(ctx context.Context, ws *models.Workspace, prog *models.Program, code, appURL string) error {
	taken, err := s.DB.DiscountCodeByCode(ctx, ws.ID, prog.ID, code)
	if models.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	email := ""
	if p, err := s.DB.PartnerByID(ctx, ws.ID, taken.PartnerID); err == nil {
		email = p.Email
	}
	return apierr.Newf(apierr.Conflict, "This discount code \"%s\" is already in use by [%s](%s/%s/program/partners/%s). Please choose a different code.",
		code, email, strings.TrimSuffix(appURL, "/")+"/console", ws.Slug, taken.PartnerID)
}

var nonCodeChars = regexp.MustCompile(`[^A-Z0-9_-]`)

// generateCode is §8.4's generated code: the partner's first name word,
// upper-cased and cleaned (else PARTNER), then <amount>OFF when the
// rounded amount is positive; on a clash two random characters are added,
// up to three attempts.
func (s *Service) generateCode(ctx context.Context, ws *models.Workspace, prog *models.Program, partnerID string, d *models.Discount) (string, error) {
	p, err := s.DB.PartnerByID(ctx, ws.ID, partnerID)
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(strings.TrimSpace(p.Name), " ")
	base := nonCodeChars.ReplaceAllString(strings.ToUpper(first), "")
	if base == "" {
		base = "PARTNER"
	}
	amount := float64(d.Amount)
	if d.Type == models.DiscountFlat {
		amount /= 100
	}
	if n := int64(math.Round(amount)); n > 0 {
		base += fmt.Sprintf("%dOFF", n)
	}
	code := base
	for attempt := 0; attempt < 3; attempt++ {
		_, err := s.DB.DiscountCodeByCode(ctx, ws.ID, prog.ID, code)
		if models.IsNotFound(err) {
			return code, nil
		}
		if err != nil {
			return "", err
		}
		code = base + strings.ToUpper(ids.Nano(2))
	}
	return "", apierr.New(apierr.Conflict, models.MsgDiscountCodeTaken)
}

// DeleteDiscountCode answers DELETE /discount-codes/{idOrCode} (§8.5): an id
// starting with dcode_, else a code of the default program.
func (s *Service) DeleteDiscountCode(ctx context.Context, ws *models.Workspace, idOrCode string) (string, error) {
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil {
		return "", err
	}
	var c *models.DiscountCode
	if strings.HasPrefix(idOrCode, ids.DiscCode) {
		c, err = s.DB.DiscountCodeByID(ctx, ws.ID, prog.ID, idOrCode)
	} else {
		c, err = s.DB.DiscountCodeByCode(ctx, ws.ID, prog.ID, idOrCode)
		if err == nil && c.Code != idOrCode {
			err = apierr.New(apierr.NotFound, "exact match only")
		}
	}
	if models.IsNotFound(err) || (err == nil && c.DiscountID == nil) {
		return "", apierr.Newf(apierr.NotFound, "Discount code (%s) not found.", idOrCode)
	}
	if err != nil {
		return "", err
	}
	var d *models.Discount
	if found, err := s.DB.DiscountByID(ctx, ws.ID, *c.DiscountID); err == nil {
		d = found
	}
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.DeleteDiscountCode(ctx, ws.ID, c.ID); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, ws.ID, webhooks.DiscountCodeDeleted, wire.DiscountCodeEventOf(c, d))
	})
	return c.ID, err
}

// ClickPartner is what POST /track/click answers about a partner link's
// partner (spec/partners-and-embed.md §1.4, spec/parity.md §8.7): the
// partner (nil when it is gone), its enrollment in the link's program (nil
// when it is no longer enrolled) and the enrollment's discount (nil when
// none or its amount is 0).
func (s *Service) ClickPartner(ctx context.Context, workspaceID, programID, partnerID string) (*models.Partner, *models.Enrollment, *models.Discount, error) {
	p, err := s.DB.PartnerByID(ctx, workspaceID, partnerID)
	if models.IsNotFound(err) {
		return nil, nil, nil, nil
	} else if err != nil {
		return nil, nil, nil, err
	}
	e, err := s.DB.EnrollmentByPartner(ctx, workspaceID, programID, partnerID)
	if models.IsNotFound(err) {
		return p, nil, nil, nil
	} else if err != nil {
		return nil, nil, nil, err
	}
	d, err := s.enrollmentDiscount(ctx, workspaceID, e)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, e, d, nil
}

// enrollmentDiscount is the enrollment's discount: nil when none or its
// amount is 0 (spec/parity.md §8.7).
func (s *Service) enrollmentDiscount(ctx context.Context, workspaceID string, e *models.Enrollment) (*models.Discount, error) {
	if e.DiscountID == nil {
		return nil, nil
	}
	d, err := s.DB.DiscountByID(ctx, workspaceID, *e.DiscountID)
	if models.IsNotFound(err) || (err == nil && d.Amount == 0) {
		return nil, nil
	}
	return d, err
}

// disablePartnerCodes is the discount-code part of a ban (detach: the codes
// also lose their discount) or a deactivation: the partner's codes are
// soft-deleted, each with discount_code.deleted carrying the discount it
// had, in the caller's transaction (spec/parity.md §6.1, §6.2, §8.6). Relink's
// codes are all provider "custom": no payment provider is told.
func disablePartnerCodes(ctx context.Context, tx *models.DB, ws *models.Workspace, programID, partnerID string, detach bool, now time.Time) error {
	cs, err := tx.DisablePartnerCodes(ctx, ws.ID, programID, partnerID, detach, now)
	if err != nil || len(cs) == 0 {
		return err
	}
	var dids []string
	for _, c := range cs {
		if c.DiscountID != nil {
			dids = append(dids, *c.DiscountID)
		}
	}
	ds, err := tx.DiscountsByID(ctx, ws.ID, dids)
	if err != nil {
		return err
	}
	for i := range cs {
		var d *models.Discount
		if cs[i].DiscountID != nil {
			d = ds[*cs[i].DiscountID]
		}
		if err := webhooks.Emit(ctx, tx, ws.ID, webhooks.DiscountCodeDeleted, wire.DiscountCodeEventOf(&cs[i], d)); err != nil {
			return err
		}
	}
	return nil
}
