package shortlink

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/apierr"
)

// FuzzNormalizeKey: an accepted key is non-empty, has no leading/trailing
// slash, is ASCII after punycode, validates on its own (normalising it again
// is accepted and changes nothing: the "/_" → "_" finding), and its lookup
// form is its lowercase.
func FuzzNormalizeKey(f *testing.F) {
	for _, s := range []string{"abc", "/a/b/", "/_", "_/", "/_root", "/.well-known", "x.php/", "한국어", "😀/x", "_root", "a b", ".well-known", "x.php", "A.B.ü", "a\xd2b", "xn--abc", "Ü" + strings.Repeat("S", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got, err := NormalizeKey(key)
		if err != nil {
			if apierr.As(err).Message != "Invalid key." {
				t.Fatalf("message %q", apierr.As(err).Message)
			}
			return
		}
		if got == "" || strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") {
			t.Fatalf("NormalizeKey(%q) = %q", key, got)
		}
		for _, r := range got {
			if r >= utf8.RuneSelf {
				t.Fatalf("non-ASCII key %q from %q", got, key)
			}
		}
		again, err := NormalizeKey(got)
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", key, got, again, err)
		}
		if lk := LookupKey(got); lk != strings.ToLower(got) {
			t.Fatalf("LookupKey(stored %q) = %q, want its lowercase", got, lk)
		}
	})
}

func BenchmarkNormalizeKey(b *testing.B) {
	key := strings.Repeat("ü", 95) + "/" + strings.Repeat("a", 94)
	for b.Loop() {
		if _, err := NormalizeKey(key); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzLookupKey: the lookup form is idempotent, never empty, without
// surrounding slashes, and lowercase.
func FuzzLookupKey(f *testing.F) {
	for _, s := range []string{"", "/", "abc", "/A/b/", "한국어", "ÜBER.x", "_root", "a\xd2b", "K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		got := LookupKey(key)
		if got == "" || strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") || got != strings.ToLower(got) {
			t.Fatalf("LookupKey(%q) = %q", key, got)
		}
		if again := LookupKey(got); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", key, got, again)
		}
	})
}
