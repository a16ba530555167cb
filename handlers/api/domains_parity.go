package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
)

// Messages of the registrar routes, which a server without a registrar
// answers for every workspace (spec/parity.md §11.1).
const (
	msgStatusUnavailable   = "GET /domains/status is not available for your workspace. Contact support for more information."
	msgRegisterUnavailable = "POST /domains/register is not available for your workspace. Contact support for more information."
)

// DomainStatus answers GET /domains/status: the scope and plan gates run
// (routes), then the query is validated as upstream does, then the 403
// every workspace of a server without a domain registrar gets.
func (h *Handlers) DomainStatus(c *fiber.Ctx) error {
	if !c.Context().QueryArgs().Has("domains") {
		return apierr.Validation("invalid_union", "domains", "Invalid input")
	}
	n := 0
	for _, d := range c.Context().QueryArgs().PeekMulti("domains") {
		for _, s := range strings.Split(string(d), ",") {
			if strings.HasSuffix(strings.ToLower(s), ".link") {
				n++
			}
		}
	}
	if n == 0 {
		return apierr.New(apierr.BadRequest, "You must provide at least one domain to check. We only support .link domains for now.")
	}
	return apierr.New(apierr.Forbidden, msgStatusUnavailable)
}

// RegisterDomain answers POST /domains/register like DomainStatus: the body
// is validated (".link" checked before lower-casing, as upstream), then 403.
func (h *Handlers) RegisterDomain(c *fiber.Ctx) error {
	o, err := input.Decode(c.Body())
	if err != nil {
		return err
	}
	if v := o.Str("domain", input.Str{Required: true, Min: 1, MinMsg: "Domain to register is required."}); v.Has() && !strings.HasSuffix(v.Value, ".link") {
		o.Fail("invalid_format", "domain", `Invalid string: must end with ".link"`)
	}
	if o.Err() != nil {
		return o.Err()
	}
	return apierr.New(apierr.Forbidden, msgRegisterUnavailable)
}

// SetPrimaryDomain answers POST /domains/{slug}/primary with the domain.
func (h *Handlers) SetPrimaryDomain(c *fiber.Ctx) error {
	d, err := h.Links.SetPrimaryDomain(c.UserContext(), request.Workspace(c), Param(c, "slug"))
	if err != nil {
		return err
	}
	return c.JSON(wire.DomainOf(d))
}
