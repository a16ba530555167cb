package handlers_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

const secret = "pq: password authentication failed for user hunter2"

// mountProbes adds routes that fail in chosen ways to the real API and app
// faces (before the first request, so they are in the route table).
func mountProbes(s *testServer) {
	for _, f := range []request.Face{request.FaceAPI, request.FaceApp} {
		app := s.Face(f)
		app.Get("/probe/code/:code", func(c *fiber.Ctx) error {
			return apierr.New(apierr.Code(c.Params("code")), "probe message")
		})
		app.Get("/probe/panic", func(c *fiber.Ctx) error {
			panic("probe panic: " + secret)
		})
		app.Get("/probe/internal", func(c *fiber.Ctx) error {
			return fmt.Errorf("load thing: %w", errors.New(secret))
		})
		app.Get("/probe/wrapped", func(c *fiber.Ctx) error {
			return fmt.Errorf("list links: %w", apierr.Validation("too_small", "page", "Page must be greater than 0."))
		})
	}
}

// TestErrorEnvelope: every code renders exactly {"error":{code,message,doc_url}}
// with its status and upstream's doc_url.
func TestErrorEnvelope(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	s := newServer(t, db, env{})
	mountProbes(s)
	const doc = "https://dub.co/docs/api-reference/errors#"
	cases := []struct {
		code   apierr.Code
		status int
		doc    string
	}{
		{apierr.BadRequest, 400, "bad-request"},
		{apierr.Unauthorized, 401, "unauthorized"},
		{apierr.Forbidden, 403, "forbidden"},
		{apierr.ExceededLimit, 403, "exceeded-limit"},
		{apierr.NotFound, 404, "not-found"},
		{apierr.Conflict, 409, "conflict"},
		{apierr.InvitePending, 409, "invite-pending"},
		{apierr.InviteExpired, 410, "invite-expired"},
		{apierr.Unprocessable, 422, "unprocessable-entity"},
		{apierr.RateLimitExceeded, 429, "rate-limit_exceeded"},
		{apierr.InternalServerError, 500, "internal-server_error"},
	}
	if codes := dubCodes(t); len(cases) != len(codes) {
		t.Fatalf("table has %d codes, apierr has %d (%v)", len(cases), len(codes), codes)
	}
	for _, c := range cases {
		t.Run(string(c.code), func(t *testing.T) {
			for _, target := range [][2]string{{apiHost, "/probe/code/"}, {appHost, "/api/probe/code/"}} {
				r := s.do(t, req{Host: target[0], Path: target[1] + string(c.code)})
				e := wantError(t, r, c.status, string(c.code), "probe message")
				if e.DocURL != doc+c.doc {
					t.Fatalf("doc_url = %q, want %q", e.DocURL, doc+c.doc)
				}
			}
		})
	}
	t.Run("wrapped validation error keeps its message and #unprocessable-entity", func(t *testing.T) {
		r := s.do(t, req{Host: apiHost, Path: "/probe/wrapped"})
		e := wantError(t, r, 422, "unprocessable_entity", "too_small: page: Page must be greater than 0.")
		if e.DocURL != doc+"unprocessable-entity" {
			t.Fatalf("doc_url = %s", e.DocURL)
		}
	})
	t.Run("page faces render HTML errors", func(t *testing.T) {
		r := s.do(t, req{Host: appHost, Path: "/probe/code/forbidden"})
		if r.Status != 403 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), "probe message") {
			t.Fatalf("%d %s %s", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	})
}

