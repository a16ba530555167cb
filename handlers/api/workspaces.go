package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

// workspaceJSON is the API's view of a workspace.
type workspaceJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Slug      string `json:"slug"`
	Plan      string `json:"plan"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

func toWorkspaceJSON(w *models.Workspace) workspaceJSON {
	return workspaceJSON{ID: w.PublicID(), Name: w.Name, Slug: w.Slug, Plan: string(w.Plan),
		CreatedAt: request.Timestamp(w.CreatedAt), UpdatedAt: request.Timestamp(w.UpdatedAt)}
}

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

// fullWorkspaceJSON is upstream's WorkspaceSchema (lib/zod/schemas/
// workspaces.ts): what Relink knows — counts, this month's usage, the plan's
// limits, domains, the key's role, the allowed hostnames — and upstream's
// neutral values for what it has not (billing, Stripe, AI, SSO). Limits
// Relink does not enforce are unlimitedLimit.
type fullWorkspaceJSON struct {
	workspaceJSON
	Logo              *string           `json:"logo"`
	InviteCode        *string           `json:"inviteCode"`
	PlanTier          int               `json:"planTier"`
	StripeID          *string           `json:"stripeId"`
	BillingCycleStart int               `json:"billingCycleStart"`
	PaymentFailedAt   *string           `json:"paymentFailedAt"`
	StripeConnectID   *string           `json:"stripeConnectId"`
	TotalLinks        int64             `json:"totalLinks"`
	Usage             int64             `json:"usage"`
	UsageLimit        int64             `json:"usageLimit"`
	LinksUsage        int64             `json:"linksUsage"`
	LinksLimit        int64             `json:"linksLimit"`
	PayoutsUsage      int64             `json:"payoutsUsage"`
	PayoutsLimit      int64             `json:"payoutsLimit"`
	PayoutFee         float64           `json:"payoutFee"`
	DomainsLimit      int64             `json:"domainsLimit"`
	TagsLimit         int64             `json:"tagsLimit"`
	FoldersUsage      int64             `json:"foldersUsage"`
	FoldersLimit      int64             `json:"foldersLimit"`
	GroupsLimit       int64             `json:"groupsLimit"`
	NetworkInvites    int64             `json:"networkInvitesLimit"`
	UsersLimit        int64             `json:"usersLimit"`
	AIUsage           int64             `json:"aiUsage"`
	AILimit           int64             `json:"aiLimit"`
	ConversionEnabled bool              `json:"conversionEnabled"`
	DotLinkClaimed    bool              `json:"dotLinkClaimed"`
	Users             []workspaceUser   `json:"users"`
	Domains           []workspaceDomain `json:"domains"`
	Store             map[string]any    `json:"store"`
	AllowedHostnames  []string          `json:"allowedHostnames"`
	SSOEmailDomain    *string           `json:"ssoEmailDomain"`
	SSOEnforcedAt     *string           `json:"ssoEnforcedAt"`
}

type workspaceUser struct {
	Role            string  `json:"role"`
	DefaultFolderID *string `json:"defaultFolderId"`
}

type workspaceDomain struct {
	Slug     string `json:"slug"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// unlimitedLimit stands for a limit Relink does not enforce.
const unlimitedLimit = 1_000_000_000

func (h *Handlers) fullWorkspace(c *fiber.Ctx, w *models.Workspace) (fullWorkspaceJSON, error) {
	ctx, since := c.UserContext(), models.UsagePeriodStart(h.Now())
	out := fullWorkspaceJSON{workspaceJSON: toWorkspaceJSON(w), PlanTier: 1, BillingCycleStart: 1, Users: []workspaceUser{},
		Domains: []workspaceDomain{}, AllowedHostnames: w.EmbedHostnames(), PayoutsLimit: unlimitedLimit,
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
		out.Domains = append(out.Domains, workspaceDomain{Slug: d.Slug, Primary: d.Primary, Verified: d.Verified})
	}
	role := string(models.RoleOwner)
	if p := request.PrincipalOf(c); p != nil && p.Key != nil && p.Key.UserRole != nil {
		role = string(*p.Key.UserRole)
	}
	out.Users = append(out.Users, workspaceUser{Role: role})
	return out, nil
}

func orUnlimited(n int64) int64 {
	if n == 0 {
		return unlimitedLimit
	}
	return n
}
