package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/paging"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// customersJSON renders customers (wire.APICustomer), with their link and
// partner when expanded is set.
func (h *Handlers) customersJSON(ctx context.Context, ws *models.Workspace, cs []models.Customer, expanded bool) ([]wire.APICustomer, error) {
	out := make([]wire.APICustomer, len(cs))
	for i := range cs {
		out[i] = wire.APICustomerOf(&cs[i], conversions.DisplayName(&cs[i]))
	}
	if !expanded || len(cs) == 0 {
		return out, nil
	}
	var linkIDs, partnerIDs []string
	for _, c := range cs {
		if c.LinkID != nil {
			linkIDs = append(linkIDs, *c.LinkID)
		}
		if c.PartnerID != nil {
			partnerIDs = append(partnerIDs, *c.PartnerID)
		}
	}
	ls, err := h.DB.LinksByRefs(ctx, ws.ID, linkIDs, nil)
	if err != nil {
		return nil, err
	}
	links := map[string]*models.Link{}
	for i := range ls {
		links[ls[i].ID] = &ls[i]
	}
	partners, err := h.DB.PartnersByID(ctx, ws.ID, partnerIDs)
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		var l *models.Link
		if c.LinkID != nil {
			l = links[*c.LinkID]
		}
		var p *models.Partner
		if c.PartnerID != nil {
			p = partners[*c.PartnerID]
		}
		h.Links.Wire.Expand(&out[i], l, c.ProgramID, p)
	}
	return out, nil
}

var customerSorts = []string{"createdAt", "saleAmount", "firstSaleAt", "subscriptionCanceledAt"}

// ListCustomers answers GET /customers (§2.2).
func (h *Handlers) ListCustomers(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: customerSorts, DefaultOrder: "desc"})
	if err != nil {
		return err
	}
	q := models.CustomerQuery{
		Email: c.Query("email"), ExternalID: c.Query("externalId"), Search: c.Query("search"),
		Country: c.Query("country"), LinkID: c.Query("linkId"), PartnerID: c.Query("partnerId"),
		SortBy: p.SortBy, Desc: p.Desc(), StartingAfter: c.Query("startingAfter"), EndingBefore: c.Query("endingBefore"),
		Limit: p.PageSize, Offset: p.Offset(),
	}
	if err := checkCursor(c, p, q.StartingAfter, q.EndingBefore); err != nil {
		return err
	}
	if c.Query("programId") != "" || q.PartnerID != "" {
		// Either forces the workspace's own program (the given value is ignored).
		prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
		if err != nil {
			return err
		}
		q.ProgramID = prog.ID
	}
	expanded, err := queryBool(c, "includeExpandedFields")
	if err != nil {
		return err
	}
	cs, err := h.DB.ListCustomers(c.UserContext(), ws.ID, q)
	if err != nil {
		return err
	}
	out, err := h.customersJSON(c.UserContext(), ws, cs, expanded)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// checkCursor applies upstream's pagination rules (internal/paging) to
// customers and commissions.
func checkCursor(c *fiber.Ctx, p Page, after, before string) error {
	return paging.Check(paging.Request{PageSet: Query(c, "page") != "", Page: p.Page, StartingAfter: after, EndingBefore: before,
		SortByCreatedAt: p.SortBy == "createdAt"})
}

// queryBool reads a true/false query parameter.
func queryBool(c *fiber.Ctx, name string) (bool, error) {
	switch c.Query(name) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, apierr.Validation("invalid_value", name, `Invalid option: expected one of "true"|"false"`)
}

func (h *Handlers) oneCustomerJSON(c *fiber.Ctx, cust *models.Customer) error {
	expanded, err := queryBool(c, "includeExpandedFields")
	if err != nil {
		return err
	}
	out, err := h.customersJSON(c.UserContext(), request.Workspace(c), []models.Customer{*cust}, expanded)
	if err != nil {
		return err
	}
	return c.JSON(out[0])
}

// GetCustomer answers GET /customers/{id}: a cus_ id or ext_<externalId>.
func (h *Handlers) GetCustomer(c *fiber.Ctx) error {
	cust, err := h.DB.CustomerByRef(c.UserContext(), request.Workspace(c).ID, c.Params("id"))
	if err != nil {
		return err
	}
	return h.oneCustomerJSON(c, cust)
}

// parseCustomerPatch validates a PATCH /customers/{id} body. country is
// accepted and ignored, as upstream does.
func parseCustomerPatch(body []byte) (models.CustomerPatch, error) {
	var p models.CustomerPatch
	o, err := input.DecodeNullish(body)
	if err != nil {
		return p, err
	}
	opt := func(name string, so input.Str) **string {
		if !o.Has(name) {
			return nil
		}
		v := o.Str(name, so).Ptr()
		return &v
	}
	p.Email = opt("email", input.Str{Trim: true, Check: input.Email, Max: 190})
	p.Name = opt("name", input.Str{Trim: true, Max: 100})
	p.Avatar = opt("avatar", input.Str{Check: input.URL})
	if o.Has("externalId") {
		p.ExternalID = o.Str("externalId", input.Str{Required: true, Trim: true, Min: 1, Max: 100}).Ptr()
	}
	p.StripeCustomerID = opt("stripeCustomerId", input.Str{Trim: true})
	o.Str("country", input.Str{Max: input.MaxIdentifier}).Ptr()
	return p, o.Err()
}

// UpdateCustomer answers PATCH /customers/{id}.
func (h *Handlers) UpdateCustomer(c *fiber.Ctx) error {
	patch, err := parseCustomerPatch(c.Body())
	if err != nil {
		return err
	}
	ws := request.Workspace(c)
	cust, err := h.DB.CustomerByRef(c.UserContext(), ws.ID, c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.Conversions.UpdateCustomer(c.UserContext(), cust, patch); err != nil {
		return err
	}
	return h.oneCustomerJSON(c, cust)
}

// idJSON is the body of delete answers.
type idJSON struct {
	ID string `json:"id"`
}

// DeleteCustomer answers DELETE /customers/{id} with {"id"}.
func (h *Handlers) DeleteCustomer(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	cust, err := h.DB.CustomerByRef(c.UserContext(), ws.ID, c.Params("id"))
	if err != nil {
		return err
	}
	if err := h.Conversions.DeleteCustomer(c.UserContext(), ws, cust.ID); err != nil {
		return err
	}
	return c.JSON(idJSON{ID: cust.ID})
}
