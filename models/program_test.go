package models_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestWorkspaceGetsDefaultProgram(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme", Slug: "acme", Plan: models.PlanBusiness})
		if err != nil {
			t.Fatal(err)
		}
		p, err := db.DefaultProgram(ctx, c.Workspace.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.ID, "prog_") || p.DefaultGroupID == nil || p.Name != "Acme" {
			t.Fatalf("program %+v", p)
		}
		g, err := db.GroupByIDOrSlug(ctx, c.Workspace.ID, p.ID, models.DefaultGroupSlug)
		if err != nil {
			t.Fatal(err)
		}
		if g.ID != *p.DefaultGroupID || !strings.HasPrefix(g.ID, "grp_") || g.Name != "Default Group" || g.HoldingPeriodDays != models.DefaultHoldingPeriodDays {
			t.Fatalf("group %+v", g)
		}
		// By id too; another workspace's program never answers.
		if _, err := db.GroupByIDOrSlug(ctx, c.Workspace.ID, p.ID, g.ID); err != nil {
			t.Fatal(err)
		}
		other, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Other", Slug: "other", Plan: models.PlanBusiness})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.GroupByIDOrSlug(ctx, other.Workspace.ID, p.ID, g.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("another workspace's group: %v", err)
		}
		if _, err := db.DefaultProgram(ctx, "nope"); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("missing program: %v", err)
		}
		// A failed workspace creation leaves no program behind.
		if _, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Dup", Slug: "acme", Plan: models.PlanFree}); !apierr.Is(err, apierr.Conflict) {
			t.Fatalf("duplicate slug: %v", err)
		}
		var n int64
		db.Model(&models.Program{}).Count(&n)
		if n != 2 {
			t.Errorf("%d programs, want 2", n)
		}
	})
}

func TestRewardValidation(t *testing.T) {
	neg, big, ok := int64(-1), int64(10001), int64(500)
	one := 1
	for _, tc := range []struct {
		name string
		r    models.Reward
		want string
	}{
		{"unknown event", models.Reward{Event: "view", Type: models.RewardFlat, AmountInCents: &ok}, "invalid_value: event"},
		{"negative flat", models.Reward{Event: models.EventSale, Type: models.RewardFlat, AmountInCents: &neg}, "amountInCents"},
		{"percentage over 100", models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: &big}, "amountInPercentage"},
		{"percentage lead", models.Reward{Event: models.EventLead, Type: models.RewardPercentage, AmountInPercentageBP: &ok}, "always flat"},
		{"unknown type", models.Reward{Event: models.EventSale, Type: "tiered"}, "invalid_value: type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want %q", err, tc.want)
			}
		})
	}
	lead := models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: &ok, MaxDuration: &one}
	if err := lead.Validate(); err != nil || lead.MaxDuration == nil || *lead.MaxDuration != 0 {
		t.Errorf("lead rewards are one-time: %v %v", err, lead.MaxDuration)
	}
}
