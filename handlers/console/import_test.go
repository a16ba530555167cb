package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/importer"
	"github.com/relinkhq/relink/internal/importer/importertest"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestConsoleImportCSV(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newEnv(t, db)
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		c := e.client()
		c.signIn("owner@acme.test")
		wantStatus(t, c.get("/console/import"), http.StatusOK)

		wantStatus(t, c.upload("/console/import", "file", "x.csv", []byte("")), http.StatusUnprocessableEntity)
		csv := "Short,Target,When,Labels\nhttps://go.acme.test/one,https://acme.test/1,2024-01-02,\"a,b\"\nhttps://go.acme.test/two,,2024-01-02,\n"
		r := c.upload("/console/import", "file", "links.csv", []byte(csv))
		wantStatus(t, r, http.StatusOK)
		doc := r.doc(t)
		upload, _ := doc.Find(`[data-testid="mapping-form"] input[name="upload"]`).Attr("value")
		// "Short" and "Labels" are guessed; "Target" is not a known name.
		if v, _ := doc.Find(`#map-link option[selected]`).Attr("value"); v != "Short" || upload == "" {
			t.Fatalf("link guess %q upload %q", v, upload)
		}
		if v, _ := doc.Find(`#map-tags option[selected]`).Attr("value"); v != "Labels" {
			t.Fatalf("tags guess %q", v)
		}
		form := url.Values{"upload": {upload}, "map_link": {"Short"}, "map_url": {"Nope"}}
		r = c.htmx(http.MethodPost, "/console/import/run", form)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.text(t, `[data-testid="import-run-error"]`), `"Nope"`) {
			t.Fatalf("bad mapping: %d %s", r.StatusCode, r.body)
		}
		form = url.Values{"upload": {upload}, "map_link": {"Short"}, "map_url": {"Target"}, "map_createdAt": {"When"}, "map_tags": {"Labels"}}
		r = c.htmx(http.MethodPost, "/console/import/run", form)
		wantStatus(t, r, http.StatusAccepted)
		// Running it again is refused (409 while it runs, 422 once the
		// upload is used up).
		if r := c.htmx(http.MethodPost, "/console/import/run", form); r.StatusCode != http.StatusConflict && r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("second run: %d", r.StatusCode)
		}
		r, state := waitImport(t, c)
		if state != "done" || !strings.Contains(r.text(t, `[data-testid="import-counts"]`), "2 of 2 rows · 1 created · 0 skipped · 1 failed") {
			t.Fatalf("state %q: %s", state, r.body)
		}
		if row := r.text(t, `[data-testid="import-row"]`); !strings.Contains(row, "go.acme.test/two") || !strings.Contains(row, "Missing required field: url") {
			t.Fatalf("report row %q", row)
		}
		l, err := db.LinkByDomainKey(context.Background(), "go.acme.test", "one")
		if err != nil || l.WorkspaceID != mustWorkspace(t, db, "acme").ID || l.CreatedAt.Year() != 2024 {
			t.Fatalf("link %+v err %v", l, err)
		}
		// Another workspace sees nothing of this run.
		e.seedWorkspace("Other", "other", "owner@other.test")
		o := e.client()
		o.signIn("owner@other.test")
		if r := o.htmx(http.MethodGet, "/console/import/progress", nil); strings.Contains(string(r.body), "created") {
			t.Fatalf("other workspace sees the run: %s", r.body)
		}
	})
}

// waitImport polls the progress fragment until the run is over and returns
// the last answer and its state.
func waitImport(t *testing.T, c *client) (resp, string) {
	t.Helper()
	var r resp
	var state string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		r = c.htmx(http.MethodGet, "/console/import/progress", nil)
		state, _ = r.doc(t).Find(`[data-testid="import-progress"]`).Attr("data-state")
		if state != "running" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r, state
}

