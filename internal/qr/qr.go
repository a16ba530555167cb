// Package qr renders QR code PNGs for GET /qr (spec/links.md §9). Encoding is done
// by github.com/skip2/go-qrcode; this package only maps the API's parameters
// (size, level, colours, margin) onto the module bitmap and draws the logo
// (logo.go loads it).
package qr

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
	"golang.org/x/image/draw"

	"github.com/relinkhq/relink/internal/apierr"
)

// Limits on the rendered image, so one request cannot ask for a huge PNG.
const (
	MinSize   = 32
	MaxSize   = 2048
	MaxMargin = 20
)

// Params are the validated /qr parameters.
type Params struct {
	URL      string
	Size     int
	Level    qrcode.RecoveryLevel
	FG, BG   color.NRGBA
	Margin   int
	HideLogo bool
	// Logo is the logo query parameter as sent ("" when absent).
	Logo string
	// LogoImage, when set, is drawn size/4 square in the centre with the
	// modules under it cleared; the code is then encoded at level Q at least
	// so it still scans with those modules missing.
	LogoImage image.Image
}

// Query reads one query parameter ("" when absent).
type Query func(key string) string

// Parse validates the query (spec/links.md §9) with upstream's defaults: size 600,
// level L, black on white, margin 2. url must already be URLified and
// checked by the caller (validURL).
func Parse(q Query, validURL func(string) (string, bool)) (*Params, error) {
	p := &Params{Size: 600, Level: qrcode.Low, FG: color.NRGBA{0, 0, 0, 255}, BG: color.NRGBA{255, 255, 255, 255}, Margin: 2}
	raw := q("url")
	if raw == "" {
		return nil, apierr.Validation("invalid_type", "url", "Invalid input: expected string, received undefined")
	}
	u, ok := validURL(raw)
	if !ok {
		return nil, apierr.Validation("custom", "url", "Invalid URL")
	}
	if len(u) > 32000 {
		return nil, apierr.Validation("too_big", "url", "Too big: expected string to have <=32000 characters")
	}
	p.URL = u
	p.Logo = strings.TrimSpace(q("logo"))
	var err error
	if p.Size, err = intParam(q, "size", p.Size, MinSize, MaxSize); err != nil {
		return nil, err
	}
	if p.Margin, err = intParam(q, "margin", p.Margin, 0, MaxMargin); err != nil {
		return nil, err
	}
	switch v := q("level"); v {
	case "", "L":
	case "M":
		p.Level = qrcode.Medium
	case "Q":
		p.Level = qrcode.High
	case "H":
		p.Level = qrcode.Highest
	default:
		return nil, apierr.Validation("invalid_value", "level", `Invalid option: expected one of "L"|"M"|"Q"|"H"`)
	}
	for _, c := range []struct {
		name string
		dst  *color.NRGBA
	}{{"fgColor", &p.FG}, {"bgColor", &p.BG}} {
		if v := q(c.name); v != "" {
			col, ok := parseHex(v)
			if !ok {
				return nil, apierr.Validation("invalid_format", c.name, "Invalid hex color: expected #RGB or #RRGGBB")
			}
			*c.dst = col
		}
	}
	for _, b := range []string{"hideLogo", "includeMargin"} {
		switch v := q(b); v {
		case "", "true", "false":
			if b == "hideLogo" {
				p.HideLogo = v == "true"
			}
		default:
			return nil, apierr.Validation("invalid_value", b, `Invalid option: expected one of "true"|"false"`)
		}
	}
	return p, nil
}

func intParam(q Query, name string, def, min, max int) (int, error) {
	v := q(name)
	if v == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, apierr.Validation("invalid_type", name, "Invalid input: expected number, received NaN")
	}
	if f < float64(min) {
		return 0, apierr.Validation("too_small", name, fmt.Sprintf("Too small: expected number to be >=%d", min))
	}
	if f > float64(max) {
		return 0, apierr.Validation("too_big", name, fmt.Sprintf("Too big: expected number to be <=%d", max))
	}
	return int(f), nil
}

func parseHex(s string) (color.NRGBA, bool) {
	h := strings.TrimPrefix(s, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) == 6 {
		h += "ff"
	}
	if len(h) != 8 {
		return color.NRGBA{}, false
	}
	n, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return color.NRGBA{}, false
	}
	return color.NRGBA{uint8(n >> 24), uint8(n >> 16), uint8(n >> 8), uint8(n)}, true
}

// PNG renders the code as a Size×Size PNG with Margin quiet modules, and
// the logo in the centre when LogoImage is set.
func PNG(p *Params) ([]byte, error) {
	level := p.Level
	if p.LogoImage != nil && level < qrcode.High {
		level = qrcode.High
	}
	code, err := qrcode.New(p.URL, level)
	if err != nil {
		return nil, apierr.Wrap(apierr.Unprocessable, err, "The URL is too long to fit in a QR code.")
	}
	code.DisableBorder = true
	bits := code.Bitmap()
	n := len(bits)
	total := n + 2*p.Margin
	module := func(px int) int { return px*total/p.Size - p.Margin }
	// The logo's box, and the modules it touches (cleared, not drawn).
	var box image.Rectangle
	cleared := func(mx, my int) bool { return false }
	if p.LogoImage != nil {
		side := p.Size / 4
		o := (p.Size - side) / 2
		box = image.Rect(o, o, o+side, o+side)
		lo, hi := module(box.Min.X), module(box.Max.X-1)
		cleared = func(mx, my int) bool { return mx >= lo && mx <= hi && my >= lo && my <= hi }
	}
	img := image.NewPaletted(image.Rect(0, 0, p.Size, p.Size), color.Palette{p.BG, p.FG})
	for y := 0; y < p.Size; y++ {
		my := module(y)
		if my < 0 || my >= n {
			continue
		}
		row := bits[my]
		for x := 0; x < p.Size; x++ {
			mx := module(x)
			if mx >= 0 && mx < n && row[mx] && !cleared(mx, my) {
				img.SetColorIndex(x, y, 1)
			}
		}
	}
	var out image.Image = img
	if p.LogoImage != nil {
		rgba := image.NewNRGBA(img.Bounds())
		draw.Draw(rgba, rgba.Bounds(), img, image.Point{}, draw.Src)
		draw.CatmullRom.Scale(rgba, fit(p.LogoImage.Bounds(), box), p.LogoImage, p.LogoImage.Bounds(), draw.Over, nil)
		out = rgba
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, out); err != nil {
		return nil, fmt.Errorf("encode qr png: %w", err)
	}
	return buf.Bytes(), nil
}

// fit is the largest rectangle of src's aspect ratio centred in box.
func fit(src, box image.Rectangle) image.Rectangle {
	w, h := box.Dx(), box.Dy()
	if sw, sh := src.Dx(), src.Dy(); sw*h > sh*w {
		h = max(1, sh*w/sw)
	} else {
		w = max(1, sw*h/sh)
	}
	x, y := box.Min.X+(box.Dx()-w)/2, box.Min.Y+(box.Dy()-h)/2
	return image.Rect(x, y, x+w, y+h)
}
