package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ListDomains answers GET /domains: a bare array, oldest first, filtered by
// archived equality (spec/links.md §6.2).
func (h *Handlers) ListDomains(c *fiber.Ctx) error {
	archived, err := QueryBool(c, "archived", false)
	if err != nil {
		return err
	}
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 50, MaxPageSize: 50})
	if err != nil {
		return err
	}
	ds, err := h.DB.ListDomains(c.UserContext(), request.Workspace(c).ID, models.DomainFilter{
		Archived: archived, Search: Query(c, "search"), Offset: p.Offset(), Limit: p.PageSize,
	})
	if err != nil {
		return err
	}
	out := make([]wire.Domain, len(ds))
	for i := range ds {
		out[i] = wire.DomainOf(&ds[i])
	}
	return c.JSON(out)
}

// GetDomain answers GET /domains/{slug}.
func (h *Handlers) GetDomain(c *fiber.Ctx) error {
	d, err := h.Links.DomainBySlug(c.UserContext(), request.Workspace(c), Param(c, "slug"))
	if err != nil {
		return err
	}
	return c.JSON(wire.DomainOf(d))
}

// VerifyDomain answers GET /domains/{slug}/verify (Dub's route, not in
// the SDK): the domain's DNS is checked now and the outcome saved, as the
// verification job does. {status, response: {verified, expected, current,
// lastChecked}, domainConnect: null}; status is one of Dub's ("Valid
// Configuration", "Invalid Configuration", "Conflicting DNS Records",
// "Unknown Error" when the DNS did not answer).
func (h *Handlers) VerifyDomain(c *fiber.Ctx) error {
	d, err := h.Links.DomainBySlug(c.UserContext(), request.Workspace(c), Param(c, "slug"))
	if err != nil {
		return err
	}
	r, err := h.DomainChecks.Verify(c.UserContext(), d)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"status": r.Status, "domainConnect": nil, "response": fiber.Map{
		"verified": d.Verified, "expected": r.Expected, "current": r.Answer, "lastChecked": request.Timestamp(*d.LastCheckedAt),
	}})
}

// CreateDomain answers POST /domains (201).
func (h *Handlers) CreateDomain(c *fiber.Ctx) error {
	in, err := links.ParseDomainInput(c.Body(), true)
	if err != nil {
		return err
	}
	d, err := h.Links.CreateDomain(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(wire.DomainOf(d))
}

// UpdateDomain answers PATCH /domains/{slug}.
func (h *Handlers) UpdateDomain(c *fiber.Ctx) error {
	in, err := links.ParseDomainInput(c.Body(), false)
	if err != nil {
		return err
	}
	d, err := h.Links.UpdateDomain(c.UserContext(), request.Workspace(c), Param(c, "slug"), in)
	if err != nil {
		return err
	}
	return c.JSON(wire.DomainOf(d))
}

// DeleteDomain answers DELETE /domains/{slug} with {"slug"}.
func (h *Handlers) DeleteDomain(c *fiber.Ctx) error {
	slug, err := h.Links.DeleteDomain(c.UserContext(), request.Workspace(c), Param(c, "slug"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"slug": slug})
}

// DefaultDomains answers GET /domains/default: the configured default short
// domain every workspace may use (spec/links.md §6.2, §6.3).
func (h *Handlers) DefaultDomains(c *fiber.Ctx) error {
	return c.JSON([]string{h.Links.DefaultDomain()})
}
