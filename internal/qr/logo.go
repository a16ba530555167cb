package qr

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // logo formats
	_ "image/jpeg" // logo formats
	_ "image/png"  // logo formats
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/netguard"
	"github.com/relinkhq/relink/internal/ttlmap"
)

// Fetch says which logo URLs the server may download.
type Fetch string

const (
	// FetchPublic downloads logos from public addresses only: a /qr request
	// is unauthenticated, so it must not make the server reach its own
	// network (loopback, private, link-local and metadata addresses).
	FetchPublic Fetch = "public"
	// FetchAny downloads from any address (logos hosted on an intranet).
	FetchAny Fetch = "any"
	// FetchOff downloads nothing; data: URLs still work.
	FetchOff Fetch = "off"
)

// ParseFetch validates a RELINK_QR_LOGO_FETCH value.
func ParseFetch(s string) (Fetch, error) {
	switch f := Fetch(s); f {
	case FetchPublic, FetchAny, FetchOff:
		return f, nil
	}
	return "", fmt.Errorf("want public, any or off, got %q", s)
}

// Limits on a logo, so a hostile one cannot exhaust the server.
const (
	MaxLogoBytes  = 2 << 20
	MaxLogoPixels = 4096 * 4096
	logoTimeout   = 3 * time.Second
	logoCacheSize = 128
	logoCacheTTL  = time.Hour
	logoFailTTL   = time.Minute
)

// Logos loads logo images from data: URLs and http(s) URLs, caching them
// (a failure briefly, so a dead logo host is not asked on every request).
type Logos struct {
	fetch  Fetch
	client *http.Client
	now    func() time.Time
	cache  *ttlmap.Map[cachedLogo]
}

type cachedLogo struct {
	img image.Image
	err error
}

// NewLogos returns a loader downloading per f.
func NewLogos(f Fetch) *Logos {
	dialer := &net.Dialer{Timeout: logoTimeout}
	if f != FetchAny {
		dialer.Control = netguard.PublicOnly
	}
	tr := &http.Transport{DialContext: dialer.DialContext, Proxy: nil, TLSHandshakeTimeout: logoTimeout,
		ResponseHeaderTimeout: logoTimeout, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second}
	client := &http.Client{Transport: tr, Timeout: logoTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("too many redirects")
			}
			return nil
		}}
	return &Logos{fetch: f, client: client, now: time.Now, cache: ttlmap.New[cachedLogo](logoCacheSize)}
}

// ErrNotPublic is returned for a logo URL resolving to a non-public address.
var ErrNotPublic = netguard.ErrNotPublic

// Load returns the logo ref names: a data:image/…;base64 URL or an http(s)
// URL. Errors say what is wrong with the logo.
func (l *Logos) Load(ctx context.Context, ref string) (image.Image, error) {
	now := l.now()
	if c, ok := l.cache.Get(ref, now); ok {
		return c.img, c.err
	}
	img, err := l.load(ctx, ref)
	ttl := logoCacheTTL
	if err != nil {
		ttl = logoFailTTL
	}
	l.cache.Put(ref, cachedLogo{img: img, err: err}, now, now.Add(ttl))
	return img, err
}

func (l *Logos) load(ctx context.Context, ref string) (image.Image, error) {
	switch {
	case strings.HasPrefix(ref, "data:"):
		meta, data, ok := strings.Cut(ref[len("data:"):], ",")
		if !ok || !strings.HasSuffix(meta, ";base64") || !strings.HasPrefix(meta, "image/") {
			return nil, errors.New("a data: logo must be data:image/…;base64,…")
		}
		if base64.StdEncoding.DecodedLen(len(data)) > MaxLogoBytes {
			return nil, fmt.Errorf("the logo is larger than %d bytes", MaxLogoBytes)
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
		if err != nil {
			return nil, fmt.Errorf("the logo's base64 is invalid: %w", err)
		}
		return decodeLogo(b)
	case strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://"):
		if l.fetch == FetchOff {
			return nil, errors.New("downloading logos is off (RELINK_QR_LOGO_FETCH=off)")
		}
		ctx, cancel := context.WithTimeout(ctx, logoTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ref, nil)
		if err != nil {
			return nil, fmt.Errorf("logo URL: %w", err)
		}
		req.Header.Set("Accept", "image/png, image/jpeg, image/gif")
		res, err := l.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("download logo: %w", err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("download logo: %s answered %d", req.URL.Host, res.StatusCode)
		}
		b, err := io.ReadAll(io.LimitReader(res.Body, MaxLogoBytes+1))
		if err != nil {
			return nil, fmt.Errorf("download logo: %w", err)
		}
		if len(b) > MaxLogoBytes {
			return nil, fmt.Errorf("the logo is larger than %d bytes", MaxLogoBytes)
		}
		return decodeLogo(b)
	}
	return nil, errors.New("a logo must be an http(s) URL or a data:image/…;base64 URL")
}

// LogoError is a logo refused for what it is. Reason is a sentence for
// the person who gave it (the console shows it); Err the decoder's detail.
type LogoError struct {
	Reason string
	Err    error
}

func (e *LogoError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *LogoError) Unwrap() error { return e.Err }

// decodeLogo checks the dimensions before decoding, so a small file that
// declares a huge image is refused without allocating it.
func decodeLogo(b []byte) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, &LogoError{Reason: "the logo is not a PNG, JPEG or GIF image", Err: err}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > MaxLogoPixels {
		return nil, &LogoError{Reason: fmt.Sprintf("the logo is %d×%d pixels; at most %d pixels are drawn", cfg.Width, cfg.Height, MaxLogoPixels)}
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, &LogoError{Reason: "decode logo", Err: err}
	}
	return img, nil
}

// LogoDataURL checks an uploaded logo (a PNG, JPEG or GIF within the
// limits) and returns it as the data:image/…;base64 URL a domain stores.
func LogoDataURL(b []byte) (string, error) {
	if len(b) > MaxLogoBytes {
		return "", &LogoError{Reason: fmt.Sprintf("the logo is larger than %d bytes", MaxLogoBytes)}
	}
	if _, err := decodeLogo(b); err != nil {
		return "", err
	}
	_, format, _ := image.DecodeConfig(bytes.NewReader(b))
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
