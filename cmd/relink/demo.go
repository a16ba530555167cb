package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/demo"
	"github.com/relinkhq/relink/models"
)

// demoOpts are `relink demo`'s flags.
type demoOpts struct {
	slug, cpuProfile                            *string
	links, clicks, leads, sales, days, partners *int
	seed                                        *uint64
}

// demoFlags declares `relink demo`'s flags (its help prints them).
func demoFlags() (*flag.FlagSet, demoOpts) {
	fs := newFlags("demo")
	return fs, demoOpts{
		slug:       fs.String("workspace", "", "slug of the workspace to fill (created on the enterprise plan if missing)"),
		links:      fs.Int("links", 1000, "links to create"),
		clicks:     fs.Int("clicks", 1000000, "clicks to write"),
		leads:      fs.Int("leads", 50000, "leads to write"),
		sales:      fs.Int("sales", 10000, "sales to write"),
		days:       fs.Int("days", 90, "days of history, ending now"),
		partners:   fs.Int("partners", 20, "partners to enroll"),
		seed:       fs.Uint64("seed", 0, "random seed (0: the current time)"),
		cpuProfile: fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)"),
	}
}

// demoCmd fills a workspace with realistic demo data (internal/demo).
func demoCmd(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	fs, o := demoFlags()
	slug, links, clicks, leads, sales, days, partners, seed, cpuProfile := o.slug, o.links, o.clicks, o.leads, o.sales, o.days, o.partners, o.seed, o.cpuProfile
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *slug == "" {
		return usageError{"--workspace is required"}
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}
	if *links < 1 || *clicks < 0 || *leads < 0 || *sales < 0 || *days < 1 || (*sales > 0 && *leads == 0) {
		return usageError{"--links and --days must be ≥ 1, counts ≥ 0, and sales need leads"}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	svc, err := app.BuildCommand(ctx, cfg)
	if err != nil {
		return err
	}
	defer svc.Close()
	db := svc.DB
	ws, err := db.WorkspaceBySlug(ctx, *slug)
	if models.IsNotFound(err) {
		c, cerr := svc.Workspaces.Create(ctx, models.NewWorkspace{Name: *slug, Slug: *slug, Plan: models.PlanEnterprise})
		if cerr != nil {
			return fmt.Errorf("create workspace %s: %w", *slug, cerr)
		}
		ws = c.Workspace
		fmt.Fprintf(stdout, "created workspace %s (enterprise), API key %s\n", ws.Slug, c.APIKey)
	} else if err != nil {
		return err
	}
	st, err := demo.Generate(ctx, db, ws, demo.Options{Links: *links, Clicks: *clicks, Leads: *leads, Sales: *sales,
		Days: *days, Partners: *partners, Seed: *seed, Progress: stderr, Domain: cfg.ShortDomain, Conversions: svc.Conversions, LinkService: svc.Links,
		Workspaces: svc.Workspaces})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "workspace %s: %d links, %d clicks, %d leads, %d sales ($%.2f), %d partner commissions in %s\n",
		ws.Slug, st.Links, st.Clicks, st.Leads, st.Sales, float64(st.SaleAmount)/100, st.Commissions, st.Took.Round(time.Millisecond))
	for _, p := range st.Phases {
		fmt.Fprintf(stdout, "  %-12s %s\n", p.Name, p.Took.Round(time.Millisecond))
	}
	return nil
}
