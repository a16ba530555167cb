package api

import (
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

var usernameRe = regexp.MustCompile(`^[\p{L}\p{N}_-]+$`)

// parsePartnerBody reads a POST /partners body (§3.3), or the partner
// object of POST /tokens/embed/referrals.
func parsePartnerBody(o *input.Object) conversions.EnrollInput {
	var in conversions.EnrollInput
	if v := o.Str("email", input.Str{Required: true, Trim: true, Max: 190, Check: input.Email}).Ptr(); v != nil {
		in.Email = *v
	}
	in.Name = o.Str("name", input.Str{Trim: true, Max: 100}).Ptr()
	if in.Name != nil && *in.Name == "" {
		in.Name = nil
	}
	if in.Username = o.Str("username", input.Str{Trim: true, Max: 100}).Ptr(); in.Username != nil {
		if *in.Username == "" {
			in.Username = nil
		} else if !usernameRe.MatchString(*in.Username) {
			o.Fail("custom", "username", "Invalid username. Must be a URL-friendly string.")
		}
	}
	in.Image = o.Str("image", input.Str{Check: input.URL}).Ptr()
	if v := o.Str("tenantId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.TenantID = *v
	}
	if v := o.Str("groupId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.GroupID = *v
	}
	if in.Country = o.Str("country", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); in.Country != nil {
		if len(*in.Country) != 2 {
			o.Fail("invalid_format", "country", "Invalid country code: use an ISO 3166-1 alpha-2 code.")
		}
		up := strings.ToUpper(*in.Country)
		in.Country = &up
	}
	in.Description = o.Str("description", input.Str{Max: 5000}).Ptr()
	in.LinkProps = parseLinkProps(o)
	return in
}

// parseLinkProps reads the linkProps object with the links API's rules.
func parseLinkProps(o *input.Object) *conversions.LinkProps {
	raw, ok := o.Present("linkProps")
	if !ok || o.Err() != nil {
		return nil
	}
	in, err := links.ParseLinkProps(raw, o.Path("linkProps"))
	if err != nil {
		o.SetErr(err)
		return nil
	}
	props := &conversions.LinkProps{Input: in}
	if p := o.Child("linkProps"); p != nil {
		if v := p.Str("prefix", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
			props.Prefix = *v
		}
		if p.Err() != nil {
			o.SetErr(p.Err())
		}
	}
	return props
}

// CreatePartner answers POST /partners: 201 with the enrolled partner, also
// when the partner was already enrolled.
func (h *Handlers) CreatePartner(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	in := parsePartnerBody(o)
	if o.Err() != nil {
		return o.Err()
	}
	in.UserID = actor(c).UserID
	ep, err := h.Conversions.EnrollPartner(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(h.Links.Wire.APIEnrolledPartner(ep))
}

// partnerSorts lists GET /partners sortBy values, legacy names last.
var partnerSorts = []string{"totalSaleAmount", "createdAt", "totalClicks", "totalLeads", "totalConversions", "totalSales",
	"totalCommissions", "netRevenue", "earningsPerClick", "averageLifetimeValue", "clickToLeadRate", "clickToConversionRate",
	"leadToConversionRate", "returnOnAdSpend", "clicks", "leads", "conversions", "sales", "saleAmount"}

var legacyPartnerSorts = map[string]string{"clicks": "totalClicks", "leads": "totalLeads", "conversions": "totalConversions",
	"sales": "totalSales", "saleAmount": "totalSaleAmount"}

// ListPartners answers GET /partners (§3.4).
func (h *Handlers) ListPartners(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: partnerSorts, DefaultOrder: "desc"})
	if err != nil {
		return err
	}
	if v, ok := legacyPartnerSorts[p.SortBy]; ok {
		p.SortBy = v
	}
	q := models.PartnerQuery{
		GroupID: models.ParseSetFilter(c.Query("groupId")), Country: models.ParseSetFilter(c.Query("country")),
		Email: c.Query("email"), TenantID: c.Query("tenantId"), Search: c.Query("search"),
		SortBy: p.SortBy, Desc: p.Desc(), Limit: p.PageSize, Offset: p.Offset(), PartnerIDs: queryList(c, "partnerIds"),
	}
	if s := c.Query("status"); s != "" {
		if !contains(models.EnrollmentStatuses, s) {
			return apierr.Validation("invalid_value", "status", "Invalid option: expected one of "+request.Options(models.EnrollmentStatuses))
		}
		q.Status = s
	}
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	list, err := h.DB.ListEnrolledPartners(c.UserContext(), ws.ID, prog.ID, q)
	if err != nil {
		return err
	}
	out := make([]wire.APIEnrolledPartner, len(list))
	for i := range list {
		out[i] = h.Links.Wire.APIEnrolledPartner(&list[i]).WithAliases()
	}
	return c.JSON(out)
}

// queryList reads a list query parameter as Dub's schemas do: repeated
// (?a=x&a=y) or comma-separated (?a=x,y), empty items dropped.
func queryList(c *fiber.Ctx, name string) []string {
	var out []string
	for _, v := range c.Context().QueryArgs().PeekMulti(name) {
		for _, s := range strings.Split(string(v), ",") {
			if s = strings.TrimSpace(s); s != "" && !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// GetPartner answers GET /partners/{partnerId} (Dub's
// app/(ee)/api/partners/[partnerId]/route.ts): the partner enrolled in the
// workspace's program, 404 "Partner not found." otherwise.
func (h *Handlers) GetPartner(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	ep, err := h.DB.EnrolledPartnerByID(c.UserContext(), ws.ID, prog.ID, c.Params("partnerId"))
	if apierr.Is(err, apierr.NotFound) {
		return apierr.New(apierr.NotFound, "Partner not found.")
	} else if err != nil {
		return err
	}
	return c.JSON(h.Links.Wire.EnrolledPartnerExtended(ep))
}
