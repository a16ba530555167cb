package importer_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/importer"
	"github.com/relinkhq/relink/internal/importer/importertest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

type sourceCase struct {
	name    string
	svc     *importertest.Service
	created int
	skipped int
	failed  int // with failedRow's error in the report
	clicks  int
	check   func(t *testing.T, db *models.DB, ws *models.Workspace)
}

func TestAPISources(t *testing.T) {
	cases := []sourceCase{bitlyCase(), rebrandlyCase(), shortCase(), shlinkCase(), kuttCase(), yourlsCase(), dubCase()}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testdb.Each(t, func(t *testing.T, db *models.DB) {
				ctx := context.Background()
				srv := httptest.NewServer(c.svc)
				defer srv.Close()
				svc, ws := setup(t, db, "imp")
				var waits []time.Duration
				opts := importer.APIOptions{BaseURL: srv.URL, Token: "wrong",
					Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
				src, err := importer.NewSource(c.name, opts)
				if err != nil {
					t.Fatal(err)
				}
				_, err = (&importer.Runner{Links: svc, Workspace: ws}).Run(ctx, src)
				if !errors.Is(err, importer.ErrAuth) || !strings.Contains(err.Error(), "check the token") {
					t.Fatalf("wrong token: %v", err)
				}
				c.svc.Reset()
				opts.Token = importertest.Token
				src, _ = importer.NewSource(c.name, opts)
				var last importer.Progress
				rep, err := (&importer.Runner{Links: svc, Workspace: ws, Progress: func(p importer.Progress) { last = p }}).Run(ctx, src)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Created != c.created || rep.Skipped != c.skipped || rep.Failed != c.failed || rep.Clicks != c.clicks {
					t.Fatalf("report %+v", rep)
				}
				if c.failed > 0 && (len(rep.Errors) != c.failed || rep.Errors[0].Error != "Invalid destination URL") {
					t.Fatalf("errors %+v", rep.Errors)
				}
				if len(waits) != 1 || waits[0] != 7*time.Second {
					t.Fatalf("rate-limit waits %v, want one of 7s (Retry-After)", waits)
				}
				if last.Total != rep.Done || last.Done != c.created+c.skipped+c.failed {
					t.Fatalf("progress %+v report %+v", last, rep.Progress)
				}
				c.check(t, db, ws)
			})
		})
	}
}

func mustLink(t *testing.T, db *models.DB, ws *models.Workspace, domain, key string) *models.Link {
	t.Helper()
	l, err := db.LinkByDomainKey(context.Background(), domain, key)
	if err != nil {
		t.Fatalf("%s/%s: %v", domain, key, err)
	}
	if l.WorkspaceID != ws.ID {
		t.Fatalf("%s/%s in workspace %s", domain, key, l.WorkspaceID)
	}
	if err := db.LoadTags(context.Background(), []*models.Link{l}); err != nil {
		t.Fatal(err)
	}
	return l
}

func tagNames(l *models.Link) string {
	var n []string
	for _, t := range l.Tags {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

func bitlyCase() sourceCase {
	svc := importertest.Bitly()
	return sourceCase{name: "bitly", svc: svc, created: 151, skipped: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "go.acme.com", "b1")
		if l.URL != "https://acme.com/1" || !l.Archived || *l.Title != "T1" || tagNames(l) != "bitly" ||
			!l.CreatedAt.Equal(time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)) {
			t.Fatalf("b1 %+v", l)
		}
		if c := mustLink(t, db, ws, "go.acme.com", "custom0"); c.URL != "https://acme.com/0" {
			t.Fatalf("custom bitlink %+v", c)
		}
	}}
}

func rebrandlyCase() sourceCase {
	svc := importertest.Rebrandly()
	return sourceCase{name: "rebrandly", svc: svc, created: 29, skipped: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "rb.acme.com", "r28")
		if l.URL != "https://acme.com/r" || tagNames(l) != "rebrand" || l.CreatedAt.Year() != 2022 {
			t.Fatalf("r28 %+v", l)
		}
	}}
}

func shortCase() sourceCase {
	svc := importertest.ShortIO()
	return sourceCase{name: "short", svc: svc, created: 59, skipped: 2, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "s.acme.com", "s59")
		if tagNames(l) != "short" || l.CreatedAt.Year() != 2021 {
			t.Fatalf("s59 %+v", l)
		}
	}}
}

