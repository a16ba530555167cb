package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/relinkhq/relink/handlers"
	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// The OpenAPI document (GET /openapi.json) is held to the server: every
// response the API tests record (roundTrip: linkEnv.do and every direct
// request of this package) is validated against it — status, content type
// and body schema, errors included — with kin-openapi's openapi3filter, and
// a response of a route the document lacks fails the test that made it.

var openapiDoc struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

func loadOpenAPI(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	openapiDoc.once.Do(func() {
		l := openapi3.NewLoader()
		doc, err := l.LoadFromData(api.OpenAPIDocument)
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err == nil {
			openapiDoc.router, err = gorillamux.NewRouter(doc)
		}
		openapiDoc.doc, openapiDoc.err = doc, err
		raw := func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
			b, err := io.ReadAll(body)
			return string(b), err
		}
		for _, ct := range []string{"application/csv", "application/zip", "image/png", "image/svg+xml", "text/plain"} {
			openapi3filter.RegisterBodyDecoder(ct, raw)
		}
	})
	if openapiDoc.err != nil {
		t.Fatalf("openapi.json: %v", openapiDoc.err)
	}
	return openapiDoc.doc, openapiDoc.router
}

// roundTrip sends req to srv and checks the response against the OpenAPI
// document (checkOpenAPI).
func roundTrip(t testing.TB, srv *handlers.Server, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	res, err := srv.Root.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(b))
	checkOpenAPI(t, srv, req, res.StatusCode, res.Header, b)
	return res, b
}

// checkOpenAPI validates one recorded API response. A request the API face
// has no route for (the not_found catch-all) must still answer with an
// error object the document describes.
func checkOpenAPI(t testing.TB, srv *handlers.Server, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	doc, router := loadOpenAPI(t)
	u := *req.URL
	if req.Host != linksAPIHost { // the app origin serves the API under /api
		p, ok := strings.CutPrefix(u.Path, "/api")
		if !ok {
			return // not the API face
		}
		u.Path = p
	}
	if u.RawPath != "" { // an escaped / or space stays one segment
		u.Path, u.RawPath = u.RawPath, ""
	}
	r := req.Clone(context.Background())
	r.URL, r.Host, r.RequestURI = &u, "", ""
	route, params, err := router.FindRoute(r)
	if err != nil {
		if apiRouteMatches(srv, req.Method, u.Path) {
			t.Errorf("openapi: %s %s is served but not in openapi.json (%v)", req.Method, u.Path, err)
			return
		}
		route, params, err = router.FindRoute(mustReq(http.MethodGet, "/links/x"))
		if err != nil || status != http.StatusNotFound && status != http.StatusUnauthorized && status != http.StatusBadRequest && status != http.StatusMethodNotAllowed {
			t.Errorf("openapi: unrouted %s %s answered %d", req.Method, u.Path, status)
			return
		}
		_ = doc
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
		msg := err.Error()
		if len(msg) > 1500 {
			msg = msg[:1500] + "…"
		}
		b := string(body)
		if len(b) > 300 {
			b = b[:300] + "…"
		}
		t.Errorf("openapi: %s %s → %d %s does not match openapi.json: %s\nbody: %s", req.Method, u.Path, status, ct, msg, b)
	}
}

func mustReq(method, target string) *http.Request {
	r, _ := http.NewRequest(method, target, nil)
	return r
}

var fiberParam = regexp.MustCompile(`:[A-Za-z0-9_]+`)

// apiRouteMatches reports whether the API face has a route for method and
// path (its catch-all not counted).
func apiRouteMatches(srv *handlers.Server, method, path string) bool {
	for _, rt := range srv.APIRoutes() {
		if rt.Method != method && !(method == http.MethodHead && rt.Method == http.MethodGet) {
			continue
		}
		if rt.Path == "/" || strings.HasSuffix(rt.Path, "*") {
			continue
		}
		re := "^" + fiberParam.ReplaceAllString(regexp.QuoteMeta(rt.Path), `[^/]+`) + "/?$"
		if ok, _ := regexp.MatchString(re, path); ok {
			return true
		}
	}
	return false
}

// Every route the API face serves is in the document, and every operation
// of the document is a route the face serves.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		if db.Dialect != "sqlite" {
			t.Skip("the route table does not depend on the database")
		}
		e := newLinkEnv(t, db)
		doc, _ := loadOpenAPI(t)
		norm := func(p string) string {
			p = fiberParam.ReplaceAllString(p, "{}")
			return regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(p, "{}")
		}
		documented := map[string]bool{}
		for path, item := range doc.Paths.Map() {
			for method := range item.Operations() {
				documented[method+" "+norm(path)] = true
			}
		}
		served := map[string]bool{}
		var missing []string
		for _, rt := range e.srv.APIRoutes() {
			k := rt.Method + " " + norm(rt.Path)
			served[k] = true
			if !documented[k] {
				missing = append(missing, k)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%d routes missing from openapi.json:\n%s", len(missing), strings.Join(missing, "\n"))
		}
		var extra []string
		for k := range documented {
			if !served[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		if len(extra) > 0 {
			t.Errorf("openapi.json documents routes the server does not have:\n%s", strings.Join(extra, "\n"))
		}
	})
}

// GET /openapi.json serves the embedded document, without a key.
func TestOpenAPIServed(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		r := e.ok(200, "", "GET", "/openapi.json", "")
		if !bytes.Equal(r.body, api.OpenAPIDocument) || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("served %d bytes, %q", len(r.body), r.header.Get("Content-Type"))
		}
		doc, _ := loadOpenAPI(t)
		if doc.Paths.Find("/links") == nil || doc.Components.Responses["E422"] == nil {
			t.Error("document lacks /links or the 422 error")
		}
	})
}

// failRecorder is a testing.TB that records failures instead of failing.
type failRecorder struct {
	testing.TB
	errs []string
}

func (f *failRecorder) Helper()                   {}
func (f *failRecorder) Errorf(s string, a ...any) { f.errs = append(f.errs, fmt.Sprintf(s, a...)) }

// The check fails on a body, status or content type the document does not
// allow, and on a served route the document lacks.
func TestOpenAPICheckCatchesDrift(t *testing.T) {
	e := newLinkEnv(t, testdb.Open(t, "sqlite"))
	get := func(p string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, p, nil)
		r.Host = linksAPIHost
		return r
	}
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name   string
		req    *http.Request
		status int
		header http.Header
		body   string
		want   string
	}{
		{"link without its fields", get("/links"), 200, jsonCT, `[{"id":5}]`, "does not match"},
		{"undocumented status", get("/links"), 418, jsonCT, `{}`, "does not match"},
		{"error without a code", get("/links"), 404, jsonCT, `{"error":{"message":"x"}}`, "does not match"},
		{"CSV where JSON is documented", get("/links"), 200, http.Header{"Content-Type": {"application/csv"}}, "a\n", "does not match"},
	} {
		f := &failRecorder{TB: t}
		checkOpenAPI(f, e.srv, c.req, c.status, c.header, []byte(c.body))
		if len(f.errs) == 0 || !strings.Contains(f.errs[0], c.want) {
			t.Errorf("%s: %q", c.name, f.errs)
		}
	}
	// A valid answer passes.
	f := &failRecorder{TB: t}
	checkOpenAPI(f, e.srv, get("/links/count"), 200, jsonCT, []byte(`3`))
	if len(f.errs) != 0 {
		t.Errorf("valid count: %q", f.errs)
	}
}
