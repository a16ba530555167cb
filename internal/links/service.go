package links

import (
	"context"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/models"
)

func notInWorkspace(ws *models.Workspace) error {
	return apierr.Newf(apierr.Unauthorized, "Link does not belong to workspace %s.", ws.PublicID())
}

// Find resolves a path reference (spec/links.md §5.5): "ext_…" is an externalId
// of the workspace, anything else a link id. Another workspace's link is a
// 401 as upstream answers it.
func (s *Service) Find(ctx context.Context, ws *models.Workspace, ref string) (*models.Link, error) {
	if ext, ok := strings.CutPrefix(ref, "ext_"); ok {
		return s.DB.LinkByExternalID(ctx, ws.ID, ext)
	}
	l, err := s.DB.LinkAnyWorkspace(ctx, ref)
	if err != nil {
		return nil, err
	}
	if l.WorkspaceID != ws.ID {
		return nil, notInWorkspace(ws)
	}
	return l, nil
}

// Get is Find with the link's tags loaded; a link in a folder needs
// folders.read there (spec/parity.md §13.3).
func (s *Service) Get(ctx context.Context, a Actor, ref string) (*models.Link, error) {
	l, err := s.Find(ctx, a.Workspace, ref)
	if err != nil {
		return nil, err
	}
	return s.readable(ctx, a, l)
}

// readable checks folders.read on the link's folder and loads its tags.
func (s *Service) readable(ctx context.Context, a Actor, l *models.Link) (*models.Link, error) {
	if l.FolderID != nil {
		if _, err := s.FolderAccess(ctx, a, *l.FolderID, models.PermFolderRead); err != nil {
			return nil, err
		}
	}
	return l, s.DB.LoadTags(ctx, []*models.Link{l})
}

// InfoQuery is GET /links/info's query.
type InfoQuery struct {
	Domain, Key, LinkID, ExternalID string
}

// Info answers GET /links/info (spec/links.md §5.4).
func (s *Service) Info(ctx context.Context, a Actor, q InfoQuery) (*models.Link, error) {
	ws := a.Workspace
	// The schema checks the domain first (upstream's domainKeySchema refine).
	if q.Domain != "" && !ValidDomainName(q.Domain) && !s.IsDefaultDomain(q.Domain) {
		return nil, apierr.Validation("custom", "domain", "Invalid domain format")
	}
	switch {
	case q.Domain == "" && q.Key == "" && q.LinkID == "" && q.ExternalID == "":
		e := apierr.New(apierr.BadRequest, "You must provide a domain and a key or a linkId or an externalId to retrieve a link.")
		e.DocURL = "https://dub.co/docs/api-reference/endpoint/retrieve-a-link"
		return nil, e
	case q.LinkID != "":
		return s.Get(ctx, a, q.LinkID)
	case q.ExternalID != "":
		ext, prefixed := strings.CutPrefix(q.ExternalID, "ext_")
		l, err := s.DB.LinkByExternalID(ctx, ws.ID, ext)
		if apierr.Is(err, apierr.NotFound) && !prefixed {
			return nil, apierr.New(apierr.BadRequest, "Invalid externalId. Did you forget to prefix it with `ext_`?")
		}
		if err != nil {
			return nil, err
		}
		return s.readable(ctx, a, l)
	case q.Domain == "":
		return nil, apierr.New(apierr.NotFound, "Link not found.")
	}
	key := shortlink.LookupKey(q.Key)
	l, err := s.DB.LinkByDomainKey(ctx, q.Domain, key)
	if err != nil {
		return nil, err
	}
	if l.WorkspaceID != ws.ID {
		return nil, notInWorkspace(ws)
	}
	return s.readable(ctx, a, l)
}

// Create answers POST /links.
func (s *Service) Create(ctx context.Context, a Actor, in *Input) (*models.Link, error) {
	domains, err := s.workspaceDomains(ctx, a.Workspace)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, a, in, domains, mode{})
}

