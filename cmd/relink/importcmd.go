package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/importer"
)

const importUsage = `relink import — import links (and click history where the source has it).

Usage:
  relink import csv FILE --workspace SLUG [--map FIELD=COLUMN,...]
      A CSV with Dub's columns: link (the short link), url (destination),
      createdAt, tags (comma-separated), title, description, and folder.
      Columns not named by --map are guessed from the header row.
      Example: --map "link=Short URL,url=Destination,tags=Labels"

  relink import yourls-sql FILE --domain SHORT_DOMAIN --workspace SLUG
      A mysqldump of a YOURLS database: its links (yourls_url) and their
      click log (yourls_log), imported as clicks on their original dates.

  relink import SOURCE --workspace SLUG --token TOKEN [--base-url URL] [--no-clicks]
      SOURCE is one of: %s.
      --base-url points at the service's API (required for self-hosted
      Shlink and YOURLS; defaults to the public API otherwise).
      Shlink visits and Dub click events are imported as clicks on their
      original dates unless --no-clicks.

Missing domains, tags and folders are created; short links that already
exist are skipped. Progress goes to stderr; the report (JSON with --json)
to stdout. Exit status 1 if the source failed, 0 otherwise (per-link errors
are listed in the report).
`

func importHelp() string {
	return fmt.Sprintf(importUsage, strings.Join(importer.SourceNames(), ", "))
}

// importCmd runs "relink import".
func importCmd(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, importHelp())
		return nil
	}
	source := args[0]
	fs := newFlags("import")
	slug := fs.String("workspace", "", "workspace slug")
	mapping := fs.String("map", "", "CSV column mapping field=column,...")
	token := fs.String("token", "", "the source's API token")
	base := fs.String("base-url", "", "the source's API base URL")
	noClicks := fs.Bool("no-clicks", false, "skip click history")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	domain := fs.String("domain", "", "the YOURLS site's short domain (yourls-sql)")
	rest := args[1:]
	var file string
	fileSource := source == "csv" || source == "yourls-sql"
	if fileSource && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		file, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return usageError{err.Error()}
	}
	if fileSource && file == "" && fs.NArg() > 0 {
		file = fs.Arg(0)
	}
	if *slug == "" {
		return usageError{"--workspace is required"}
	}
	var src importer.Source
	if fileSource {
		if file == "" {
			return usageError{"relink import " + source + " needs a FILE"}
		}
		m, err := importer.ParseMapping(*mapping)
		if err != nil {
			return usageError{err.Error()}
		}
		if source == "yourls-sql" && *domain == "" {
			return usageError{"relink import yourls-sql needs --domain (the YOURLS site's short domain)"}
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("read %s: %w", file, err)
		}
		if source == "csv" {
			src, err = importer.NewCSV(data, m)
		} else {
			src, err = importer.NewYOURLSDump(data, *domain)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	} else {
		var err error
		src, err = importer.NewSource(source, importer.APIOptions{BaseURL: *base, Token: *token, NoClicks: *noClicks})
		if err != nil {
			return usageError{err.Error()}
		}
	}
	svc, err := app.BuildCommand(ctx, cfg)
	if err != nil {
		return err
	}
	defer svc.Close()
	ws, err := svc.DB.WorkspaceBySlug(ctx, *slug)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", *slug, err)
	}
	bar := &progressBar{w: stderr, label: "importing from " + src.Name()}
	rep, runErr := (&importer.Runner{Links: svc.Links, Workspace: ws, Progress: bar.update}).Run(ctx, src)
	bar.done()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printReport(stdout, rep)
	}
	return runErr
}

func printReport(w io.Writer, rep *importer.Report) {
	fmt.Fprintf(w, "%d links read: %d created, %d skipped, %d failed; %d clicks imported\n",
		rep.Done, rep.Created, rep.Skipped, rep.Failed, rep.Clicks)
	for _, x := range []struct {
		what string
		list []string
	}{{"domains", rep.DomainsCreated}, {"tags", rep.TagsCreated}, {"folders", rep.FoldersCreated}} {
		if len(x.list) > 0 {
			fmt.Fprintf(w, "created %s: %s\n", x.what, strings.Join(x.list, ", "))
		}
	}
	for _, s := range rep.Skips {
		fmt.Fprintf(w, "skipped row %d %s/%s: %s\n", s.Row, s.Domain, s.Key, s.Error)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(w, "failed row %d %s/%s: %s\n", e.Row, e.Domain, e.Key, e.Error)
	}
}

// progressBar draws "label [#####-----] done/total" on one line of w,
// at most every 100 ms.
type progressBar struct {
	w     io.Writer
	label string
	last  time.Time
	p     importer.Progress
}

func (b *progressBar) update(p importer.Progress) {
	b.p = p
	if time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	b.draw()
}

func (b *progressBar) draw() {
	p := b.p
	const width = 30
	bar := strings.Repeat("?", width)
	if p.Total > 0 {
		n := min(width*p.Done/p.Total, width)
		bar = strings.Repeat("#", n) + strings.Repeat("-", width-n)
	}
	total := "?"
	if p.Total > 0 {
		total = fmt.Sprint(p.Total)
	}
	fmt.Fprintf(b.w, "\r%s [%s] %d/%s  created %d, skipped %d, failed %d, clicks %d ", b.label, bar, p.Done, total,
		p.Created, p.Skipped, p.Failed, p.Clicks)
}

func (b *progressBar) done() {
	b.draw()
	fmt.Fprintln(b.w)
}
