package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// ownWorkspace resolves the path's idOrSlug against the key's workspace:
// a key only ever sees its own workspace (spec/links.md §1.3).
func ownWorkspace(c *fiber.Ctx) (*models.Workspace, error) {
	w := request.Workspace(c)
	sel := c.Params("idOrSlug")
	if strings.HasPrefix(sel, ids.Workspace) {
		if strings.TrimPrefix(sel, ids.Workspace) == w.ID {
			return w, nil
		}
	} else if strings.EqualFold(sel, w.Slug) || sel == w.ID {
		return w, nil
	}
	return nil, apierr.New(apierr.NotFound, "Workspace not found.")
}

// GetWorkspace answers GET /workspaces/{idOrSlug}: Dub's WorkspaceSchema.
func (h *Handlers) GetWorkspace(c *fiber.Ctx) error {
	w, err := ownWorkspace(c)
	if err != nil {
		return err
	}
	out, err := h.fullWorkspace(c, w)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// unlimitedLimit stands for a limit Relink does not enforce.
const unlimitedLimit = 1_000_000_000

func (h *Handlers) fullWorkspace(c *fiber.Ctx, w *models.Workspace) (wire.FullWorkspace, error) {
	ctx, since := c.UserContext(), models.UsagePeriodStart(h.Now())
	out := wire.FullWorkspace{Workspace: wire.WorkspaceOf(w), PlanTier: 1, BillingCycleStart: 1, Users: []wire.WorkspaceUser{},
		Domains: []wire.WorkspaceDomain{}, AllowedHostnames: w.EmbedHostnames(), PayoutsLimit: unlimitedLimit,
		DomainsLimit: unlimitedLimit, TagsLimit: unlimitedLimit, FoldersLimit: unlimitedLimit, GroupsLimit: unlimitedLimit,
		NetworkInvites: unlimitedLimit, UsersLimit: unlimitedLimit}
	var err error
	if out.TotalLinks, err = h.DB.CountLinks(ctx, w.ID, models.LinkFilter{AllFolders: true, ShowArchived: true}); err != nil {
		return out, err
	}
	if out.Usage, err = h.DB.EventUsage(ctx, w.ID, since); err != nil {
		return out, err
	}
	if out.LinksUsage, err = h.DB.LinksUsage(ctx, w.ID, since); err != nil {
		return out, err
	}
	lim := models.PlanLimits(w.Plan)
	out.UsageLimit, out.LinksLimit = orUnlimited(lim.Events), orUnlimited(lim.Links)
	fs, err := h.DB.ListFolders(ctx, w.ID, models.FolderFilter{})
	if err != nil {
		return out, err
	}
	out.FoldersUsage = int64(len(fs))
	ds, err := h.DB.ListDomains(ctx, w.ID, models.DomainFilter{})
	if err != nil {
		return out, err
	}
	for _, d := range ds {
		out.Domains = append(out.Domains, wire.WorkspaceDomain{Slug: d.Slug, Primary: d.Primary, Verified: d.Verified})
	}
	role := string(models.RoleOwner)
	if p := request.PrincipalOf(c); p != nil && p.Key != nil && p.Key.UserRole != nil {
		role = string(*p.Key.UserRole)
	}
	out.Users = append(out.Users, wire.WorkspaceUser{Role: role})
	return out, nil
}

func orUnlimited(n int64) int64 {
	if n == 0 {
		return unlimitedLimit
	}
	return n
}
