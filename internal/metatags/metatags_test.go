package metatags

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestParse(t *testing.T) {
	page := `<html><head><title>Plain &amp; title</title>
<meta property="og:title" content="OG &amp; Title"><meta property="og:title" content="second loses">
<meta name="description" content="Desc">
<meta name="twitter:image" content="/tw.png">
<link rel="icon" href="/favicon.ico"></head><body><title>not me</title></body></html>`
	got := Parse(page, "https://a.example/blog/post")
	if got.Title != "OG & Title" || got.Description != "Desc" || str(got.Image) != "https://a.example/tw.png" {
		t.Fatalf("%+v %s", got, str(got.Image))
	}
	got = Parse(`<title> Only &lt;title&gt; </title>`, "https://a.example/")
	if got.Title != "Only <title>" || got.Description != "No description" || got.Image != nil {
		t.Fatalf("%+v", got)
	}
	if got := Parse(`<p>nothing</p>`, "https://a.example/x"); got.Title != "https://a.example/x" {
		t.Fatalf("title falls back to the URL: %+v", got)
	}
}

func TestResolveImage(t *testing.T) {
	for img, want := range map[string]string{
		"":                                   "<nil>",
		"https://cdn.example/og.jpg":         "https://cdn.example/og.jpg",
		"/og.jpg":                            "https://a.example/og.jpg",
		"og.jpg":                             "https://a.example/og.jpg", // the origin, not the page's path
		"../og.jpg":                          "https://a.example/og.jpg",
		"//cdn.example/x.png":                "https://cdn.example/x.png",
		"data:image/png;base64,iVBORw0KGgo=": "data:image/png;base64,iVBORw0KGgo=",
		"data:image/svg+xml;base64,PHN2Zz4=": "<nil>",
		"http://localhost/x.png":             "<nil>",
		"http://10.0.0.1/x.png":              "<nil>",
		"http://intranet/x.png":              "<nil>",
		"javascript:alert(1)":                "<nil>",
		"ftp://files.example/x.png":          "<nil>",
	} {
		if got := str(ResolveImage("https://a.example/blog/post", img)); got != want {
			t.Errorf("%q: %s, want %s", img, got, want)
		}
	}
}

func TestFallback(t *testing.T) {
	for u, want := range map[string]Tags{
		"https://www.acme.example/blog/my-first-post": {Title: "My First Post", Description: "Visit www.acme.example/blog/my-first-post"},
		"https://www.acme.example":                    {Title: "acme.example", Description: "Visit www.acme.example/"},
	} {
		if got := Fallback(u); got.Title != want.Title || got.Description != want.Description || got.Image != nil {
			t.Errorf("%s: %+v, want %+v", u, got, want)
		}
	}
}

// TestFetch runs the fetcher against a local server: a page is read when
// private addresses are allowed, and refused (the fallback) under the
// public-only rule, which is what the API uses.
func TestFetch(t *testing.T) {
	hops := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			if r.Header.Get("User-Agent") != UserAgent || r.Header.Get("Cookie") != "" {
				t.Errorf("headers %v", r.Header)
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<title>Hello</title><meta property="og:image" content="https://cdn.example/i.png">`)
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"title":"no"}`)
		case "/challenge":
			fmt.Fprint(w, `<title>Just a moment</title><script src="/cdn-cgi/challenge-platform/x.js"></script>`)
		case "/loop":
			hops++
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/big-page":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<title>Big</title>"+strings.Repeat("x", MaxBytes))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	f := New(false, false)
	if got := f.Get(ctx, srv.URL+"/page"); got.Title != "Hello" || str(got.Image) != "https://cdn.example/i.png" {
		t.Fatalf("page: %+v", got)
	}
	for p, title := range map[string]string{"/json": "Json", "/challenge": "Challenge", "/missing": "Missing", "/loop": "Loop"} {
		if got := f.Get(ctx, srv.URL+p); got.Title != title || !strings.HasPrefix(got.Description, "Visit 127.0.0.1") {
			t.Errorf("%s: %+v, want the fallback", p, got)
		}
	}
	if hops > MaxRedirects+1 {
		t.Errorf("%d hops followed", hops)
	}
	if got := f.Get(ctx, srv.URL+"/big-page"); got.Title != "Big" {
		t.Errorf("a long page is read up to the limit: %+v", got)
	}
	pub := New(true, false)
	if got := pub.Get(ctx, srv.URL+"/page"); got.Title != "Page" || got.Image != nil {
		t.Fatalf("public-only fetched a loopback page: %+v", got)
	}
	if got := New(false, true).Get(ctx, srv.URL+"/page"); got.Title != "Page" {
		t.Fatalf("off fetched: %+v", got)
	}
}
