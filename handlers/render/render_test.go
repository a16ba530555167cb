package render_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/views/layout"
)

func serve(t *testing.T, h fiber.Handler, header map[string]string) (*http.Response, string) {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", h)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

func TestPageOrFragment(t *testing.T) {
	body := templ.Raw(`<div id="frag">x</div>`)
	h := func(c *fiber.Ctx) error { return render.Page(c, http.StatusCreated, layout.Page{Title: "T"}, body) }
	tests := []struct {
		name     string
		header   map[string]string
		fragment bool
	}{
		{"browser", nil, false},
		{"htmx", map[string]string{render.HeaderRequest: "true"}, true},
		{"boosted", map[string]string{render.HeaderRequest: "true", render.HeaderBoosted: "true"}, false},
		{"history restore", map[string]string{render.HeaderRequest: "true", render.HeaderHistoryRestore: "true"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, b := serve(t, h, tt.header)
			if res.StatusCode != http.StatusCreated {
				t.Errorf("status = %d", res.StatusCode)
			}
			if res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("Content-Type = %q", res.Header.Get("Content-Type"))
			}
			if tt.fragment && b != `<div id="frag">x</div>` {
				t.Errorf("fragment = %q", b)
			}
			if !tt.fragment && (!strings.HasPrefix(b, "<!doctype html>") || !strings.Contains(b, `<div id="frag">x</div>`)) {
				t.Errorf("page = %.120s", b)
			}
		})
	}
}

func TestFrameAncestors(t *testing.T) {
	res, _ := serve(t, func(c *fiber.Ctx) error {
		render.FrameAncestors(c, "https://a.example", "https://b.example")
		return render.Component(c, 200, templ.Raw("ok"))
	}, nil)
	if csp := res.Header.Get("Content-Security-Policy"); !strings.HasSuffix(csp, "; frame-ancestors https://a.example https://b.example") {
		t.Errorf("CSP = %q", csp)
	}
}

func TestRenderErrorSendsNothing(t *testing.T) {
	failing := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, _ = io.WriteString(w, "<p>half")
		return errors.New("boom")
	})
	var got error
	res, b := serve(t, func(c *fiber.Ctx) error {
		got = render.Component(c, http.StatusCreated, failing)
		return nil // leave the response as render left it
	}, nil)
	if got == nil || !strings.Contains(got.Error(), "boom") {
		t.Fatalf("error = %v", got)
	}
	if res.StatusCode == http.StatusCreated || b != "" {
		t.Errorf("partial output leaked: %d %q", res.StatusCode, b)
	}
}

func TestRedirect(t *testing.T) {
	h := func(c *fiber.Ctx) error { return render.Redirect(c, "/next") }
	res, _ := serve(t, h, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/next" {
		t.Errorf("browser: %d Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, _ = serve(t, h, map[string]string{render.HeaderRequest: "true"})
	if res.StatusCode != http.StatusOK || res.Header.Get(render.HeaderRedirect) != "/next" || res.Header.Get("Location") != "" {
		t.Errorf("htmx: %d HX-Redirect %q Location %q", res.StatusCode, res.Header.Get(render.HeaderRedirect), res.Header.Get("Location"))
	}
}
