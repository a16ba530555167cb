package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// parseCustomerCreate validates a POST /customers body (spec/parity.md §10.1) in
// upstream's schema order: email, name, avatar, externalId,
// stripeCustomerId, country.
func parseCustomerCreate(body []byte) (*models.Customer, error) {
	o, err := input.DecodeNullish(body)
	if err != nil {
		return nil, err
	}
	c := &models.Customer{}
	c.Email = o.Str("email", input.Str{Check: input.Email}).Ptr()
	c.Name = o.Str("name", input.Str{}).Ptr()
	c.Avatar = o.Str("avatar", input.Str{Check: input.URL}).Ptr()
	// z.string("External ID is required"): one message for missing and for
	// a value of another type.
	if raw, ok := o.Present("externalId"); ok && input.Kind(raw) != "string" && o.Err() == nil {
		o.Fail("invalid_type", "externalId", "External ID is required")
	}
	if v := o.Str("externalId", input.Str{Required: true, ReqMsg: "External ID is required"}); v.Has() {
		c.ExternalID = v.Value
	}
	c.StripeCustomerID = o.Str("stripeCustomerId", input.Str{}).Ptr()
	c.Country = o.Str("country", input.Str{Required: true}).Ptr()
	return c, o.Err()
}

// CreateCustomer answers POST /customers (spec/parity.md §10): 201 with the
// customer; a taken externalId is a 409. The name defaults to the email,
// else a random "Adjective Colour Animal"; the avatar URL is stored as given.
func (h *Handlers) CreateCustomer(c *fiber.Ctx) error {
	cust, err := parseCustomerCreate(c.Body())
	if err != nil {
		return err
	}
	if err := h.Conversions.CreateCustomer(c.UserContext(), request.Workspace(c), cust); err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(wire.APICustomerOf(cust, conversions.DisplayName(cust)))
}
