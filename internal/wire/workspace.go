package wire

import "github.com/relinkhq/relink/models"

// Workspace is the API's view of a workspace.
type Workspace struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Slug      string `json:"slug"`
	Plan      string `json:"plan"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
}

// WorkspaceOf writes w.
func WorkspaceOf(w *models.Workspace) Workspace {
	return Workspace{ID: w.PublicID(), Name: w.Name, Slug: w.Slug, Plan: string(w.Plan),
		CreatedAt: Timestamp(w.CreatedAt), UpdatedAt: Timestamp(w.UpdatedAt)}
}

// FullWorkspace is upstream's WorkspaceSchema (lib/zod/schemas/
// workspaces.ts): what Relink knows — counts, this month's usage, the
// plan's limits, domains, the key's role, the allowed hostnames — and
// upstream's neutral values for what it has not (billing, Stripe, AI, SSO).
// Limits Relink does not enforce are UnlimitedLimit; the API fills it in.
type FullWorkspace struct {
	Workspace
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
	Users             []WorkspaceUser   `json:"users"`
	Domains           []WorkspaceDomain `json:"domains"`
	Store             map[string]any    `json:"store"`
	AllowedHostnames  []string          `json:"allowedHostnames"`
	SSOEmailDomain    *string           `json:"ssoEmailDomain"`
	SSOEnforcedAt     *string           `json:"ssoEnforcedAt"`
}

// WorkspaceUser is the calling key's user in a FullWorkspace.
type WorkspaceUser struct {
	Role            string  `json:"role"`
	DefaultFolderID *string `json:"defaultFolderId"`
}

// WorkspaceDomain is a domain in a FullWorkspace.
type WorkspaceDomain struct {
	Slug     string `json:"slug"`
	Primary  bool   `json:"primary"`
	Verified bool   `json:"verified"`
}

// Invite is what an invite link's token reveals: which workspace, for
// which address, with which role, until when.
type Invite struct {
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	ExpiresAt string    `json:"expiresAt"`
	Workspace Workspace `json:"workspace"`
}

// InviteOf writes inv into w.
func InviteOf(inv *models.Invite, w *models.Workspace) Invite {
	return Invite{Email: inv.Email, Role: string(inv.Role), ExpiresAt: Timestamp(inv.ExpiresAt), Workspace: WorkspaceOf(w)}
}
