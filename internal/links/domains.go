package links

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/models"
)

// DomainInput is a POST/PATCH /domains body after schema validation.
type DomainInput struct {
	Slug                    Field[string]
	ExpiredURL              Field[string]
	NotFoundURL             Field[string]
	Archived                Field[bool]
	Placeholder             Field[string]
	Logo                    Field[string]
	AssetLinks              Field[string]
	AppleAppSiteAssociation Field[string]
}

// ParseDomainInput validates a domain body (links.md §6.2).
func ParseDomainInput(body []byte, create bool) (*DomainInput, error) {
	d, err := input.Decode(body)
	if err != nil {
		return nil, err
	}
	in := &DomainInput{}
	in.Slug = d.Str("slug", input.Str{Required: create, Trim: true, Min: 1, Max: 190})
	in.ExpiredURL = d.Str("expiredUrl", input.Str{Nullable: true, Trim: true, Transform: urlify, Max: maxURL, EmptyNull: true})
	in.NotFoundURL = d.Str("notFoundUrl", input.Str{Nullable: true, Trim: true, Transform: urlify, Max: maxURL, EmptyNull: true})
	in.Archived = d.Bool("archived")
	in.Placeholder = d.Str("placeholder", input.Str{Nullable: true, Trim: true, Transform: urlify, Max: 100, EmptyNull: true})
	in.Logo = d.Str("logo", input.Str{Nullable: true, EmptyNull: true})
	in.AssetLinks = d.Str("assetLinks", input.Str{Nullable: true, EmptyNull: true})
	in.AppleAppSiteAssociation = d.Str("appleAppSiteAssociation", input.Str{Nullable: true, EmptyNull: true})
	if d.Err() != nil {
		return nil, d.Err()
	}
	if in.AssetLinks.Has() && !json.Valid([]byte(in.AssetLinks.Value)) {
		return nil, apierr.New(apierr.Unprocessable, "Invalid Asset Links")
	}
	if in.AppleAppSiteAssociation.Has() && !json.Valid([]byte(in.AppleAppSiteAssociation.Value)) {
		return nil, apierr.New(apierr.Unprocessable, "Invalid Apple App Site Association")
	}
	return in, nil
}

// checkSlug validates a domain name for create or rename.
func (s *Service) checkSlug(slug string) error {
	low := strings.ToLower(slug)
	if !ValidDomainName(slug) || low == hostOnly(s.DefaultDomain()) {
		return apierr.New(apierr.Unprocessable, "Invalid domain")
	}
	for _, h := range s.ReservedHosts {
		if low == hostOnly(strings.ToLower(h)) {
			return apierr.New(apierr.Unprocessable, "Invalid domain")
		}
	}
	if strings.HasPrefix(low, "www.") {
		return apierr.New(apierr.Unprocessable, "Custom domain cannot start with www.")
	}
	return nil
}

func hostOnly(h string) string {
	if i := strings.LastIndexByte(h, ':'); i > 0 && !strings.Contains(h[i:], "]") {
		return h[:i]
	}
	return h
}

func domainPlanGate(ws *models.Workspace, in *DomainInput) error {
	if ws.Plan.AtLeast(models.PlanPro) {
		return nil
	}
	if in.Logo.Has() || in.ExpiredURL.Has() || in.NotFoundURL.Has() || in.AssetLinks.Has() || in.AppleAppSiteAssociation.Has() {
		return apierr.New(apierr.Forbidden, "You can only set a logo, an expired URL, a not-found URL, Asset Links or an Apple App Site Association on a Pro plan and above. Upgrade to Pro to use these features.")
	}
	return nil
}

