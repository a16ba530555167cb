package wire

import (
	"testing"

	"github.com/relinkhq/relink/models"
)

func TestShortLinkAndQRCode(t *testing.T) {
	dev := Writer{PlainHTTPDomain: "localhost:8080", APIOrigin: "http://localhost:8081/"}
	for _, c := range []struct {
		w           Writer
		domain, key string
		short, qr   string
	}{
		{Writer{}, "acme.link", "spring", "https://acme.link/spring", "https://api.dub.co/qr?url=https://acme.link/spring?qr=1"},
		{Writer{}, "acme.link", models.RootKey, "https://acme.link", "https://api.dub.co/qr?url=https://acme.link?qr=1"},
		{dev, "LOCALHOST:8080", "a/b", "http://LOCALHOST:8080/a/b", "http://localhost:8081/qr?url=http://LOCALHOST:8080/a/b?qr=1"},
		{dev, "acme.link", "spring", "https://acme.link/spring", "http://localhost:8081/qr?url=https://acme.link/spring?qr=1"},
	} {
		short := c.w.ShortLink(c.domain, c.key)
		if short != c.short {
			t.Errorf("ShortLink(%q, %q) = %q, want %q", c.domain, c.key, short, c.short)
		}
		if qr := c.w.QRCode(short); qr != c.qr {
			t.Errorf("QRCode(%q) = %q, want %q", short, qr, c.qr)
		}
	}
}
