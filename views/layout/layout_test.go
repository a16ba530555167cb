package layout_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/relinkhq/relink/static"
	"github.com/relinkhq/relink/views/layout"
)

func TestBase(t *testing.T) {
	tests := []struct {
		name      string
		page      layout.Page
		title     string
		htmlClass string
		lang      string
	}{
		{"defaults", layout.Page{}, "Relink", "", "en"},
		{"system theme", layout.Page{Title: "Links", Theme: layout.ParseTheme("system")}, "Links · Relink", "", "en"},
		{"light theme", layout.Page{Title: "Links", Theme: layout.ParseTheme("light")}, "Links · Relink", "light", "en"},
		{"dark theme", layout.Page{Title: "Referrals", Theme: layout.ParseTheme(" DARK "), Lang: "de"}, "Referrals · Relink", "dark", "de"},
		{"bad theme is system", layout.Page{Theme: layout.ParseTheme("purple")}, "Relink", "", "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := templ.WithNonce(context.Background(), "n0nce")
			ctx = templ.WithChildren(ctx, templ.Raw(`<p data-testid="child">hi</p>`))
			var buf bytes.Buffer
			if err := layout.Base(tt.page).Render(ctx, &buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(buf.Bytes(), []byte("<!doctype html>")) {
				t.Errorf("no doctype: %.40s", buf.Bytes())
			}
			d, err := goquery.NewDocumentFromReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			html := d.Find("html")
			if got := html.AttrOr("lang", ""); got != tt.lang {
				t.Errorf("lang = %q, want %q", got, tt.lang)
			}
			if got := html.AttrOr("class", ""); got != tt.htmlClass {
				t.Errorf("html class = %q, want %q", got, tt.htmlClass)
			}
			if got := d.Find("title").Text(); got != tt.title {
				t.Errorf("title = %q, want %q", got, tt.title)
			}
			if d.Find("head link[rel=stylesheet]").AttrOr("href", "") != static.URL("css/app.css") {
				t.Error("stylesheet is not the fingerprinted app.css")
			}
			s := d.Find("head script")
			if s.AttrOr("src", "") != static.URL("js/htmx.min.js") || s.AttrOr("nonce", "") != "n0nce" {
				t.Errorf("htmx script src %q nonce %q", s.AttrOr("src", ""), s.AttrOr("nonce", ""))
			}
			if d.Find("body[data-testid=page-body] [data-testid=child]").Text() != "hi" {
				t.Error("children not in the body")
			}
			if d.Find(`meta[name=robots]`).Length() != 0 {
				t.Error("robots meta without NoIndex")
			}
		})
	}
}