func (s *Service) create(ctx context.Context, a Actor, in *Input, domains []models.Domain, m mode) (*models.Link, error) {
	p, err := s.process(ctx, a, in, domains, m)
	if err != nil {
		return nil, err
	}
	now := s.now()
	p.link.CreatedAt, p.link.UpdatedAt = now, now
	var tags []string
	if p.tagIDs != nil {
		tags = *p.tagIDs
	}
	if m.bulk || !s.emits(a) {
		if err := s.DB.InsertLink(ctx, p.link, tags, now); err != nil {
			return nil, err
		}
		s.changed(p.link.Domain, p.link.Key)
		return p.link, s.DB.LoadTags(ctx, []*models.Link{p.link})
	}
	err = s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.InsertLink(ctx, p.link, tags, now); err != nil {
			return err
		}
		if err := tx.LoadTags(ctx, []*models.Link{p.link}); err != nil {
			return err
		}
		return s.Events.LinkEvent(ctx, tx, EventCreated, p.link, nil)
	})
	if err != nil {
		return nil, err
	}
	s.changed(p.link.Domain, p.link.Key)
	return p.link, nil
}

// Update answers PATCH/PUT /links/{ref}: the stored link merged with the
// body, then the §4 rules (spec/links.md §5.6). It always returns the full link.
func (s *Service) Update(ctx context.Context, a Actor, ref string, body *Input) (*models.Link, error) {
	old, err := s.Find(ctx, a.Workspace, ref)
	if err != nil {
		return nil, err
	}
	if err := s.updateFolders(ctx, a, old, body); err != nil {
		return nil, err
	}
	domains, err := s.workspaceDomains(ctx, a.Workspace)
	if err != nil {
		return nil, err
	}
	return s.update(ctx, a, old, body, domains, false)
}

