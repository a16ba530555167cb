package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/models"
)

func migrate(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	sub := "up"
	if len(args) > 0 {
		sub = args[0]
	}
	db, err := models.Open(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	switch sub {
	case "up":
		if err := db.Migrate(ctx); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "database is up to date")
		return nil
	case "status":
		st, err := db.Migrations(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "VERSION\tFILE\tSTATE\tAPPLIED AT")
		pending := 0
		for _, m := range st {
			state, at := "pending", ""
			if m.Applied {
				state, at = "applied", m.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
			} else {
				pending++
			}
			fmt.Fprintf(tw, "%05d\t%s\t%s\t%s\n", m.Version, m.File, state, at)
		}
		tw.Flush()
		fmt.Fprintf(stdout, "%d migrations, %d pending\n", len(st), pending)
		return nil
	}
	return usageError{fmt.Sprintf("unknown migrate command %q (want up or status)", sub)}
}
