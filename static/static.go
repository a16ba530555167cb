// Package static holds Relink's front-end assets — the Tailwind CSS built by
// `make css`, htmx vendored from npm, icons — in an embedded file system, and
// the fingerprinted URLs that pages link to.
//
// Fingerprinting: URL("css/app.css") is "/static/css/app.css?v=<the first 8
// hex digits of the file's SHA-256>". Fingerprints are computed once, on first
// use, from the embedded bytes. The server answers a request carrying the
// current fingerprint with a one-year immutable cache, and every other request
// (no v, an old v) with a short one, so a new build changes the URL of every
// file whose bytes changed and browsers never keep a stale asset.
//
// Nothing is fetched at run time: every asset a page needs is in this package.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

//go:embed css js favicon.svg
var files embed.FS

// Prefix is the path every asset is served under.
const Prefix = "/static/"

// VersionParam is the query parameter that carries the fingerprint.
const VersionParam = "v"

// File is one embedded asset, read and fingerprinted once.
type File struct {
	Name         string // path inside the FS, e.g. "css/app.css"
	ContentType  string
	Version      string // first 8 hex digits of the SHA-256 of Body
	ETag         string // weak ETag of Body (shared by its encodings)
	Body         []byte
	Compressible bool // a text type, served gzip- or brotli-compressed when asked

	gzip, brotli func() []byte
}

// Gzip is Body gzip-compressed at the best level; nil when the file is not
// Compressible. Each encoding is compressed on its first use and kept: brotli
// at its best quality costs about 0.2 CPU-seconds for the assets together,
// which every process start paid when it was done at start-up, although
// most processes (CLI commands, servers in tests, API-only servers) never
// serve an asset.
func (f *File) Gzip() []byte { return f.gzip() }

// Brotli is Body brotli-compressed at the best quality; nil when the file is
// not Compressible.
func (f *File) Brotli() []byte { return f.brotli() }

// URL is the path pages link to: Prefix + name + "?v=" + fingerprint.
func (f *File) URL() string { return Prefix + f.Name + "?" + VersionParam + "=" + f.Version }

// table is built on first use; the embedded bytes never change while the
// process runs, so neither do the fingerprints.
var table = sync.OnceValue(func() map[string]*File {
	t, err := load(files)
	if err != nil {
		// The FS is compiled into the binary: failing to read it is a build bug.
		panic(fmt.Sprintf("static: %v", err))
	}
	return t
})

// Load reads and fingerprints every asset now instead of on the first
// request; the server calls it at start-up. Compression waits for the first
// request that asks for each encoding of each file (File.Gzip).
func Load() { table() }

// Lookup returns the asset named name (a path inside the FS, without Prefix).
func Lookup(name string) (*File, bool) {
	f, ok := table()[name]
	return f, ok
}

// URL returns the fingerprinted URL of the asset named name. It panics for a
// name that is not embedded: a typo in a template is a programming error that
// any test rendering the page catches.
func URL(name string) string {
	f, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("static.URL: no embedded asset %q", name))
	}
	return f.URL()
}

func load(fsys fs.FS) (map[string]*File, error) {
	t := map[string]*File{}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		sum := sha256.Sum256(body)
		f := &File{
			Name:        name,
			ContentType: contentType(name),
			Version:     hex.EncodeToString(sum[:4]),
			ETag:        `W/"` + hex.EncodeToString(sum[:12]) + `"`,
			Body:        body,
		}
		f.Compressible = compressible(f.ContentType)
		f.gzip = lazily(f.Compressible, name, body, gzipBytes)
		f.brotli = lazily(f.Compressible, name, body, brotliBytes)
		t[name] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load embedded assets: %w", err)
	}
	return t, nil
}

// contentType does not depend on the host's mime.types, so every machine
// serves the same headers.
func contentType(name string) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".json", ".map":
		return "application/json"
	case ".ico":
		return "image/x-icon"
	case ".png":
		return "image/png"
	case ".woff2":
		return "font/woff2"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

func compressible(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") || strings.HasPrefix(contentType, "image/svg") ||
		strings.HasPrefix(contentType, "application/json")
}

// lazily returns a function that compresses body with compress on its first
// call and returns the same bytes on every call; nil when !ok. Compressing
// into memory fails only on a bug in the compressor, which is a programming
// error like a missing asset: it panics with the file's name.
func lazily(ok bool, name string, body []byte, compress func([]byte) ([]byte, error)) func() []byte {
	if !ok {
		return func() []byte { return nil }
	}
	return sync.OnceValue(func() []byte {
		b, err := compress(body)
		if err != nil {
			panic(fmt.Sprintf("static: compress %s: %v", name, err))
		}
		return b
	})
}

func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// brotliBytes compresses b at brotli's best quality with the smallest
// window that holds all of b. The default window (16 MiB) compresses a
// file smaller than it no better, and quality 11's match finder allocates
// and clears tables sized by the window: with it, compressing the assets
// was two thirds of a server start's CPU (0.65 of 1.0 s sampled, most of it
// clearing memory), paid on every start of every test server.
func brotliBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: brotliWindow(len(b))})
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// brotliWindow is the smallest brotli window (log2, 10–24) whose size,
// 2^lgwin − 16 bytes, holds n bytes.
func brotliWindow(n int) int {
	lg := 10
	for lg < 24 && (1<<lg)-16 < n {
		lg++
	}
	return lg
}
