package main

import (
	"fmt"
	"io"
	"time"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/geo"
)

const geoipUsage = `Usage: relink geoip status

Says which IP-location database locates clicks (RELINK_GEOIP_DB: a
MaxMind-format file; empty: the country database embedded in the binary;
"off": trusted proxy headers only), what it resolves (country or city) and
how old it is.
`

// geoip answers `relink geoip status`.
func geoip(cfg *config.Config, args []string, stdout io.Writer, now time.Time) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, geoipUsage)
		return nil
	}
	if len(args) != 1 || args[0] != "status" {
		return usageError{"usage: relink geoip status"}
	}
	loc, err := geo.Open(cfg.GeoIPDB)
	if err != nil {
		return err
	}
	defer loc.Close()
	info := loc.Info()
	if info.Source == "" {
		fmt.Fprintln(stdout, "database:    none (RELINK_GEOIP_DB=off): clicks are located by trusted proxy headers only")
		return nil
	}
	age := now.Sub(info.Built)
	fmt.Fprintf(stdout, "database:    %s\n", info.Name)
	fmt.Fprintf(stdout, "source:      %s\n", info.Source)
	fmt.Fprintf(stdout, "type:        %s (resolves %s)\n", info.Type, info.Granularity)
	fmt.Fprintf(stdout, "built:       %s (%d days old)\n", info.Built.Format(time.DateOnly), int(age.Hours()/24))
	if info.Attribution != "" {
		fmt.Fprintf(stdout, "attribution: %s\n", info.Attribution)
	}
	if age > 180*24*time.Hour {
		fmt.Fprintln(stdout, "note:        over six months old; update it (make geoip-update, or a newer file in RELINK_GEOIP_DB)")
	}
	return nil
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "help" }
