package api_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func logoDataURL(t *testing.T, c color.NRGBA) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 12, 12))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// TestQRLogo: the logo rules of spec/links.md §9 as Relink applies them: the
// domain's logo on a paid workspace's link, the logo parameter over it, none
// with hideLogo, on a free workspace or for a URL that is not a Relink link,
// and a loopback logo URL refused with the reason in a header.
func TestQRLogo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanPro)
		e.workspace("freeco", models.PlanFree)
		red, blue := color.NRGBA{200, 20, 20, 255}, color.NRGBA{20, 20, 200, 255}
		if r := e.do("acme", "POST", "/domains", `{"slug":"acme.link","logo":"`+logoDataURL(t, red)+`"}`); r.status != 201 {
			t.Fatalf("domain: %d %s", r.status, r.body)
		}
		var freeLink string
		for _, l := range []struct{ ws, body string }{
			{"acme", `{"url":"https://acme.com","domain":"acme.link","key":"x"}`},
			{"freeco", `{"url":"https://free.com","key":"f"}`},
		} {
			r := e.do(l.ws, "POST", "/links", l.body)
			if r.status != 200 {
				t.Fatalf("link: %d %s", r.status, r.body)
			}
			freeLink, _ = r.json(t)["shortLink"].(string)
		}
		get := func(u string, extra url.Values) (color.NRGBA, string) {
			t.Helper()
			q := url.Values{"url": {u}, "size": {"400"}}
			for k, v := range extra {
				q[k] = v
			}
			req := httptest.NewRequest("GET", "/qr?"+q.Encode(), nil)
			req.Host = linksAPIHost
			res, b := roundTrip(t, e.srv, req)
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d %s", u, res.StatusCode, b)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			return color.NRGBAModel.Convert(img.At(200, 200)).(color.NRGBA), res.Header.Get("X-Relink-Logo-Error")
		}
		tests := []struct {
			name  string
			url   string
			extra url.Values
			want  *color.NRGBA // centre colour; nil: a module (black or white)
			err   string
		}{
			{name: "domain logo", url: "https://acme.link/x?qr=1", want: &red},
			{name: "key matched case-insensitively", url: "https://ACME.link/X", want: &red},
			{name: "logo parameter wins", url: "https://acme.link/x", extra: url.Values{"logo": {logoDataURL(t, blue)}}, want: &blue},
			{name: "hideLogo", url: "https://acme.link/x", extra: url.Values{"hideLogo": {"true"}}},
			{name: "free workspace", url: freeLink, extra: url.Values{"logo": {logoDataURL(t, blue)}}},
			{name: "not a Relink link", url: "https://example.com/x", extra: url.Values{"logo": {logoDataURL(t, blue)}}},
			{name: "loopback logo refused", url: "https://acme.link/x", extra: url.Values{"logo": {"http://127.0.0.1:9/logo.png"}}, err: "not a public address"},
			{name: "broken logo", url: "https://acme.link/x", extra: url.Values{"logo": {"data:image/png;base64,AAAA"}}, err: "not a PNG, JPEG or GIF"},
		}
		for _, tc := range tests {
			got, logoErr := get(tc.url, tc.extra)
			switch {
			case tc.want != nil && got != *tc.want:
				t.Errorf("%s: centre %v, want the logo %v", tc.name, got, *tc.want)
			case tc.want == nil && got != (color.NRGBA{0, 0, 0, 255}) && got != (color.NRGBA{255, 255, 255, 255}):
				t.Errorf("%s: centre %v, want no logo", tc.name, got)
			case !strings.Contains(logoErr, tc.err) || (tc.err == "") != (logoErr == ""):
				t.Errorf("%s: X-Relink-Logo-Error %q, want %q", tc.name, logoErr, tc.err)
			}
		}
	})
}
