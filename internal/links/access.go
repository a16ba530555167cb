package links

import (
	"context"
	"sort"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// Folder permissions (spec/parity.md §13): who may read a folder's links, change
// them, change the folder and share it.

// MsgFolderForbidden is verifyFolderAccess's refusal (spec/parity.md §13.3).
const MsgFolderForbidden = "You are not allowed to perform this action on this folder."

// Role is the actor's workspace role: a key without a user (a machine key)
// acts as an owner (spec/parity.md §13.2); a user who has left the workspace is
// refused as upstream refuses them.
func (s *Service) Role(ctx context.Context, a Actor) (models.Role, error) {
	if a.UserID == nil {
		return models.RoleOwner, nil
	}
	if a.Role != "" {
		return a.Role, nil
	}
	role, err := s.DB.MemberRole(ctx, a.Workspace.ID, *a.UserID)
	if apierr.Is(err, apierr.NotFound) {
		return "", apierr.New(apierr.NotFound, "Workspace not found.")
	}
	return role, err
}

// FolderRoles is the actor's effective role in each folder, by folder id,
// as upstream's findFolderUserRole gives it (no plan rule).
func (s *Service) FolderRoles(ctx context.Context, a Actor, fs []models.Folder) (map[string]models.FolderRole, error) {
	return s.folderRoles(ctx, a, fs)
}

func (s *Service) folderRoles(ctx context.Context, a Actor, fs []models.Folder) (map[string]models.FolderRole, error) {
	out := make(map[string]models.FolderRole, len(fs))
	role, err := s.Role(ctx, a)
	if err != nil {
		return nil, err
	}
	own := map[string]*models.FolderUser{}
	if role != models.RoleOwner {
		ids := make([]string, len(fs))
		for i, f := range fs {
			ids[i] = f.ID
		}
		if own, err = s.DB.FolderUsersOf(ctx, *a.UserID, ids); err != nil {
			return nil, err
		}
	}
	for _, f := range fs {
		out[f.ID] = models.EffectiveFolderRole(f.AccessLevel, own[f.ID], role)
	}
	return out, nil
}

// enforced reports whether single-item folder checks apply to the actor:
// not for workspace owners, not below Business (upstream's
// canManageFolderPermissions: everyone has full access there).
func (s *Service) enforced(ctx context.Context, a Actor) (bool, error) {
	role, err := s.Role(ctx, a)
	if err != nil {
		return false, err
	}
	return role != models.RoleOwner && a.Workspace.Plan.AtLeast(models.PlanBusiness), nil
}

// FolderAccess is upstream's verifyFolderAccess: 404 for a missing folder or
// another workspace's, 403 MsgFolderForbidden when the actor's effective
// role lacks perm; it returns the folder.
func (s *Service) FolderAccess(ctx context.Context, a Actor, folderID string, perm models.FolderPerm) (*models.Folder, error) {
	f, err := s.DB.FolderByID(ctx, a.Workspace.ID, folderID)
	if err != nil {
		return nil, err
	}
	on, err := s.enforced(ctx, a)
	if err != nil || !on {
		return f, err
	}
	roles, err := s.folderRoles(ctx, a, []models.Folder{*f})
	if err != nil {
		return nil, err
	}
	if !roles[f.ID].Can(perm) {
		return nil, apierr.New(apierr.Forbidden, MsgFolderForbidden)
	}
	return f, nil
}

// folderAccessBulk is upstream's verifyFolderAccessBulk: for each of the
// workspace's folders among ids, whether the actor holds perm there; ids of
// missing or foreign folders are absent. Only workspace owners skip it — not
// the plan (spec/parity.md §13.3's quirk).
func (s *Service) folderAccessBulk(ctx context.Context, a Actor, ids []string, perm models.FolderPerm) (map[string]bool, error) {
	fs, err := s.DB.FoldersByIDs(ctx, a.Workspace.ID, ids)
	if err != nil {
		return nil, err
	}
	list := make([]models.Folder, 0, len(fs))
	for _, f := range fs {
		list = append(list, f)
	}
	roles, err := s.folderRoles(ctx, a, list)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(list))
	for id, r := range roles {
		out[id] = r.Can(perm)
	}
	return out, nil
}

// visibleTo is the user whose folders bound an implicit folder scope
// (upstream's getFolderIdsToFilter): on Business and above, a non-owner
// sees links in no folder plus the folders GET /folders lists them; owners
// and lower plans see every folder ("").
func (s *Service) visibleTo(ctx context.Context, a Actor) (string, error) {
	on, err := s.enforced(ctx, a)
	if err != nil || !on {
		return "", err
	}
	return *a.UserID, nil
}

// ListFolders answers GET /folders: a non-owner sees the folders with an
// accessLevel or a role of their own, minus those they were removed from
// (spec/links.md §8.2; any plan, as upstream's getFolders).
func (s *Service) ListFolders(ctx context.Context, a Actor, f models.FolderFilter) ([]models.Folder, error) {
	role, err := s.Role(ctx, a)
	if err != nil {
		return nil, err
	}
	if role != models.RoleOwner {
		f.VisibleTo = *a.UserID
	}
	return s.DB.ListFolders(ctx, a.Workspace.ID, f)
}