// TestConsoleImportAPI: imports from Shlink (with visits) and Kutt (a row
// Relink refuses) started from the console's form run in the background
// against the local fake services; the progress and report belong to the
// workspace; a wrong token, a missing server URL and an address on the
// server's own network are refused with clear messages, the token never
// shown.
func TestConsoleImportAPI(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		shlink, kutt := importertest.Shlink(), importertest.Kutt()
		shlink.Limited, kutt.Limited = "", "" // no 429 (its 7 s wait is the importer tests' business)
		gate := make(chan struct{})
		shlinkSrv := httptest.NewServer(shlink)
		defer shlinkSrv.Close()
		kuttSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-gate // held until the test has looked at the running import
			kutt.ServeHTTP(w, r)
		}))
		defer kuttSrv.Close()

		// Default RELINK_IMPORT_TARGETS=public: the loopback fake is refused.
		pub := newEnv(t, db)
		pub.seedWorkspace("Pub", "pub", "owner@pub.test")
		pc := pub.client()
		pc.signIn("owner@pub.test")
		form := url.Values{"source": {"shlink"}, "token": {importertest.Token}, "base_url": {shlinkSrv.URL}}
		wantStatus(t, pc.htmx(http.MethodPost, "/console/import/api", form), http.StatusAccepted)
		if r, state := waitImport(t, pc); state != "failed" || !strings.Contains(r.text(t, `[data-testid="import-run-error"]`), "not a public address") {
			t.Fatalf("loopback import: %s %s", state, r.body)
		}

		e := newEnvWith(t, db, map[string]string{"RELINK_IMPORT_TARGETS": "any"})
		e.seedWorkspace("Acme", "acme", "owner@acme.test")
		e.seedWorkspace("Other", "other", "owner@other.test")
		c, o := e.client(), e.client()
		c.signIn("owner@acme.test")
		o.signIn("owner@other.test")
		r := c.get("/console/import")
		if n := r.doc(t).Find(`[data-testid="import-source"] option`).Length(); n != len(importer.SourceNames()) {
			t.Fatalf("%d sources in the form", n)
		}
		for _, bad := range []struct {
			form url.Values
			want string
		}{
			{url.Values{"source": {"nope"}, "token": {"x"}}, "Choose the service"},
			{url.Values{"source": {"shlink"}, "token": {"x"}}, "Shlink is self-hosted: give its base URL"},
			{url.Values{"source": {"kutt"}}, "Kutt needs an API token"},
		} {
			r := c.htmx(http.MethodPost, "/console/import/api", bad.form)
			if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.text(t, `[data-testid="import-run-error"]`), bad.want) {
				t.Fatalf("%v: %d %s", bad.form, r.StatusCode, r.body)
			}
		}

		// A wrong token: the run stops with the service's refusal, the
		// token itself appears nowhere.
		form = url.Values{"source": {"shlink"}, "token": {"tok-wrong-9f3"}, "base_url": {shlinkSrv.URL}, "clicks": {"on"}}
		wantStatus(t, c.htmx(http.MethodPost, "/console/import/api", form), http.StatusAccepted)
		if r, state := waitImport(t, c); state != "failed" || !strings.Contains(r.text(t, `[data-testid="import-run-error"]`), "refused the API token") ||
			strings.Contains(string(r.body), "tok-wrong-9f3") {
			t.Fatalf("wrong token: %s %s", state, r.body)
		}
		if strings.Contains(string(c.get("/console/import").body), "tok-wrong-9f3") {
			t.Fatal("the page shows the token")
		}

		// Shlink with its visits.
		form.Set("token", importertest.Token)
		wantStatus(t, c.htmx(http.MethodPost, "/console/import/api", form), http.StatusAccepted)
		r, state := waitImport(t, c)
		if state != "done" || r.text(t, `[data-testid="import-counts"]`) != "120 of 120 rows · 120 created · 0 skipped · 0 failed" ||
			!strings.Contains(r.text(t, `[data-testid="import-clicks"]`), "2 clicks") || !strings.Contains(r.text(t, ".text-lg, h2, h3"), "Shlink") {
			t.Fatalf("shlink: %s %s", state, r.body)
		}
		acme := mustWorkspace(t, db, "acme")
		l, err := db.LinkByDomainKey(context.Background(), "sh.acme.com", "c5")
		if err != nil || l.WorkspaceID != acme.ID || l.Clicks != 2 || l.CreatedAt.Format("2006-01-02") != "2024-02-03" {
			t.Fatalf("c5 %+v %v", l, err)
		}
		cs, err := db.ClicksOfLink(context.Background(), acme.ID, l.ID, 10)
		if err != nil || len(cs) != 2 || cs[0].Timestamp.Format(time.RFC3339) != "2024-02-10T12:00:00Z" || cs[0].Country != "FR" {
			t.Fatalf("visits %+v %v", cs, err)
		}

		// Kutt, held at its first request: the run is the workspace's own.
		form = url.Values{"source": {"kutt"}, "token": {importertest.Token}, "base_url": {kuttSrv.URL}}
		r = c.htmx(http.MethodPost, "/console/import/api", form)
		if r.StatusCode != http.StatusAccepted || !strings.Contains(r.text(t, `[data-testid="import-progress"]`), "Importing from Kutt") {
			t.Fatalf("kutt start: %d %s", r.StatusCode, r.body)
		}
		if r := c.htmx(http.MethodPost, "/console/import/api", form); r.StatusCode != http.StatusConflict {
			t.Fatalf("second run: %d", r.StatusCode)
		}
		if r := o.htmx(http.MethodGet, "/console/import/progress", nil); strings.Contains(string(r.body), "Kutt") || strings.Contains(string(r.body), "created") {
			t.Fatalf("other workspace sees the run: %s", r.body)
		}
		// The other workspace runs its own import meanwhile (not a 409).
		if r := o.htmx(http.MethodPost, "/console/import/api", url.Values{"source": {"kutt"}}); r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("other workspace's run: %d", r.StatusCode)
		}
		close(gate)
		r, state = waitImport(t, c)
		if state != "done" || r.text(t, `[data-testid="import-counts"]`) != "70 of 70 rows · 69 created · 0 skipped · 1 failed" {
			t.Fatalf("kutt: %s %s", state, r.body)
		}
		if row := r.text(t, `[data-testid="import-row"]`); !strings.Contains(row, "k.acme.com/k13") || !strings.Contains(row, "Invalid destination URL") {
			t.Fatalf("report row %q", row)
		}
		if r.doc(t).Find(`[data-testid="import-view-links"]`).Length() != 1 {
			t.Fatal("no link to the imported links")
		}
		if r := o.htmx(http.MethodGet, "/console/import/progress", nil); strings.Contains(string(r.body), "k13") {
			t.Fatalf("other workspace sees the report: %s", r.body)
		}
		if l, err := db.LinkByDomainKey(context.Background(), "k.acme.com", "k1"); err != nil || l.WorkspaceID != acme.ID {
			t.Fatalf("k1 %+v %v", l, err)
		}
	})
}
