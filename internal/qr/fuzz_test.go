package qr

import (
	"context"
	"encoding/base64"
	"image"
	"net/url"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
)

// FuzzParse: any /qr query gives valid parameters or a 422 in the spec's
// format, never a panic; accepted parameters render a PNG of the asked size.
func FuzzParse(f *testing.F) {
	for _, q := range []string{
		"url=https://acme.link/x", "url=https://a.com&size=100&level=H&fgColor=%23123&bgColor=%23ffffff&margin=0",
		"url=&size=-1", "url=https://a.com&size=1e9", "url=https://a.com&level=Z", "url=https://a.com&fgColor=red",
		"url=https://a.com&hideLogo=yes", "url=https://a.com&margin=20.5&size=32", "logo=data:image/png;base64,AAAA",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		p, err := Parse(vals.Get, func(s string) (string, bool) {
			return s, strings.HasPrefix(s, "https://") && len(s) > len("https://")
		})
		if err != nil {
			if e, ok := err.(*apierr.Error); !ok || e.Code != apierr.Unprocessable || !zodMessage(e.Message) {
				t.Fatalf("error %T %v, want a 422 in the zod format", err, err)
			}
			return
		}
		if p.Size < MinSize || p.Size > MaxSize || p.Margin < 0 || p.Margin > MaxMargin {
			t.Fatalf("out-of-range params %+v", p)
		}
		if p.Size > 256 || len(p.URL) > 300 {
			return // keep each input cheap; the ranges are checked above
		}
		b, err := PNG(p)
		if err != nil {
			if e, ok := err.(*apierr.Error); !ok || e.Code != apierr.Unprocessable {
				t.Fatalf("PNG: %v", err)
			}
			return
		}
		cfg, _, err := image.DecodeConfig(strings.NewReader(string(b)))
		if err != nil || cfg.Width != p.Size || cfg.Height != p.Size {
			t.Fatalf("PNG %v %dx%d, want %d square", err, cfg.Width, cfg.Height, p.Size)
		}
	})
}

// zodMessage is the 422 message shape: "code: path: message".
func zodMessage(m string) bool {
	parts := strings.SplitN(m, ": ", 3)
	return len(parts) == 3 && parts[0] != "" && parts[2] != ""
}

// FuzzLoadDataURL: a data: logo of any bytes is an image within the limits
// or an error, never a panic or a huge allocation.
func FuzzLoadDataURL(f *testing.F) {
	f.Add("image/png", pngBytes(f, solid(3, 3, red)))
	f.Add("image/png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x7f\xff\xff\xff\x7f\xff\xff\xff\x08\x02\x00\x00\x00"))
	f.Add("image/gif", []byte("GIF89a\xff\xff\xff\xff"))
	f.Add("image/jpeg", []byte("\xff\xd8\xff\xe0"))
	f.Add("text/plain", []byte("hi"))
	l := NewLogos(FetchOff)
	f.Fuzz(func(t *testing.T, mime string, data []byte) {
		img, err := l.load(context.Background(), "data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(data))
		if err != nil {
			return
		}
		b := img.Bounds()
		if b.Dx() <= 0 || b.Dy() <= 0 || b.Dx()*b.Dy() > MaxLogoPixels {
			t.Fatalf("accepted a %v logo", b)
		}
	})
}
