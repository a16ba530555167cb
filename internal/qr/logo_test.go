package qr

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gzqr "github.com/makiuchi-d/gozxing/qrcode"
	qrcode "github.com/skip2/go-qrcode"
)

var red = color.NRGBA{220, 30, 40, 255}

func solid(w, h int, c color.NRGBA) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decodeQR(t *testing.T, b []byte) string {
	t.Helper()
	return scan(t, b).GetText()
}

func scan(t *testing.T, b []byte) *gozxing.Result {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gzqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("the code does not scan: %v", err)
	}
	return res
}

// TestLogoScans draws a logo over the centre and checks, with an
// independent decoder, that the code still reads back the URL at every
// requested level (the level is raised to Q under a logo), that the centre
// is the logo and that no module is drawn inside the logo's box.
func TestLogoScans(t *testing.T) {
	for _, level := range []qrcode.RecoveryLevel{qrcode.Low, qrcode.Medium, qrcode.High, qrcode.Highest} {
		for _, url := range []string{"https://acme.link/x?qr=1", "https://acme.link/" + strings.Repeat("k", 120)} {
			p := &Params{URL: url, Size: 600, Level: level, Margin: 2, FG: color.NRGBA{0, 0, 0, 255},
				BG: color.NRGBA{255, 255, 255, 255}, LogoImage: solid(40, 20, red)}
			b, err := PNG(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := decodeQR(t, b); got != url {
				t.Fatalf("level %v: decoded %q, want %q", level, got, url)
			}
			img, _ := png.Decode(bytes.NewReader(b))
			if c := color.NRGBAModel.Convert(img.At(300, 300)).(color.NRGBA); c != red {
				t.Fatalf("centre %v, want the logo's red", c)
			}
			// The box is 150 px square at 225..375; the 40×20 logo fills 150×75 of it.
			for y := 225; y < 375; y++ {
				for x := 225; x < 375; x++ {
					if c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA); c.R == 0 && c.G == 0 && c.B == 0 {
						t.Fatalf("level %v: a module is drawn at (%d,%d) inside the logo's box", level, x, y)
					}
				}
			}
		}
	}
}

// TestLogoRaisesTheLevel: under a logo the code is encoded at level Q at
// least (a level-L code with its centre covered does not scan); without a
// logo the requested level is kept.
func TestLogoRaisesTheLevel(t *testing.T) {
	for _, tc := range []struct {
		level qrcode.RecoveryLevel
		logo  bool
		want  string
	}{
		{qrcode.Low, false, "L"}, {qrcode.Medium, false, "M"},
		{qrcode.Low, true, "Q"}, {qrcode.Medium, true, "Q"}, {qrcode.High, true, "Q"}, {qrcode.Highest, true, "H"},
	} {
		p := &Params{URL: "https://acme.link/level", Size: 400, Level: tc.level, Margin: 2,
			FG: color.NRGBA{0, 0, 0, 255}, BG: color.NRGBA{255, 255, 255, 255}}
		if tc.logo {
			p.LogoImage = solid(16, 16, red)
		}
		b, err := PNG(p)
		if err != nil {
			t.Fatal(err)
		}
		res := scan(t, b)
		if got := fmt.Sprint(res.GetResultMetadata()[gozxing.ResultMetadataType_ERROR_CORRECTION_LEVEL]); got != tc.want {
			t.Errorf("requested %v, logo %v: encoded at %s, want %s", tc.level, tc.logo, got, tc.want)
		}
	}
}

func TestLoadDataURL(t *testing.T) {
	l := NewLogos(FetchOff)
	ok := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes(t, solid(8, 8, red)))
	img, err := l.Load(context.Background(), ok)
	if err != nil || img.Bounds().Dx() != 8 {
		t.Fatalf("%v %v", img, err)
	}
	huge := image.NewGray(image.Rect(0, 0, 5000, 5000))
	for _, tc := range []struct{ ref, want string }{
		{"data:text/plain;base64,aGk=", "data:image/…;base64"},
		{"data:image/png,rawbytes", "data:image/…;base64"},
		{"data:image/png;base64,!!!", "base64 is invalid"},
		{"data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("not an image")), "not a PNG, JPEG or GIF"},
		{"data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes(t, huge)), "5000×5000 pixels"},
		{"https://example.com/logo.png", "downloading logos is off"},
		{"ftp://example.com/logo.png", "http(s) URL or a data:image"},
	} {
		if _, err := l.Load(context.Background(), tc.ref); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40s: err %v, want it to mention %q", tc.ref, err, tc.want)
		}
	}
}

func TestLogoDataURL(t *testing.T) {
	u, err := LogoDataURL(pngBytes(t, solid(5, 4, red)))
	if err != nil || !strings.HasPrefix(u, "data:image/png;base64,") {
		t.Fatalf("%.40s %v", u, err)
	}
	img, err := NewLogos(FetchOff).Load(context.Background(), u)
	if err != nil || img.Bounds().Dx() != 5 {
		t.Fatalf("the data URL does not load back: %v", err)
	}
	if _, err := LogoDataURL([]byte("<svg/>")); err == nil || !strings.Contains(err.Error(), "not a PNG, JPEG or GIF") {
		t.Fatalf("svg: %v", err)
	}
}

func TestLoadURL(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		switch r.URL.Path {
		case "/logo.png":
			w.Write(pngBytes(t, solid(10, 10, red)))
		case "/big":
			w.Write(make([]byte, MaxLogoBytes+10))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	// public: the test server is on loopback, which an unauthenticated /qr
	// request must not make the server reach.
	if _, err := NewLogos(FetchPublic).Load(context.Background(), srv.URL+"/logo.png"); !errors.Is(err, ErrNotPublic) {
		t.Fatalf("public mode fetched a loopback logo: %v", err)
	}
	if hits != 0 {
		t.Fatalf("public mode reached the loopback server %d times", hits)
	}

	l := NewLogos(FetchAny)
	img, err := l.Load(context.Background(), srv.URL+"/logo.png")
	if err != nil || img.Bounds().Dx() != 10 {
		t.Fatalf("%v %v", img, err)
	}
	if _, err := l.Load(context.Background(), srv.URL+"/logo.png"); err != nil || hits != 1 {
		t.Fatalf("second load: err %v, %d downloads (want the cached one)", err, hits)
	}
	if _, err := l.Load(context.Background(), srv.URL+"/missing"); err == nil || !strings.Contains(err.Error(), "answered 404") {
		t.Fatalf("missing: %v", err)
	}
	if _, err := l.Load(context.Background(), srv.URL+"/big"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big: %v", err)
	}
}
