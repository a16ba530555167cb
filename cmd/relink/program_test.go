package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/conversions/convtest"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// checkProgramErrors: each refused command names its reason.
func checkProgramErrors(t *testing.T, relink func(args ...string) (string, error)) {
	t.Helper()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"program", "reward", "set", "--workspace", "acme", "--event", "lead", "--type", "percentage", "--amount", "5"}, "Click and lead rewards are always flat"},
		{[]string{"program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage", "--amount", "101"}, "between 0 and 100"},
		{[]string{"program", "reward", "set", "--workspace", "acme", "--event", "sale", "--amount", "1.5"}, "whole cents"},
		{[]string{"program", "group", "set", "--workspace", "acme", "--holding-days", "5"}, "Holding period must be one of"},
		{[]string{"program", "show", "--workspace", "nope"}, "Workspace not found"},
		{[]string{"program", "show"}, "--workspace is required"},
		{[]string{"program", "set", "--workspace", "acme", "--domain", "elsewhere.test"}, "Domain elsewhere.test does not belong to workspace"},
		{[]string{"program", "frobnicate"}, "unknown program command"},
		{[]string{"program", "resources", "set", "--workspace", "acme", "--json", `{"colors":[{"name":"Blue","color":"blue"}]}`}, "Colors are hex values"},
		{[]string{"program", "resources", "set", "--workspace", "acme", "--json", `{"links":[{"name":"X","url":"javascript:alert(1)"}]}`}, "http, https or mailto"},
		{[]string{"program", "resources", "set", "--workspace", "acme", "--json", `{"fonts":[]}`}, "unknown field"},
		{[]string{"program", "bounty", "add", "--workspace", "acme", "--name", "B", "--reward", "100"}, "The goal must be more than 0"},
		{[]string{"program", "bounty", "add", "--workspace", "acme", "--name", "B", "--reward", "100", "--goal", "5", "--group", "nope"}, "not found"},
	} {
		if _, err := relink(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("relink %s: %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestProgramCommands(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			dbURL := testdb.URL(t, dialect)
			getenv := func(k string) string {
				if k == "RELINK_DATABASE_URL" {
					return dbURL
				}
				return ""
			}
			relink := func(args ...string) (string, error) {
				var out, errOut bytes.Buffer
				err := run(context.Background(), args, getenv, &out, &errOut)
				return out.String(), err
			}
			if _, err := relink("workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "business"); err != nil {
				t.Fatal(err)
			}
			out, err := relink("program", "reward", "set", "--workspace", "acme", "--event", "sale", "--type", "percentage",
				"--amount", "12.5", "--max-duration", "12", "--spend-limit", "50000", "--spend-interval", "month")
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				ID                 string   `json:"id"`
				AmountInPercentage *float64 `json:"amountInPercentage"`
				MaxDuration        *int     `json:"maxDuration"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !strings.HasPrefix(r.ID, "rw_") || r.AmountInPercentage == nil || *r.AmountInPercentage != 12.5 || r.MaxDuration == nil || *r.MaxDuration != 12 {
				t.Fatalf("reward %s", out)
			}
			if _, err := relink("program", "reward", "set", "--workspace", "acme", "--event", "lead", "--amount", "300"); err != nil {
				t.Fatal(err)
			}
			if _, err := relink("program", "group", "set", "--workspace", "acme", "--holding-days", "7",
				"--default-link", "acme.link=https://acme.example/", "--additional-link", "acme.example", "--utm", "source=partners"); err != nil {
				t.Fatal(err)
			}
			// The program's domain is one of the workspace's domains (or the
			// default short domain): refused until acme.link is registered.
			if _, err := relink("program", "set", "--workspace", "acme", "--domain", "Acme.Link"); err == nil || !strings.Contains(err.Error(), "does not belong to workspace") {
				t.Fatalf("an unregistered program domain: %v", err)
			}
			registerDomain(t, dbURL, "acme", "acme.link")
			if _, err := relink("program", "set", "--workspace", "acme", "--domain", "Acme.Link", "--url", "https://acme.example/"); err != nil {
				t.Fatal(err)
			}
			out, err = relink("program", "show", "--workspace", "acme")
			if err != nil {
				t.Fatal(err)
			}
			var show struct {
				ID     string  `json:"id"`
				Domain *string `json:"domain"`
				Groups []struct {
					Slug              string `json:"slug"`
					HoldingPeriodDays int    `json:"holdingPeriodDays"`
					DefaultLinks      []struct {
						Domain string `json:"domain"`
					} `json:"defaultLinks"`
					UTMTemplate map[string]string `json:"utmTemplate"`
					Rewards     map[string]struct {
						Type          string `json:"type"`
						AmountInCents *int64 `json:"amountInCents"`
						MaxDuration   *int   `json:"maxDuration"`
					} `json:"rewards"`
				} `json:"groups"`
			}
			if err := json.Unmarshal([]byte(out), &show); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			g := show.Groups[0]
			if !strings.HasPrefix(show.ID, "prog_") || *show.Domain != "acme.link" || len(show.Groups) != 1 || g.Slug != "default" ||
				g.HoldingPeriodDays != 7 || len(g.DefaultLinks) != 1 || g.UTMTemplate["utm_source"] != "partners" {
				t.Fatalf("program %s", out)
			}
			if lead := g.Rewards["lead"]; lead.Type != "flat" || *lead.AmountInCents != 300 || lead.MaxDuration == nil || *lead.MaxDuration != 0 {
				t.Errorf("lead reward %+v (lead rewards are one-time)", lead)
			}
			if g.Rewards["sale"].Type != "percentage" {
				t.Errorf("sale reward %+v", g.Rewards["sale"])
			}
			if _, err := relink("program", "reward", "clear", "--workspace", "acme", "--event", "lead"); err != nil {
				t.Fatal(err)
			}
			out, _ = relink("program", "show", "--workspace", "acme")
			if strings.Contains(out, `"lead"`) {
				t.Errorf("lead reward not cleared: %s", out)
			}
			checkProgramErrors(t, relink)
			out, err = relink("program", "resources", "set", "--workspace", "acme", "--json",
				`{"logos":[{"name":"Logo","size":2048,"url":"https://cdn.example/logo.svg"}],"colors":[{"name":"Blue","color":"#2563eb"}],"links":[{"name":"Press","url":"mailto:press@acme.example"}]}`)
			if err != nil || !strings.Contains(out, `"id": "logo_1"`) || !strings.Contains(out, `"color": "#2563eb"`) {
				t.Errorf("resources set: %s %v", out, err)
			}
			out, err = relink("program", "bounty", "add", "--workspace", "acme", "--name", "Spring push", "--reward", "5000", "--goal", "100000",
				"--group", "default", "--ends", "2099-01-01T00:00:00Z")
			if err != nil || !strings.Contains(out, `"id": "bnty_`) || !strings.Contains(out, `"goalEarnings": 100000`) {
				t.Errorf("bounty add: %s %v", out, err)
			}
			out, err = relink("program", "commissions", "process")
			if err != nil || !strings.Contains(out, `"count": 0`) {
				t.Errorf("commissions process: %s %v", out, err)
			}
		})
	}
}