func shlinkCase() sourceCase {
	svc := importertest.Shlink()
	return sourceCase{name: "shlink", svc: svc, created: 120, clicks: 2, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "sh.acme.com", "c5")
		if l.Clicks != 2 || tagNames(l) != "shl" {
			t.Fatalf("c5 %+v", l)
		}
		cs, _ := db.ClicksOfLink(context.Background(), ws.ID, l.ID, 10)
		if len(cs) != 2 || !cs[0].Timestamp.Equal(time.Date(2024, 2, 10, 12, 0, 0, 0, time.UTC)) || cs[0].Country != "FR" ||
			cs[0].Continent != "EU" || cs[0].Device != "Mobile" || cs[0].Referer != "news.ycombinator.com" ||
			!cs[1].Timestamp.Equal(time.Date(2024, 3, 1, 6, 0, 0, 0, time.UTC)) {
			t.Fatalf("visits %+v", cs)
		}
	}}
}

func kuttCase() sourceCase {
	svc := importertest.Kutt()
	return sourceCase{name: "kutt", svc: svc, created: 69, failed: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "k.acme.com", "k69")
		if *l.Description != "K" || l.CreatedAt.Year() != 2020 {
			t.Fatalf("k69 %+v", l)
		}
	}}
}

func yourlsCase() sourceCase {
	svc := importertest.YOURLS()
	return sourceCase{name: "yourls", svc: svc, created: 130, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "y.acme.com", "y129")
		if *l.Title != "Y" || !l.CreatedAt.Equal(time.Date(2019, 4, 5, 6, 7, 8, 0, time.UTC)) {
			t.Fatalf("y129 %+v", l)
		}
	}}
}

func dubCase() sourceCase {
	svc := importertest.Dub()
	return sourceCase{name: "dub", svc: svc, created: 104, skipped: 1, clicks: 1, check: func(t *testing.T, db *models.DB, ws *models.Workspace) {
		l := mustLink(t, db, ws, "d.acme.com", "d3")
		if tagNames(l) != "dubbed" || l.FolderID == nil || l.Clicks != 1 || l.CreatedAt.Year() != 2025 {
			t.Fatalf("d3 %+v", l)
		}
		cs, _ := db.ClicksOfLink(context.Background(), ws.ID, l.ID, 10)
		if len(cs) != 1 || cs[0].City != "Austin" || cs[0].RefererURL != "https://google.com/" || cs[0].Timestamp.Day() != 5 {
			t.Fatalf("clicks %+v", cs)
		}
	}}
}

func TestNewSourceErrors(t *testing.T) {
	if _, err := importer.NewSource("nope", importer.APIOptions{Token: "x"}); err == nil || !strings.Contains(err.Error(), "bitly") {
		t.Fatalf("unknown source: %v", err)
	}
	if _, err := importer.NewSource("shlink", importer.APIOptions{Token: "x"}); err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Fatalf("self-hosted without base: %v", err)
	}
	if _, err := importer.NewSource("bitly", importer.APIOptions{}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := importer.NewSource("kutt", importer.APIOptions{Token: "x", BaseURL: "ftp://x"}); err == nil {
		t.Fatal("ftp base accepted")
	}
}

// TestRateLimitGivesUp: a service that never stops answering 429 fails the
// run with a clear message after the retries.
func TestRateLimitGivesUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	n := 0
	src, _ := importer.NewSource("kutt", importer.APIOptions{BaseURL: srv.URL, Token: "t", Retries: 3,
		Sleep: func(context.Context, time.Duration) error { n++; return nil }})
	err := src.Each(context.Background(), func(importer.Link) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "still rate-limited") || n != 3 {
		t.Fatalf("err %v after %d waits", err, n)
	}
}

// TestTokenNotInErrors: a source's error never quotes the token, neither
// from a transport error's URL (YOURLS sends it in the query string) nor
// from an answer that echoes it.
func TestTokenNotInErrors(t *testing.T) {
	const token = "tok-5ecret-value"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"bad key ` + token + `"}`))
	}))
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close() // connection refused
	for _, base := range []string{srv.URL, dead.URL} {
		for _, name := range []string{"yourls", "kutt"} {
			src, _ := importer.NewSource(name, importer.APIOptions{BaseURL: base, Token: token, Retries: 1,
				Sleep: func(context.Context, time.Duration) error { return nil }})
			err := src.Each(context.Background(), func(importer.Link) error { return nil })
			if err == nil || strings.Contains(err.Error(), token) {
				t.Fatalf("%s at %s: %v", name, base, err)
			}
			if base == srv.URL && (!errors.Is(err, importer.ErrAuth) || !strings.Contains(err.Error(), "[token]")) {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	srv.Close()
}
