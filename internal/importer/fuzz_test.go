package importer_test

import (
	"context"
	"testing"

	"github.com/relinkhq/relink/internal/importer"
)

// FuzzCSV: any bytes give an error or links, never a panic.
func FuzzCSV(f *testing.F) {
	f.Add([]byte(sampleCSV))
	f.Add([]byte("link,url\n\"a,b\n"))
	f.Add([]byte("\uFEFFlink,url\nhttps://x.y/%zz,http://[::1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := importer.NewCSV(data, nil)
		if err != nil {
			return
		}
		n := 0
		if err := src.Each(context.Background(), func(importer.Link) error { n++; return nil }); err == nil && n != src.Total() {
			t.Fatalf("%d rows yielded, Total %d", n, src.Total())
		}
	})
}

// FuzzYOURLSDump: any dump gives an error or links, never a panic.
func FuzzYOURLSDump(f *testing.F) {
	f.Add([]byte(yourlsDump))
	f.Add([]byte("INSERT INTO `yourls_url` (`keyword`,`url`) VALUES ('a','b'),('c\\'','d');"))
	f.Add([]byte("INSERT INTO `yourls_url` VALUES ('a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = importer.NewYOURLSDump(data, "y.test")
	})
}
