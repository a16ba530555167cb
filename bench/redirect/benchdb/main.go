// Command benchdb prepares and checks the redirect benchmark's database:
//
//	benchdb seed  -db URL -domain D -key K -url U   migrate, create a workspace and one link
//	benchdb count -db URL -domain D -key K          print the link's stored clicks and its counter
//	benchdb schema -db POSTGRES_URL                 create a fresh schema, print a URL using it
//	benchdb seed … -webhook URL                      also a workspace-scoped link.clicked webhook to URL
//	benchdb outbox -db URL                           print the webhook outbox's rows
//	benchdb sink -addr 127.0.0.1:9093               a webhook receiver answering 200 (counts on GET /count)
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/webhooks"
	"github.com/relinkhq/relink/models"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: benchdb seed|count|schema -db URL …")
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dbURL := fs.String("db", "", "RELINK_DATABASE_URL")
	domain := fs.String("domain", "", "short domain")
	key := fs.String("key", "bench", "link key")
	dest := fs.String("url", "https://example.com/landing", "destination")
	hook := fs.String("webhook", "", "seed: add a workspace-scoped link.clicked webhook to this URL")
	addr := fs.String("addr", "127.0.0.1:9093", "sink: listen address")
	fs.Parse(os.Args[2:]) //nolint:errcheck // ExitOnError
	ctx := context.Background()
	if os.Args[1] == "sink" {
		sink(*addr)
		return
	}
	if os.Args[1] == "schema" {
		admin, err := sql.Open("pgx", *dbURL)
		if err != nil {
			log.Fatal(err)
		}
		schema := "bench_" + strings.ToLower(ids.Nano(8))
		if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
			log.Fatal(err)
		}
		u, _ := url.Parse(*dbURL)
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		fmt.Println(u.String())
		return
	}
	db, err := models.Open(*dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	switch os.Args[1] {
	case "seed":
		if err := db.Migrate(ctx); err != nil {
			log.Fatal(err)
		}
		plan := models.PlanPro
		if *hook != "" {
			plan = models.PlanBusiness // webhooks need Business
		}
		ws, err := db.CreateWorkspace(ctx, "Bench", "bench", plan)
		if err != nil {
			log.Fatal(err)
		}
		if *hook != "" {
			scope := webhooks.ScopeWorkspace
			if _, err := (&webhooks.Service{DB: db}).Create(ctx, ws, &webhooks.Input{Name: "bench", URL: *hook,
				Triggers: []string{webhooks.LinkClicked}, LinkScope: &scope}); err != nil {
				log.Fatal(err)
			}
		}
		l := &models.Link{WorkspaceID: ws.ID, Domain: *domain, Key: *key, URL: *dest}
		if err := db.CreateLink(ctx, l); err != nil {
			log.Fatal(err)
		}
		fmt.Println(l.ID)
	case "outbox":
		var n int64
		// link.clicked events queued: the clicks of the batch rows.
		if err := db.Model(&webhooks.Delivery{}).Where("clicks > 0").Select("COALESCE(SUM(clicks), 0)").Scan(&n).Error; err != nil {
			log.Fatal(err)
		}
		fmt.Println(n)
	case "count":
		l, err := db.LinkByDomainKey(ctx, *domain, *key)
		if err != nil {
			log.Fatal(err)
		}
		n, err := db.CountClicks(ctx, l.WorkspaceID, l.ID)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(n, l.Clicks)
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
}

// sink answers every POST with 200 and counts them; GET /count prints the
// count.
func sink(addr string) {
	var n atomic.Int64
	log.Fatal(http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprintln(w, n.Load())
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		n.Add(1)
	})))
}
