package e2e

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestStaticEncodingsServed: `relink serve` as built answers its pages'
// assets brotli- or gzip-compressed as the client asks, and identity when it
// asks for neither; each encoding decodes to the identity body. The server
// compresses an asset on the first request for each encoding (static.File),
// so the first and a second request must agree byte for byte.
func TestStaticEncodingsServed(t *testing.T) {
	env, app, _ := origins(t, nil)
	start(t, "serve", env)
	login := get(t, noFollow, app+"/console/login", "", nil)
	assets := regexp.MustCompile(`/static/[^"' ]+\.(?:css|js)[^"' ]*`).FindAllString(login.Body, -1)
	if len(assets) < 2 {
		t.Fatalf("assets on the login page: %q (status %d)", assets, login.Status)
	}
	decode := map[string]func(string) (string, error){
		"br": func(s string) (string, error) {
			b, err := io.ReadAll(brotli.NewReader(strings.NewReader(s)))
			return string(b), err
		},
		"gzip": func(s string) (string, error) {
			zr, err := gzip.NewReader(strings.NewReader(s))
			if err != nil {
				return "", err
			}
			b, err := io.ReadAll(zr)
			return string(b), err
		},
	}
	for _, asset := range assets {
		plain := get(t, noFollow, app+asset, "", map[string]string{"Accept-Encoding": "identity"})
		if plain.Status != 200 || plain.Header.Get("Content-Encoding") != "" || plain.Body == "" {
			t.Fatalf("%s identity: %d, Content-Encoding %q, %d bytes", asset, plain.Status, plain.Header.Get("Content-Encoding"), len(plain.Body))
		}
		if !strings.Contains(plain.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%s: Vary %q lacks Accept-Encoding", asset, plain.Header.Get("Vary"))
		}
		for _, enc := range []string{"br", "gzip"} {
			first := get(t, noFollow, app+asset, "", map[string]string{"Accept-Encoding": enc})
			again := get(t, noFollow, app+asset, "", map[string]string{"Accept-Encoding": enc})
			if got := first.Header.Get("Content-Encoding"); got != enc {
				t.Errorf("%s asked %s: Content-Encoding %q", asset, enc, got)
				continue
			}
			if !bytes.Equal([]byte(first.Body), []byte(again.Body)) {
				t.Errorf("%s %s: a second request got other bytes (%d against %d)", asset, enc, len(again.Body), len(first.Body))
			}
			if len(first.Body) >= len(plain.Body) {
				t.Errorf("%s %s: %d bytes, not smaller than the identity's %d", asset, enc, len(first.Body), len(plain.Body))
			}
			if body, err := decode[enc](first.Body); err != nil || body != plain.Body {
				t.Errorf("%s %s: decodes to %d bytes (%v), identity %d", asset, enc, len(body), err, len(plain.Body))
			}
		}
	}
}