// TestInternalErrorsHideDetails: a panic or an unexpected error is a 500
// with the generic message, logged with the request id, and nothing of the
// cause in the body.
func TestInternalErrorsHideDetails(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	s := newServer(t, db, env{})
	mountProbes(s)
	for _, c := range []struct{ name, host, path, logMsg string }{
		{"panic on the api host", apiHost, "/probe/panic", "panic serving request"},
		{"panic under /api", appHost, "/api/probe/panic", "panic serving request"},
		{"error on the api host", apiHost, "/probe/internal", "request failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.do(t, req{Host: c.host, Path: c.path})
			e := wantError(t, r, 500, "internal_server_error", apierr.InternalMessage)
			if e.DocURL != "https://dub.co/docs/api-reference/errors#internal-server-error" {
				t.Fatalf("doc_url = %s", e.DocURL)
			}
			if strings.Contains(string(r.Body), "hunter2") || strings.Contains(string(r.Body), "probe") {
				t.Fatalf("body leaks internals: %s", r.Body)
			}
			id := r.Header.Get("X-Request-Id")
			if id == "" {
				t.Fatal("no X-Request-Id")
			}
			var found bool
			for _, l := range s.logs.Find(t, c.logMsg) {
				if l["request_id"] == id && l["level"] == "ERROR" && l["path"] == c.path {
					found = true
					if !strings.Contains(fmt.Sprint(l), "hunter2") {
						t.Errorf("log line lacks the cause: %v", l)
					}
				}
			}
			if !found {
				t.Fatalf("no %q log line with request_id %s: %v", c.logMsg, id, s.logs.Lines(t))
			}
			reqLines := 0
			for _, l := range s.logs.Find(t, "request") {
				if l["request_id"] == id {
					reqLines++
					if l["status"] != float64(500) || l["level"] != "ERROR" {
						t.Errorf("request line: %v", l)
					}
				}
			}
			if reqLines != 1 {
				t.Fatalf("%d request lines for %s, want 1", reqLines, id)
			}
		})
	}
	t.Run("panic on a page face", func(t *testing.T) {
		r := s.do(t, req{Host: appHost, Path: "/probe/panic"})
		if r.Status != 500 || strings.Contains(string(r.Body), "hunter2") || !strings.Contains(string(r.Body), apierr.InternalMessage) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("the server keeps serving after a panic", func(t *testing.T) {
		r := s.do(t, req{Host: apiHost, Path: "/healthz"})
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

// TestBodyErrors: JSON bodies that are too big, malformed or mistyped, and
// slug conflicts, through PATCH /workspaces/{idOrSlug}.
func TestBodyErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		_, key := seed(t, db, "acme", models.PlanPro)
		seed(t, db, "taken", models.PlanFree)
		s := newServer(t, db, env{})
		patch := func(body string) resp {
			return s.do(t, req{Method: "PATCH", Host: apiHost, Path: "/workspaces/acme", Key: key, Body: body})
		}
		const invalidJSON = "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."
		cases := []struct {
			name, body string
			status     int
			code, msg  string
		}{
			{"truncated", `{"name":`, 400, "bad_request", invalidJSON},
			{"not json", `name=x`, 400, "bad_request", invalidJSON},
			{"trailing garbage", `{"name":"x"} x`, 400, "bad_request", invalidJSON},
			{"number for string", `{"name":5}`, 422, "unprocessable_entity", "invalid_type: name: Invalid input: expected string, received number"},
			{"bool for string", `{"slug":true}`, 422, "unprocessable_entity", "invalid_type: slug: Invalid input: expected string, received boolean"},
			{"object for string", `{"name":{}}`, 422, "unprocessable_entity", "invalid_type: name: Invalid input: expected string, received object"},
			{"array body", `[]`, 422, "unprocessable_entity", "invalid_type: : Invalid input: expected object, received array"},
			{"empty name", `{"name":" "}`, 422, "unprocessable_entity", "too_small: name: Name is required."},
			{"bad slug", `{"slug":"-!-"}`, 422, "unprocessable_entity", "custom: slug: Invalid slug format"},
			{"slug of another workspace", `{"slug":"taken"}`, 409, "conflict", `The slug "taken" is already in use.`},
			{"slug of another workspace, other case", `{"slug":"TAKEN"}`, 409, "conflict", `The slug "taken" is already in use.`},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				e := wantError(t, patch(c.body), c.status, c.code, c.msg)
				if c.status == 422 && e.DocURL != "https://dub.co/docs/api-reference/errors#unprocessable-entity" {
					t.Fatalf("doc_url = %s", e.DocURL)
				}
			})
		}
		t.Run("nothing changed", func(t *testing.T) {
			r := s.do(t, req{Host: apiHost, Path: "/workspaces/acme", Key: key})
			if m := jsonOf(t, r); m["name"] != "WS acme" || m["slug"] != "acme" {
				t.Fatalf("workspace changed by failed PATCHes: %v", m)
			}
		})
		t.Run("a valid patch, unknown fields ignored", func(t *testing.T) {
			r := patch(`{"name":"Acme Inc","slug":"acme-inc","plan":"enterprise","id":"x"}`)
			m := jsonOf(t, r)
			if r.Status != 200 || m["name"] != "Acme Inc" || m["slug"] != "acme-inc" || m["plan"] != "pro" {
				t.Fatalf("%d %v", r.Status, m)
			}
			r = s.do(t, req{Host: apiHost, Path: "/workspaces/acme-inc", Key: key})
			if r.Status != 200 {
				t.Fatalf("renamed workspace not found by its new slug: %d %s", r.Status, r.Body)
			}
		})
	})
}

// TestBodyLimit serves real sockets: fasthttp rejects an oversized body
// before any handler, and the answer is still our JSON envelope.
func TestBodyLimit(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	ports := freePorts(t, 2)
	s := newServer(t, db, env{vars: map[string]string{
		"RELINK_APP_URL":    "http://localhost:" + ports[0],
		"RELINK_API_URL":    "http://localhost:" + ports[1],
		"RELINK_BODY_LIMIT": "512",
	}})
	s.serveLive(t, nil)
	big := `{"name":"` + strings.Repeat("x", 600) + `"}`
	auth := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	for _, c := range []struct {
		name    string
		chunked bool
	}{{"content-length", false}, {"chunked", true}} {
		t.Run(c.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(big)
			if c.chunked {
				body = io.MultiReader(strings.NewReader(big)) // unknown length: chunked
			}
			hr, _ := http.NewRequest("PATCH", "http://127.0.0.1:"+ports[1]+"/workspaces/acme", body)
			for k, v := range auth {
				hr.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(hr)
			if err != nil {
				t.Fatal(err)
			}
			if c.chunked == (res.Request.ContentLength > 0) {
				t.Fatalf("request ContentLength %d, chunked %v", res.Request.ContentLength, c.chunked)
			}
			wantError(t, readResp(t, res), 400, "bad_request", "Request body is too large: the limit is 512 bytes.")
		})
	}
	t.Run("a body under the limit passes", func(t *testing.T) {
		r := httpDo(t, http.DefaultClient, "PATCH", "http://127.0.0.1:"+ports[1]+"/workspaces/acme", "", auth, `{"name":"Small"}`)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

// dubCodes are the Dub error codes internal/apierr declares (its constants
// of type Code but Relink's own Unavailable), read from its source so that
// a new code fails TestErrorEnvelope until the table above has it.
func dubCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../internal/apierr/apierr.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" && vs.Names[0].Name != "Unavailable" {
				codes = append(codes, vs.Names[0].Name)
			}
		}
		return true
	})
	return codes
}
