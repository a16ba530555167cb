package static_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"regexp"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/relinkhq/relink/static"
)

func TestAssets(t *testing.T) {
	want := map[string]string{
		"css/app.css":    "text/css; charset=utf-8",
		"js/htmx.min.js": "text/javascript; charset=utf-8",
		"favicon.svg":    "image/svg+xml",
	}
	urlPattern := regexp.MustCompile(`^/static/[a-z0-9./_-]+\?v=[0-9a-f]{8}$`)
	for name, ct := range want {
		t.Run(name, func(t *testing.T) {
			f, ok := static.Lookup(name)
			if !ok {
				t.Fatalf("%s is not embedded (run make generate)", name)
			}
			if len(f.Body) == 0 {
				t.Fatal("empty file")
			}
			if f.ContentType != ct {
				t.Errorf("ContentType = %q, want %q", f.ContentType, ct)
			}
			sum := sha256.Sum256(f.Body)
			if f.Version != hex.EncodeToString(sum[:4]) {
				t.Errorf("Version = %q, not the SHA-256 prefix of the body", f.Version)
			}
			u := static.URL(name)
			if u != "/static/"+name+"?v="+f.Version || !urlPattern.MatchString(u) {
				t.Errorf("URL = %q", u)
			}
			for enc, decode := range map[string]func([]byte) ([]byte, error){
				"gzip": func(b []byte) ([]byte, error) {
					r, err := gzip.NewReader(bytes.NewReader(b))
					if err != nil {
						return nil, err
					}
					return io.ReadAll(r)
				},
				"br": func(b []byte) ([]byte, error) { return io.ReadAll(brotli.NewReader(bytes.NewReader(b))) },
			} {
				comp := map[string][]byte{"gzip": f.Gzip(), "br": f.Brotli()}[enc]
				got, err := decode(comp)
				if err != nil {
					t.Fatalf("%s: %v", enc, err)
				}
				if !bytes.Equal(got, f.Body) {
					t.Errorf("%s does not decode to the body", enc)
				}
			}
			// Quality 11 in a window that holds the file beats gzip -9.
			if len(f.Body) > 1024 && len(f.Brotli()) >= len(f.Gzip()) {
				t.Errorf("brotli %d bytes, not smaller than gzip's %d", len(f.Brotli()), len(f.Gzip()))
			}
		})
	}
	for _, name := range static.Names() {
		if f, _ := static.Lookup(name); f.ContentType == "application/octet-stream" {
			t.Errorf("%s: no content type for its extension", name)
		}
	}
}

func TestUnknownAsset(t *testing.T) {
	if _, ok := static.Lookup("css/missing.css"); ok {
		t.Error("Lookup found a file that does not exist")
	}
	defer func() {
		if recover() == nil {
			t.Error("URL of an unknown asset did not panic")
		}
	}()
	_ = static.URL("css/missing.css")
}

// The first paint of the embed dashboard must stay small: the CSS and htmx
// together, compressed, leave room for the page itself within 60 KB.
func TestAssetBudget(t *testing.T) {
	total := 0
	for _, name := range []string{"css/app.css", "js/htmx.min.js"} {
		f, _ := static.Lookup(name)
		total += len(f.Gzip())
	}
	if total > 30*1024 {
		t.Errorf("CSS + htmx are %d bytes gzipped, over the 30 KB share of the 60 KB first-paint budget", total)
	}
}
