package conversions

import (
	"context"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// UpdateEmbedLink changes a partner's own link from the embedded dashboard
// (PATCH /api/embed/referrals/links/{id}, spec/partners-and-embed.md §6.7): a new
// destination must pass the group's additional-link rules (§3.5); the key is
// checked for uniqueness only when it changes. A default link's destination
// is fixed (403). The caller has checked that
// the link belongs to the enrollment's partner.
func (s *Service) UpdateEmbedLink(ctx context.Context, ws *models.Workspace, e *models.Enrollment, l *models.Link, dest, key string) (*models.Link, error) {
	prog, g, _, err := s.partnerLinkContext(ctx, s.DB, ws, PartnerSelector{PartnerID: e.PartnerID})
	if err != nil {
		return nil, err
	}
	if withoutScheme(dest) != withoutScheme(l.URL) {
		if l.PartnerGroupDefaultLinkID != nil {
			return nil, apierr.New(apierr.Forbidden, MsgDefaultLinkDestination)
		}
		if err := checkDestination(g, dest); err != nil {
			return nil, err
		}
		dest = withUTM(dest, g)
	} else {
		dest = l.URL
	}
	if key == "" {
		key = l.Key
	}
	body := partnerLinkInput(nil, prog, e, l.Domain, dest, key)
	return s.Links.Update(ctx, links.Actor{Workspace: ws}, l.ID, body)
}

// MsgDefaultLinkDestination answers a destination change on a default link.
const MsgDefaultLinkDestination = "You cannot update the destination URL of your default link."

func withoutScheme(u string) string {
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	return strings.TrimSuffix(u, "/")
}