// updateFolders is PATCH's folder check (spec/links.md §5.6): folders.links.write
// on the link's current folder and on the body's folderId.
func (s *Service) updateFolders(ctx context.Context, a Actor, old *models.Link, body *Input) error {
	if old.FolderID != nil {
		if _, err := s.FolderAccess(ctx, a, *old.FolderID, models.PermFolderLinksWrite); err != nil {
			return err
		}
	}
	if f := body.FolderID.Ptr(); f != nil {
		if _, err := s.FolderAccess(ctx, a, *f, models.PermFolderLinksWrite); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) update(ctx context.Context, a Actor, old *models.Link, body *Input, domains []models.Domain, bulk bool) (*models.Link, error) {
	in, m := merge(old, body)
	m.skipUnique = bulk
	p, err := s.process(ctx, a, in, domains, m)
	if err != nil {
		return nil, err
	}
	p.link.UserID = old.UserID // never changed by an update
	if bulk || !s.emits(a) {
		if err := s.DB.SaveLink(ctx, p.link, p.tagIDs, s.now()); err != nil {
			return nil, err
		}
	} else if err := s.saveAndEmit(ctx, old, p); err != nil {
		return nil, err
	}
	s.changed(old.Domain, old.Key)
	if p.link.Domain != old.Domain || p.link.Key != old.Key {
		s.changed(p.link.Domain, p.link.Key)
	}
	return p.link, s.DB.LoadTags(ctx, []*models.Link{p.link})
}

// saveAndEmit saves an update and emits link.updated in one transaction.
func (s *Service) saveAndEmit(ctx context.Context, old *models.Link, p *prepared) error {
	if err := s.DB.LoadTags(ctx, []*models.Link{old}); err != nil {
		return err
	}
	return s.DB.Tx(ctx, func(tx *models.DB) error {
		if err := tx.SaveLink(ctx, p.link, p.tagIDs, s.now()); err != nil {
			return err
		}
		if err := tx.LoadTags(ctx, []*models.Link{p.link}); err != nil {
			return err
		}
		return s.Events.LinkEvent(ctx, tx, EventUpdated, p.link, old)
	})
}

// Upsert answers PUT /links/upsert: the workspace's first link with the same
// url is updated, else a link is created (spec/links.md §5.7).
func (s *Service) Upsert(ctx context.Context, a Actor, in *Input) (*models.Link, error) {
	old, err := s.DB.FirstLinkByURL(ctx, a.Workspace.ID, in.URL.Value)
	switch {
	case err == nil:
		if err := s.updateFolders(ctx, a, old, in); err != nil {
			return nil, err
		}
		domains, err := s.workspaceDomains(ctx, a.Workspace)
		if err != nil {
			return nil, err
		}
		return s.update(ctx, a, old, in, domains, false)
	case apierr.Is(err, apierr.NotFound):
		a.Silent = true // upstream's upsert create path fires no link.created
		return s.Create(ctx, a, in)
	}
	return nil, err
}

// Delete answers DELETE /links/{ref} and returns the deleted link's id.
func (s *Service) Delete(ctx context.Context, a Actor, ref string) (string, error) {
	return s.Remove(ctx, a, ref)
}

// Remove is Delete by an actor (a silent one fires no link.deleted).
func (s *Service) Remove(ctx context.Context, a Actor, ref string) (string, error) {
	ws := a.Workspace
	l, err := s.Find(ctx, ws, ref)
	if err != nil {
		return "", err
	}
	if l.IsRoot() {
		return "", apierr.New(apierr.Forbidden, msgRootDelete)
	}
	if l.FolderID != nil {
		if _, err := s.FolderAccess(ctx, a, *l.FolderID, models.PermFolderLinksWrite); err != nil {
			return "", err
		}
	}
	if !s.emits(a) {
		err = s.DB.DeleteLink(ctx, ws.ID, l.ID)
	} else if err = s.DB.LoadTags(ctx, []*models.Link{l}); err == nil {
		err = s.DB.Tx(ctx, func(tx *models.DB) error {
			if err := tx.DeleteLink(ctx, ws.ID, l.ID); err != nil {
				return err
			}
			return s.Events.LinkEvent(ctx, tx, EventDeleted, l, nil)
		})
	}
	if err != nil {
		return "", err
	}
	s.changed(l.Domain, l.Key)
	return l.ID, nil
}

// LinkError is a bulk entry that failed (spec/links.md §2.3).
type LinkError struct {
	Link  any // the request item (json.RawMessage), a *models.Link, or map{id}
	Error string
	Code  apierr.Code
}

// BulkResult is one entry of a bulk response: a link or an error.
type BulkResult struct {
	Link  *models.Link
	Error *LinkError
}

func entryError(link any, err error) (*LinkError, bool) {
	ae, ok := err.(*apierr.Error)
	if !ok || ae.Code == apierr.InternalServerError {
		return nil, false
	}
	return &LinkError{Link: link, Error: ae.Message, Code: ae.Code}, true
}

// BulkCreate answers POST /links/bulk (spec/links.md §5.9): created links in
// input order, then the error entries.
func (s *Service) BulkCreate(ctx context.Context, a Actor, items []*Input) ([]BulkResult, error) {
	domains, err := s.workspaceDomains(ctx, a.Workspace)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var dups []string
	for _, in := range items {
		if !in.Key.Has() || in.Key.Value == "" {
			continue
		}
		d := strings.ToLower(in.Domain.Value)
		if d == "" {
			d, _ = s.resolveDomain("", domains)
		}
		id := d + "/" + strings.ToLower(in.Key.Value)
		if seen[id] {
			dups = appendUnique(dups, d+"/"+in.Key.Value)
		}
		seen[id] = true
	}
	if len(dups) > 0 {
		return nil, apierr.Newf(apierr.BadRequest, "Duplicate links found: %s", strings.Join(dups, ", "))
	}
	var links, errs []BulkResult
	for _, in := range items {
		l, err := s.create(ctx, a, in, domains, mode{bulk: true})
		if err != nil {
			le, ok := entryError(in.Raw, err)
			if !ok {
				return nil, err
			}
			errs = append(errs, BulkResult{Error: le})
			continue
		}
		links = append(links, BulkResult{Link: l})
	}
	return append(links, errs...), nil
}

// BulkUpdate answers PATCH /links/bulk (spec/links.md §5.10): updated links, then
// not-found entries, then processing errors. Whole-request checks (tags,
// folder, url) fail the request.
func (s *Service) BulkUpdate(ctx context.Context, a Actor, b *BulkUpdate) ([]BulkResult, error) {
	ws := a.Workspace
	out := []BulkResult{}
	if len(b.LinkIDs) == 0 && len(b.ExternalIDs) == 0 {
		return out, nil
	}
	if b.Data.URL.Has() && b.Data.URL.Value != "" && (!ValidURL(b.Data.URL.Value) || UnsafeScheme(b.Data.URL.Value)) {
		return nil, apierr.Validation("custom", "data.url", "Invalid URL")
	}
	if _, err := s.resolveTags(ctx, ws.ID, b.Data, false); err != nil {
		return nil, err
	}
	if ids := b.Data.WebhookIDs; ids.Has() && len(ids.Value) > 0 {
		// The bulk route's own check, before any link (Dub's PATCH /links/bulk).
		bad, err := s.DB.UnknownWebhookIDs(ctx, ws.ID, ids.Value)
		if err != nil {
			return nil, err
		}
		if len(bad) > 0 {
			return nil, apierr.Newf(apierr.Unprocessable, "Invalid webhookIds detected: %s", strings.Join(bad, ", "))
		}
	}
	if f := b.Data.FolderID.Ptr(); f != nil {
		if _, err := s.FolderAccess(ctx, a, *f, models.PermFolderLinksWrite); err != nil {
			return nil, err
		}
	}
	var found []models.Link
	var err error
	want := b.LinkIDs
	if len(want) > 0 {
		found, err = s.DB.LinksByRefs(ctx, ws.ID, want, nil)
	} else {
		want = b.ExternalIDs
		found, err = s.DB.LinksByRefs(ctx, ws.ID, nil, want)
	}
	if err != nil {
		return nil, err
	}
	has := map[string]bool{}
	for _, l := range found {
		has[l.ID] = true
		if l.ExternalID != nil {
			has[strings.ToLower(*l.ExternalID)] = true
		}
	}
	domains, err := s.workspaceDomains(ctx, ws)
	if err != nil {
		return nil, err
	}
	found, denied, err := s.writableLinks(ctx, a, found)
	if err != nil {
		return nil, err
	}
	var notFound, failed []BulkResult
	for _, id := range want {
		k := id
		if len(b.LinkIDs) == 0 {
			k = strings.ToLower(id)
		}
		if !has[k] {
			notFound = append(notFound, BulkResult{Error: &LinkError{Link: map[string]string{"id": id}, Error: "Link not found", Code: apierr.NotFound}})
		}
	}
	for i := range found {
		old := &found[i]
		l, err := s.update(ctx, a, old, b.Data, domains, true)
		if err != nil {
			le, ok := entryError(old, err)
			if !ok {
				return nil, err
			}
			failed = append(failed, BulkResult{Error: le})
			continue
		}
		out = append(out, BulkResult{Link: l})
	}
	out = append(out, notFound...)
	for i := range denied {
		l := &denied[i]
		out = append(out, BulkResult{Error: &LinkError{Link: l, Code: apierr.Forbidden,
			Error: "You don't have permission to update links in this folder: " + *l.FolderID}})
	}
	return append(out, failed...), nil
}

// BulkDelete answers DELETE /links/bulk: ids or ext_ ids of the workspace;
// unknown ids, root links and links in folders the actor may not change are
// skipped (spec/links.md §5.11, spec/parity.md §13.3).
func (s *Service) BulkDelete(ctx context.Context, a Actor, refs []string) (int, error) {
	ws := a.Workspace
	var ids, exts []string
	for _, r := range refs {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if e, ok := strings.CutPrefix(r, "ext_"); ok {
			exts = append(exts, e)
		} else {
			ids = append(ids, r)
		}
	}
	if len(ids) == 0 && len(exts) == 0 {
		return 0, apierr.New(apierr.BadRequest, "Please provide linkIds to delete. You may use `linkId` or `externalId` prefixed with `ext_` as comma separated values.")
	}
	found, err := s.DB.LinksByRefs(ctx, ws.ID, ids, exts)
	if err != nil {
		return 0, err
	}
	if found, _, err = s.writableLinks(ctx, a, found); err != nil {
		return 0, err
	}
	ids = ids[:0]
	for _, l := range found {
		ids = append(ids, l.ID)
	}
	gone, err := s.DB.DeleteLinks(ctx, ws.ID, ids)
	if err != nil {
		return 0, err
	}
	for _, l := range gone {
		s.changed(l.Domain, l.Key)
	}
	return len(gone), nil
}

// writableLinks splits links into those the actor may change and those in
// folders where it lacks folders.links.write (upstream's
// verifyFolderAccessBulk: a missing folder denies too).
func (s *Service) writableLinks(ctx context.Context, a Actor, ls []models.Link) (ok, denied []models.Link, err error) {
	var folders []string
	for _, l := range ls {
		if l.FolderID != nil {
			folders = appendUnique(folders, *l.FolderID)
		}
	}
	if len(folders) == 0 {
		return ls, nil, nil
	}
	allowed, err := s.folderAccessBulk(ctx, a, folders, models.PermFolderLinksWrite)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range ls {
		if l.FolderID == nil || allowed[*l.FolderID] {
			ok = append(ok, l)
		} else {
			denied = append(denied, l)
		}
	}
	return ok, denied, nil
}