// DomainBySlug loads one of the workspace's domains (links.md §6.2 errors).
func (s *Service) DomainBySlug(ctx context.Context, ws *models.Workspace, slug string) (*models.Domain, error) {
	notOwned := apierr.Newf(apierr.Forbidden, "Domain %s does not belong to workspace %s.", slug, ws.PublicID())
	if s.IsDefaultDomain(slug) {
		return nil, notOwned
	}
	d, err := s.DB.DomainByName(ctx, slug)
	if err != nil {
		return nil, err
	}
	if d.WorkspaceID != ws.ID {
		return nil, notOwned
	}
	return d, nil
}

// CreateDomain answers POST /domains: the domain and its root link.
func (s *Service) CreateDomain(ctx context.Context, ws *models.Workspace, in *DomainInput) (*models.Domain, error) {
	slug := strings.ToLower(in.Slug.Value)
	if err := s.checkSlug(slug); err != nil {
		return nil, err
	}
	if err := domainPlanGate(ws, in); err != nil {
		return nil, err
	}
	now := s.now()
	d := &models.Domain{
		ID: ids.New(ids.Domain), WorkspaceID: ws.ID, Slug: slug, Archived: in.Archived.Value,
		Placeholder: in.Placeholder.Ptr(), ExpiredURL: in.ExpiredURL.Ptr(), NotFoundURL: in.NotFoundURL.Ptr(),
		Logo: in.Logo.Ptr(), AssetLinks: in.AssetLinks.Ptr(), AppleAppSiteAssociation: in.AppleAppSiteAssociation.Ptr(),
		CreatedAt: now, UpdatedAt: now,
	}
	if err := s.DB.InsertDomain(ctx, d); err != nil {
		return nil, err
	}
	s.domainChanged(d.Slug)
	return d, nil
}

// UpdateDomain answers PATCH /domains/{slug}. As upstream, archived falls
// back to false when absent; a new slug renames the domain and its links.
func (s *Service) UpdateDomain(ctx context.Context, ws *models.Workspace, slug string, in *DomainInput) (*models.Domain, error) {
	d, err := s.DomainBySlug(ctx, ws, slug)
	if err != nil {
		return nil, err
	}
	old := d.Slug
	if in.Slug.Has() && !strings.EqualFold(in.Slug.Value, d.Slug) {
		if err := s.checkSlug(in.Slug.Value); err != nil {
			return nil, err
		}
		d.Slug = strings.ToLower(in.Slug.Value)
	}
	if err := domainPlanGate(ws, in); err != nil {
		return nil, err
	}
	d.Archived = in.Archived.Value
	set := func(dst **string, f Field[string]) {
		if f.Set {
			*dst = f.Ptr()
		}
	}
	set(&d.Placeholder, in.Placeholder)
	set(&d.ExpiredURL, in.ExpiredURL)
	set(&d.NotFoundURL, in.NotFoundURL)
	set(&d.Logo, in.Logo)
	set(&d.AssetLinks, in.AssetLinks)
	set(&d.AppleAppSiteAssociation, in.AppleAppSiteAssociation)
	d.UpdatedAt = s.now()
	var moved []models.Link
	if old != d.Slug {
		if moved, err = s.DB.LinksOnDomain(ctx, ws.ID, old); err != nil {
			return nil, err
		}
	}
	if err := s.DB.SaveDomain(ctx, d, old); err != nil {
		return nil, err
	}
	for _, l := range moved {
		s.changed(old, l.Key)
		s.changed(d.Slug, l.Key)
	}
	s.domainChanged(old)
	if old != d.Slug {
		s.domainChanged(d.Slug)
	}
	return d, nil
}

// DeleteDomain answers DELETE /domains/{slug}: the domain and all its links.
func (s *Service) DeleteDomain(ctx context.Context, ws *models.Workspace, slug string) (string, error) {
	d, err := s.DomainBySlug(ctx, ws, slug)
	if err != nil {
		return "", err
	}
	gone, err := s.DB.DeleteDomain(ctx, d)
	if err != nil {
		return "", err
	}
	for _, l := range gone {
		s.changed(l.Domain, l.Key)
	}
	s.domainChanged(d.Slug)
	return d.Slug, nil
}
