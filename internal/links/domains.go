package links

import (
	"bytes"
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
	// DeepviewData is JSON text (spec/parity.md §11.4), compacted once valid;
	// null or "" clears it.
	DeepviewData Field[string]
}

// ParseDomainInput validates a domain body (spec/links.md §6.2).
func ParseDomainInput(body []byte, create bool) (*DomainInput, error) {
	d, err := input.Decode(body)
	if err != nil {
		return nil, err
	}
	in := &DomainInput{}
	// Dub's createDomainBodySchema: z.string({ error: "slug is required" })
	// .min(1, …).max(190, …).
	in.Slug = d.Str("slug", input.Str{Required: create, ReqMsg: "slug is required", Trim: true, Min: 1, Max: 190,
		MinMsg: "slug cannot be empty.", MaxMsg: "slug cannot be longer than 190 characters."})
	in.ExpiredURL = d.Str("expiredUrl", input.Str{Nullable: true, Trim: true, Transform: urlify, Max: maxURL, EmptyNull: true})
	in.NotFoundURL = d.Str("notFoundUrl", input.Str{Nullable: true, Trim: true, Transform: urlify, Max: maxURL, EmptyNull: true})
	in.Archived = d.Bool("archived")
	in.Placeholder = d.Str("placeholder", input.Str{Nullable: true, Trim: true, Transform: urlify, Max: 100, EmptyNull: true})
	in.Logo = d.Str("logo", input.Str{Nullable: true, EmptyNull: true})
	in.AssetLinks = d.Str("assetLinks", input.Str{Nullable: true, EmptyNull: true})
	in.AppleAppSiteAssociation = d.Str("appleAppSiteAssociation", input.Str{Nullable: true, EmptyNull: true})
	in.DeepviewData = d.Str("deepviewData", input.Str{Nullable: true, EmptyNull: true})
	if d.Err() != nil {
		return nil, d.Err()
	}
	return in, nil
}

// checkDomainJSON runs after the plan gate, as upstream parses the JSON
// settings only then: invalid JSON is a plain 422 naming the setting.
func checkDomainJSON(in *DomainInput) error {
	if in.AssetLinks.Has() && !json.Valid([]byte(in.AssetLinks.Value)) {
		return apierr.New(apierr.Unprocessable, "Invalid Asset Links")
	}
	if in.AppleAppSiteAssociation.Has() && !json.Valid([]byte(in.AppleAppSiteAssociation.Value)) {
		return apierr.New(apierr.Unprocessable, "Invalid Apple App Site Association")
	}
	if in.DeepviewData.Has() {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(in.DeepviewData.Value)); err != nil {
			return apierr.New(apierr.Unprocessable, "Invalid Deep View data")
		}
		in.DeepviewData.Value = buf.String()
	}
	return nil
}

// nonEmptyJSONObject reports a JSON object or array with at least one
// member (upstream's isNonEmptyJson).
func nonEmptyJSONObject(s string) bool {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return false
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

// domainPlanGate is §11.3's free-plan gate, with upstream's exact message
// naming the settings present.
func domainPlanGate(ws *models.Workspace, in *DomainInput) error {
	if ws.Plan.AtLeast(models.PlanPro) {
		return nil
	}
	var names []string
	for _, f := range []struct {
		on   bool
		name string
	}{
		{in.Logo.Has(), "custom QR code logos"},
		{in.ExpiredURL.Has(), "default expiration URLs"},
		{in.NotFoundURL.Has(), "not found URLs"},
		{in.AssetLinks.Has(), "Asset Links"},
		{in.AppleAppSiteAssociation.Has(), "Apple App Site Association"},
		{in.DeepviewData.Has() && nonEmptyJSONObject(in.DeepviewData.Value), "Deep View"},
	} {
		if f.on {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return apierr.Newf(apierr.Forbidden, "You can only set %s on a Pro plan and above. Upgrade to Pro to use these features.", combineWords(names))
}

// combineWords joins "a", "a and b", "a, b and c".
func combineWords(w []string) string {
	if len(w) <= 1 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}

// DomainBySlug loads one of the workspace's domains (spec/links.md §6.2 errors).
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

// CheckProgramDomain is the rule for a program's partner-link domain: the
// default short domain or one of the workspace's own domains, nothing else
// (links on any other domain would be refused when partners create them).
func (s *Service) CheckProgramDomain(ctx context.Context, ws *models.Workspace, domain string) error {
	if s.IsDefaultDomain(domain) {
		return nil
	}
	_, err := s.DomainBySlug(ctx, ws, domain)
	if apierr.Is(err, apierr.NotFound) {
		return apierr.Newf(apierr.Forbidden, "Domain %s does not belong to workspace %s: add it first (POST /domains or the console's Domains page), or use the default short domain %s.",
			domain, ws.PublicID(), s.DefaultDomain())
	}
	return err
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
	if err := checkDomainJSON(in); err != nil {
		return nil, err
	}
	now := s.now()
	d := &models.Domain{
		ID: ids.New(ids.Domain), WorkspaceID: ws.ID, Slug: slug, Archived: in.Archived.Value,
		Placeholder: in.Placeholder.Ptr(), ExpiredURL: in.ExpiredURL.Ptr(), NotFoundURL: in.NotFoundURL.Ptr(),
		Logo: in.Logo.Ptr(), AssetLinks: in.AssetLinks.Ptr(), AppleAppSiteAssociation: in.AppleAppSiteAssociation.Ptr(),
		DeepviewData: in.DeepviewData.Ptr(), CreatedAt: now, UpdatedAt: now,
	}
	if !in.DeepviewData.Set {
		empty := "{}" // Dub's column default (Domain.deepviewData @default("{}"))
		d.DeepviewData = &empty
	}
	if err := s.DB.InsertDomain(ctx, d); err != nil {
		return nil, err
	}
	s.domainChanged(d.Slug)
	return d, nil
}

// AddDomain registers slug as one of the workspace's domains with the slug
// rules and cache invalidation of CreateDomain, but no root link and no
// settings: relink demo's own short domain, whose links are all the demo's.
func (s *Service) AddDomain(ctx context.Context, ws *models.Workspace, slug string) (*models.Domain, error) {
	slug = strings.ToLower(slug)
	if err := s.checkSlug(slug); err != nil {
		return nil, err
	}
	now := s.now()
	empty := "{}" // Dub's column default, as CreateDomain
	d := &models.Domain{ID: ids.New(ids.Domain), WorkspaceID: ws.ID, Slug: slug, DeepviewData: &empty, CreatedAt: now, UpdatedAt: now}
	if err := s.DB.InsertDomainWithoutRoot(ctx, d); err != nil {
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
	if err := checkDomainJSON(in); err != nil {
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
	set(&d.DeepviewData, in.DeepviewData)
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

// SetPrimaryDomain answers POST /domains/{slug}/primary (spec/parity.md §11.2):
// this domain becomes the workspace's primary one, every other not.
func (s *Service) SetPrimaryDomain(ctx context.Context, ws *models.Workspace, slug string) (*models.Domain, error) {
	d, err := s.DomainBySlug(ctx, ws, slug)
	if err != nil {
		return nil, err
	}
	if err := s.DB.SetPrimaryDomain(ctx, d, s.now()); err != nil {
		return nil, err
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
