package qr

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"

	qrcode "github.com/skip2/go-qrcode"
)

// TestPNGMatchesModules renders codes and checks every module's centre pixel
// against the encoder's bitmap, with the quiet zone in the background colour.
func TestPNGMatchesModules(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		level  qrcode.RecoveryLevel
		margin int
		scale  int
	}{
		{"short L margin 2", "https://acme.link/x?qr=1", qrcode.Low, 2, 8},
		{"long H margin 0", "https://example.com/" + string(bytes.Repeat([]byte("a"), 200)), qrcode.Highest, 0, 3},
		{"margin 6", "https://a.co", qrcode.Medium, 6, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, err := qrcode.New(tc.url, tc.level)
			if err != nil {
				t.Fatal(err)
			}
			code.DisableBorder = true
			bits := code.Bitmap()
			n := len(bits)
			total := n + 2*tc.margin
			p := &Params{URL: tc.url, Size: total * tc.scale, Level: tc.level, Margin: tc.margin,
				FG: color.NRGBA{0, 0, 0, 255}, BG: color.NRGBA{255, 255, 255, 255}}
			b, err := PNG(p)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			for my := -tc.margin; my < n+tc.margin; my++ {
				for mx := -tc.margin; mx < n+tc.margin; mx++ {
					x := (mx+tc.margin)*tc.scale + tc.scale/2
					y := (my+tc.margin)*tc.scale + tc.scale/2
					r, _, _, _ := img.At(x, y).RGBA()
					dark := r == 0
					want := mx >= 0 && my >= 0 && mx < n && my < n && bits[my][mx]
					if dark != want {
						t.Fatalf("module (%d,%d): dark=%v want %v", mx, my, dark, want)
					}
				}
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	p, err := Parse(func(k string) string {
		if k == "url" {
			return "https://a.com"
		}
		return ""
	}, func(s string) (string, bool) { return s, true })
	if err != nil {
		t.Fatal(err)
	}
	if p.Size != 600 || p.Margin != 2 || p.Level != qrcode.Low || p.FG != (color.NRGBA{0, 0, 0, 255}) || p.BG != (color.NRGBA{255, 255, 255, 255}) {
		t.Fatalf("defaults %+v", p)
	}
	for in, want := range map[string]color.NRGBA{"#abc": {0xaa, 0xbb, 0xcc, 255}, "#A1B2C3": {0xa1, 0xb2, 0xc3, 255}, "a1b2c380": {0xa1, 0xb2, 0xc3, 0x80}} {
		if got, ok := parseHex(in); !ok || got != want {
			t.Errorf("parseHex(%q) = %v %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "#ab", "#ggg", "red"} {
		if _, ok := parseHex(bad); ok {
			t.Errorf("parseHex(%q) accepted", bad)
		}
	}
}