// TestGroupDefaultLinksReachPartners: `relink program group set
// --default-link` gives the partners already in the group the new default
// link (Dub's create-default-links job), once: running it again with the
// same list keeps the default link's id and creates nothing.
func TestGroupDefaultLinksReachPartners(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			dbURL := testdb.URL(t, dialect)
			getenv := func(k string) string {
				if k == "RELINK_DATABASE_URL" {
					return dbURL
				}
				return ""
			}
			cfg, err := config.Load(getenv)
			if err != nil {
				t.Fatal(err)
			}
			relink := func(args ...string) (string, error) {
				var out, errOut bytes.Buffer
				err := run(ctx, args, getenv, &out, &errOut)
				return out.String(), err
			}
			if _, err := relink("workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "business"); err != nil {
				t.Fatal(err)
			}
			if _, err := relink("program", "set", "--workspace", "acme", "--domain", cfg.ShortDomain, "--url", "https://acme.example/"); err != nil {
				t.Fatal(err)
			}
			db, err := models.Open(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ws, err := db.WorkspaceBySlug(ctx, "acme")
			if err != nil {
				t.Fatal(err)
			}
			name := "Pat Lee"
			ep, err := convtest.New(t, db, nil).EnrollPartner(ctx, ws, conversions.EnrollInput{Email: "pat@example.com", Name: &name})
			if err != nil || len(ep.Links) != 0 {
				t.Fatalf("enroll: %v, links %v", err, ep)
			}
			partnerLinks := func() []models.Link {
				ls, err := db.PartnerLinks(ctx, ws.ID, ep.Enrollment.ProgramID, ep.Partner.ID)
				if err != nil {
					t.Fatal(err)
				}
				return ls
			}
			for range 2 {
				if _, err := relink("program", "group", "set", "--workspace", "acme", "--default-link", cfg.ShortDomain+"=https://acme.example/welcome"); err != nil {
					t.Fatal(err)
				}
				ls := partnerLinks()
				if len(ls) != 1 || ls[0].PartnerGroupDefaultLinkID == nil || ls[0].URL != "https://acme.example/welcome" || !strings.HasPrefix(ls[0].Key, "pat") {
					t.Fatalf("pat's links after group set: %+v", ls)
				}
			}
		})
	}
}

// registerDomain adds domain to the workspace as POST /domains stores it.
func registerDomain(t *testing.T, dbURL, workspace, domain string) {
	t.Helper()
	db, err := models.Open(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	ws, err := db.WorkspaceBySlug(ctx, workspace)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := db.InsertDomain(ctx, &models.Domain{ID: ids.New(ids.Domain), WorkspaceID: ws.ID, Slug: domain, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
}
