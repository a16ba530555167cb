package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/portal"
	"github.com/relinkhq/relink/internal/wire/dubjson"
	"github.com/relinkhq/relink/models"
)

// partnerProfileOmitted are the analytics parameters a partner may not set
// (Dub's partnerProfileAnalyticsQuerySchema omits them: ignored).
var partnerProfileOmitted = []string{"externalId", "tenantId", "programId", "partnerId", "tagId", "tagIds", "folderId"}

// PartnerProfileAnalytics answers GET /partner-profile/programs/{programId}/analytics
// (Dub's app/(ee)/api/partner-profile/programs/[programId]/analytics): the
// signed-in partner's (portal cookie) or a partner token's analytics in one
// of their programs, with /analytics' parameters, over that partner's links
// only. No links: []. linkId must name the partner's links ("is not" is
// refused); domain+key picks one of them.
func (h *Handlers) PartnerProfileAnalytics(c *fiber.Ctx) error {
	ctx := c.UserContext()
	bearer := ""
	if f := strings.Fields(c.Get(fiber.HeaderAuthorization)); len(f) == 2 && strings.EqualFold(f[0], "Bearer") {
		bearer = f[1]
	}
	email, err := h.Portal.Caller(ctx, c.Cookies(portal.CookieName), bearer)
	if err != nil {
		return err
	}
	if email == "" {
		return apierr.New(apierr.Unauthorized, "Unauthorized: Sign in to the partner portal or send a partner token.")
	}
	en, err := h.partnerEnrollment(c, email)
	if err != nil {
		return err
	}
	ls, err := h.DB.PartnerLinks(ctx, en.WorkspaceID, en.ProgramID, en.PartnerID)
	if err != nil {
		return err
	}
	if len(ls) == 0 {
		return c.JSON([]any{})
	}
	vals := request.QueryValues(c)
	for _, k := range partnerProfileOmitted {
		vals.Del(k)
	}
	q, err := analytics.Parse(vals, analytics.EndpointAnalytics, h.Now())
	if err != nil {
		return err
	}
	if err := scopeToLinks(q, ls); err != nil {
		return err
	}
	ws, err := h.DB.WorkspaceByID(ctx, en.WorkspaceID)
	if err != nil {
		return err
	}
	res, err := h.Analytics.Analytics(ctx, ws, q)
	if err != nil {
		return err
	}
	b, err := dubjson.AnalyticsJSON(res)
	return sendJSON(c, b, err)
}

// partnerEnrollment is the address's enrollment in the program of the URL
// (a prog_ id); another program is 404.
func (h *Handlers) partnerEnrollment(c *fiber.Ctx, email string) (*models.PortalEnrollment, error) {
	all, err := h.DB.EnrollmentsByEmail(c.UserContext(), email)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if all[i].ProgramID == c.Params("programId") {
			return &all[i], nil
		}
	}
	return nil, apierr.New(apierr.NotFound, "Program not found.")
}

// scopeToLinks restricts q to the partner's links, as Dub does: a linkId
// filter must name only them and may not be negated; domain+key must be
// one of them; otherwise every one of them.
func scopeToLinks(q *analytics.Query, ls []models.Link) error {
	mine := map[string]bool{}
	for _, l := range ls {
		mine[l.ID] = true
	}
	switch {
	case q.LinkID.Set():
		if q.LinkID.Negate {
			return apierr.New(apierr.BadRequest, "The 'is not' filter is not supported for partner analytics.")
		}
		for _, id := range q.LinkID.Values {
			if !mine[id] {
				return apierr.New(apierr.NotFound, "One or more links are not found")
			}
		}
	case q.Domain.Set() && q.Key != "":
		var found string
		for _, l := range ls {
			if l.Domain == q.Domain.Values[0] && l.Key == q.Key {
				found = l.ID
			}
		}
		if found == "" {
			return apierr.New(apierr.NotFound, "Link not found")
		}
		q.LinkID, q.Key, q.Domain = analytics.Filter{Values: []string{found}}, "", analytics.Filter{}
	default:
		ids := make([]string, 0, len(ls))
		for _, l := range ls {
			ids = append(ids, l.ID)
		}
		q.LinkID = analytics.Filter{Values: ids}
	}
	return nil
}