// FolderAccessView is what the console shows of an actor's rights on folders.
type FolderAccessView struct {
	Role      models.FolderRole // effective role ("" none), after the plan rule
	Read      bool
	LinkWrite bool // may create, change and delete links in it
	Write     bool // may rename and delete it
	Share     bool // may set accessLevel and members' roles (Business+)
}

// FolderRights is the actor's rights on each folder (the console's view of
// FolderAccess): below Business and for owners everything is allowed but
// sharing, which needs Business.
func (s *Service) FolderRights(ctx context.Context, a Actor, fs []models.Folder) (map[string]FolderAccessView, error) {
	on, err := s.enforced(ctx, a)
	if err != nil {
		return nil, err
	}
	roles, err := s.folderRoles(ctx, a, fs)
	if err != nil {
		return nil, err
	}
	biz := a.Workspace.Plan.AtLeast(models.PlanBusiness)
	out := make(map[string]FolderAccessView, len(fs))
	for _, f := range fs {
		r := roles[f.ID]
		if !on {
			r = models.FolderOwner
		}
		out[f.ID] = FolderAccessView{Role: r, Read: r.Can(models.PermFolderRead), LinkWrite: r.Can(models.PermFolderLinksWrite),
			Write: r.Can(models.PermFolderWrite), Share: biz && roles[f.ID].Can(models.PermFolderUsersWrite)}
	}
	return out, nil
}

// FolderMember is one workspace member's place in a folder.
type FolderMember struct {
	UserID, Email string
	Name          *string
	WorkspaceRole models.Role
	Role          models.FolderRole // effective ("" none)
	Own           bool              // the role comes from the member's own row
}

// FolderMembers answers "who can reach this folder" (upstream's GET
// /folders/{id}/users): every member with the effective role.
func (s *Service) FolderMembers(ctx context.Context, a Actor, folderID string) (*models.Folder, []FolderMember, error) {
	f, err := s.FolderAccess(ctx, a, folderID, models.PermFolderRead)
	if err != nil {
		return nil, nil, err
	}
	ms, err := s.DB.ListMembers(ctx, a.Workspace.ID)
	if err != nil {
		return nil, nil, err
	}
	rows, err := s.DB.FolderUsers(ctx, f.ID)
	if err != nil {
		return nil, nil, err
	}
	out := make([]FolderMember, len(ms))
	for i, m := range ms {
		out[i] = FolderMember{UserID: m.UserID, Email: m.Email, Name: m.Name, WorkspaceRole: m.Role,
			Role: models.EffectiveFolderRole(f.AccessLevel, rows[m.UserID], m.Role), Own: rows[m.UserID] != nil}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Email < out[j].Email })
	return f, out, nil
}

// SetFolderRole is upstream's updateUserRoleInFolder: the actor, holding
// folders.users.write on the folder on a Business+ plan, gives a member a
// role there (nil: no access). Nobody changes their own role.
func (s *Service) SetFolderRole(ctx context.Context, a Actor, folderID, userID string, role *string) error {
	if a.UserID != nil && *a.UserID == userID {
		return apierr.New(apierr.Forbidden, "You cannot update your own role.")
	}
	if !a.Workspace.Plan.AtLeast(models.PlanBusiness) {
		return apierr.New(apierr.Forbidden, "Folder permission management requires a Business plan or higher.")
	}
	if role != nil && !validFolderRole(*role) {
		return apierr.Validation("invalid_value", "role", `Invalid option: expected one of "owner"|"editor"|"viewer"`)
	}
	f, err := s.FolderAccess(ctx, a, folderID, models.PermFolderUsersWrite)
	if err != nil {
		return err
	}
	if _, err := s.DB.MemberRole(ctx, a.Workspace.ID, userID); err != nil {
		if apierr.Is(err, apierr.NotFound) {
			return apierr.New(apierr.NotFound, "User not found.")
		}
		return err
	}
	return s.DB.SetFolderUserRole(ctx, f.ID, userID, role, s.now())
}

func validFolderRole(r string) bool {
	for _, x := range models.FolderRoles {
		if string(x) == r {
			return true
		}
	}
	return false
}

// checkLinkFolder is spec/links.md §4.6 for a link's target folder. A create
// needs a paid plan and folders.links.write there (bulk create words the
// refusals per item, spec/parity.md §13.3); an update's folders were checked
// before the merge (Update, BulkUpdate), so only the new folder's existence
// is checked here.
func (s *Service) checkLinkFolder(ctx context.Context, a Actor, folderID *string, old *models.Link, m mode) error {
	if folderID == nil || (old != nil && old.FolderID != nil && *old.FolderID == *folderID) {
		return nil
	}
	if old != nil {
		_, err := s.DB.FolderByID(ctx, a.Workspace.ID, *folderID)
		return err
	}
	if !a.Workspace.Plan.AtLeast(models.PlanPro) {
		return apierr.New(apierr.Forbidden, msgFolderFree)
	}
	if !m.bulk {
		_, err := s.FolderAccess(ctx, a, *folderID, models.PermFolderLinksWrite)
		return err
	}
	ok, err := s.folderAccessBulk(ctx, a, []string{*folderID}, models.PermFolderLinksWrite)
	if err != nil {
		return err
	}
	allowed, found := ok[*folderID]
	switch {
	case !found:
		return apierr.Newf(apierr.Unprocessable, "Invalid folderId detected: %s", *folderID)
	case !allowed:
		return apierr.Newf(apierr.Forbidden, "You don't have write access to the folder: %s", *folderID)
	}
	return nil
}
