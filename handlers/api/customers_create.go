package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// parseCustomerCreate validates a POST /customers body (parity.md §10.1) in
// upstream's schema order: email, name, avatar, externalId,
// stripeCustomerId, country.
func parseCustomerCreate(body []byte) (*models.Customer, error) {
	o, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	c := &models.Customer{}
	c.Email = o.str("email", strOpts{email: true})
	c.Name = o.str("name", strOpts{})
	c.Avatar = o.str("avatar", strOpts{url: true})
	if v := o.str("externalId", strOpts{required: true, reqMsg: "External ID is required", typeMsg: "External ID is required"}); v != nil {
		c.ExternalID = *v
	}
	c.StripeCustomerID = o.str("stripeCustomerId", strOpts{})
	c.Country = o.str("country", strOpts{required: true})
	return c, o.err
}

// CreateCustomer answers POST /customers (parity.md §10): 201 with the
// customer; a taken externalId is a 409. The name defaults to the email,
// else a random "Adjective Colour Animal"; the avatar URL is stored as given.
func (h *Handlers) CreateCustomer(c *fiber.Ctx) error {
	cust, err := parseCustomerCreate(c.Body())
	if err != nil {
		return err
	}
	ws := request.Workspace(c)
	now := h.Now().UTC()
	cust.ID, cust.WorkspaceID, cust.CreatedAt, cust.UpdatedAt = ids.New(ids.Customer), ws.ID, now, now
	cust.Name = conversions.DisplayName(cust)
	if err := h.DB.CreateCustomer(c.UserContext(), cust); err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCustomerJSON(cust))
}
