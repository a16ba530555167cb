package logline

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"
)

// slogLine is the line slog's own handler writes for r.
func slogLine(t testing.TB, json bool, level slog.Level, at time.Time, r *Request) string {
	var buf bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&buf, nil)
	if json {
		h = slog.NewJSONHandler(&buf, nil)
	}
	rec := slog.NewRecord(at, level, Msg, 0)
	rec.AddAttrs(r.Attrs()...)
	if err := h.Handle(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func ourLine(t testing.TB, json bool, level slog.Level, at time.Time, r *Request) string {
	var buf bytes.Buffer
	if err := New(&buf, json, nil).Request(context.Background(), level, at, r); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestRequestMatchesSlog: the request line is byte for byte what slog's
// text and JSON handlers write for the same record, for plain values
// (written here) and for values slog quotes or escapes (handed to slog),
// at times with and without sub-millisecond parts, in other zones, and at
// both levels the server uses.
func TestRequestMatchesSlog(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	cases := []struct {
		name string
		at   time.Time
		r    Request
	}{
		{"redirect", time.Date(2026, 11, 28, 22, 13, 40, 155_123_456, time.UTC),
			Request{"wgGn4T0xr3pncWiv", "GET", "go.acme.test", "/spring", "short", 302, 3393328 * time.Nanosecond, "fd00:1::8:0:0:1"}},
		{"whole second, other zone", time.Date(2026, 1, 2, 3, 4, 5, 0, berlin),
			Request{"a", "POST", "api.acme.test:8443", "/links/bulk", "api", 500, 1500 * time.Microsecond, "10.0.0.1"}},
		{"ms edge", time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.UTC),
			Request{"b", "GET", "h", "/", "app", 200, 0, "::1"}},
		{"space in path", time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC),
			Request{"c", "GET", "h", "/a b", "short", 404, time.Second, "1.2.3.4"}},
		{"quote and equals", time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC),
			Request{"c", "GET", `h"x`, "/a=b", "short", 404, time.Second, "1.2.3.4"}},
		{"html and unicode", time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC),
			Request{"c", "GET", "h", "/<b>&é", "short", 404, time.Minute, "1.2.3.4"}},
		{"control and backslash", time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC),
			Request{"c", "GET", "h", "/a\\b\x01\n", "short", 404, time.Minute, ""}},
		{"empty face", time.Date(2026, 1, 2, 3, 4, 5, 1, time.UTC),
			Request{"c", "GET", "h", "/", "", 400, 7, "1.2.3.4"}},
	}
	for _, c := range cases {
		for _, json := range []bool{false, true} {
			for _, level := range []slog.Level{slog.LevelInfo, slog.LevelError} {
				want := slogLine(t, json, level, c.at, &c.r)
				if got := ourLine(t, json, level, c.at, &c.r); got != want {
					t.Errorf("%s (json %v, %v):\n got %q\nwant %q", c.name, json, level, got, want)
				}
			}
		}
	}
}

// TestRequestRandom compares random lines over the printable ASCII range
// and a few others with slog's.
func TestRequestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcXYZ019-._~:/?#[]@!$'()*+,;% =\"\\<>&\x7f\x00é")
	str := func() string {
		b := make([]byte, rng.IntN(6))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 5000 {
		r := Request{str(), str(), str(), str(), str(), rng.IntN(600), time.Duration(rng.Int64N(int64(time.Hour))), str()}
		at := time.Unix(rng.Int64N(4e9), rng.Int64N(1e9))
		for _, json := range []bool{false, true} {
			if got, want := ourLine(t, json, slog.LevelInfo, at, &r), slogLine(t, json, slog.LevelInfo, at, &r); got != want {
				t.Fatalf("%+v (json %v):\n got %q\nwant %q", r, json, got, want)
			}
		}
	}
}

// TestRequestLevel: below the handler's level nothing is written.
func TestRequestLevel(t *testing.T) {
	var buf bytes.Buffer
	h := New(&buf, false, slog.LevelWarn)
	r := Request{"a", "GET", "h", "/", "short", 302, 1, "1.2.3.4"}
	if err := h.Request(context.Background(), slog.LevelInfo, time.Now(), &r); err != nil || buf.Len() != 0 {
		t.Fatalf("info line at warn level: %q, %v", buf.String(), err)
	}
	if err := h.Request(context.Background(), slog.LevelError, time.Now(), &r); err != nil || !bytes.Contains(buf.Bytes(), []byte("level=ERROR msg=request")) {
		t.Fatalf("error line: %q, %v", buf.String(), err)
	}
}

// FuzzRequest holds the line to slog's for any values.
func FuzzRequest(f *testing.F) {
	f.Add("id", "GET", "h", "/p", "short", "1.2.3.4", int64(1e9), 302, int64(155e6))
	f.Fuzz(func(t *testing.T, id, method, host, path, face, ip string, unix int64, status int, took int64) {
		r := Request{id, method, host, path, face, status, time.Duration(took), ip}
		at := time.Unix(unix%(1<<34), 0)
		for _, json := range []bool{false, true} {
			if got, want := ourLine(t, json, slog.LevelInfo, at, &r), slogLine(t, json, slog.LevelInfo, at, &r); got != want {
				t.Fatalf("json %v:\n got %q\nwant %q", json, got, want)
			}
		}
	})
}

// BenchmarkRequest compares the request line written here with
// slog.LogAttrs through the same handler.
func BenchmarkRequest(b *testing.B) {
	r := Request{"wgGn4T0xr3pncWiv", "GET", "127.0.0.1:9082", "/bench", "short", 302, 3393328, "fd00:1::8:0:0:1"}
	for _, json := range []bool{false, true} {
		h := New(io.Discard, json, nil)
		name := map[bool]string{false: "text", true: "json"}[json]
		b.Run(name+"/logline", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_ = h.Request(context.Background(), slog.LevelInfo, time.Now(), &r)
			}
		})
		b.Run(name+"/slog", func(b *testing.B) {
			b.ReportAllocs()
			l := slog.New(h)
			for range b.N {
				l.LogAttrs(context.Background(), slog.LevelInfo, Msg, r.Attrs()...)
			}
		})
	}
}
