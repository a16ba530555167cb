package models

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
)

var groupSlugRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$`)

// CreateGroup adds a partner group to the program with the default holding
// period and no rewards (the console sets them with SetGroupReward). A taken
// slug within the program is a 409.
func (db *DB) CreateGroup(ctx context.Context, p *Program, name, slug string) (*Group, error) {
	name, slug = strings.TrimSpace(name), strings.ToLower(strings.TrimSpace(slug))
	switch {
	case name == "" || len(name) > 190:
		return nil, apierr.Validation("too_small", "name", "Name must be 1 to 190 characters.")
	case !groupSlugRe.MatchString(slug):
		return nil, apierr.Validation("invalid_format", "slug", "Slug must be 1-48 lowercase letters, digits or hyphens, not starting or ending with a hyphen.")
	}
	g := &Group{
		ID: ids.New(ids.Group), WorkspaceID: p.WorkspaceID, ProgramID: p.ID, Name: name, Slug: slug,
		HoldingPeriodDays: DefaultHoldingPeriodDays, LinkStructure: "short", MaxPartnerLinks: DefaultMaxPartnerLinks,
	}
	if err := db.WithContext(ctx).Create(g).Error; err != nil {
		return nil, dbErr(err, "create group", "", fmt.Sprintf("The group slug %q is already in use.", slug))
	}
	return g, nil
}
