package static_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/relinkhq/relink/static"
)

// scriptGzipMax is the browser script's size budget, gzipped (issue 18:
// at most 5 KB, so it costs a site no more than Dub's own).
const scriptGzipMax = 5 * 1024

// TestBrowserScriptSize: the browser script (docs/browser-script.md) is
// served gzipped within its budget, measured on the bytes the server sends
// (static.File.Gzip) and on a maximum-compression gzip of the source.
func TestBrowserScriptSize(t *testing.T) {
	f, ok := static.Lookup("js/analytics.js")
	if !ok {
		t.Fatal("js/analytics.js is not embedded")
	}
	if f.ContentType != "text/javascript; charset=utf-8" {
		t.Errorf("ContentType = %q", f.ContentType)
	}
	if !f.Compressible || len(f.Gzip()) > scriptGzipMax {
		t.Errorf("served gzip is %d bytes, budget %d", len(f.Gzip()), scriptGzipMax)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := io.Copy(zw, bytes.NewReader(f.Body)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > scriptGzipMax {
		t.Errorf("gzip -9 of the script is %d bytes, budget %d", buf.Len(), scriptGzipMax)
	}
	t.Logf("analytics.js: %d bytes, %d gzipped as served, %d with gzip -9", len(f.Body), len(f.Gzip()), buf.Len())
}
