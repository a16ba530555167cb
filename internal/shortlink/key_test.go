package shortlink

import (
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
)

func TestNormalizeKey(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Hello", "Hello", true},
		{"/a/b/", "a/b", true},
		{"conversion/tracking", "conversion/tracking", true},
		{"한국어", "xn--3e0bk47br7k", true},
		{"😀", "xn--e28h", true},
		{"a.b-c_d", "a.b-c_d", true},
		{"_root", "_root", true},
		{"_hidden", "", false},
		{"has space", "", false},
		{"q?x", "", false},
		{"a#b", "", false},
		{"50%", "", false},
		{"a+b", "", false},
		{"a:b", "", false},
		{".well-known/x", "", false},
		{"index.php", "", false},
		{"x.PHP7", "", false},
		{"///", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := NormalizeKey(tc.in)
			if tc.ok != (err == nil) || got != tc.want {
				t.Fatalf("NormalizeKey(%q) = %q, %v", tc.in, got, err)
			}
			if err != nil && apierr.As(err).Message != "Invalid key." {
				t.Fatalf("message %q", apierr.As(err).Message)
			}
		})
	}
}

func TestCheckReservedKey(t *testing.T) {
	tests := []struct {
		key    string
		shared bool
		code   apierr.Code
	}{
		{"favicon.ico", false, apierr.Forbidden},
		{"Robots.txt", false, apierr.Forbidden},
		{"api", false, ""},
		{"api", true, apierr.Forbidden},
		{"console/x", true, apierr.Forbidden},
		{"Embed", true, apierr.Forbidden},
		{"healthz", true, apierr.Forbidden},
		{"static", true, apierr.Forbidden},
		{"pricing", true, apierr.Conflict},
		{"_root", true, apierr.Conflict},
		{"pricing", false, ""},
		{"my-link", true, ""},
		{"metrics", true, apierr.Forbidden},
		{"deeplink/x", true, apierr.Forbidden},
		{"healthz", false, apierr.Forbidden},
		{"static/app.css", false, apierr.Forbidden},
		{"login", false, ""},
		{"metrics", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			err := CheckReservedKey(tc.key, tc.shared)
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !apierr.Is(err, tc.code) {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
	if msg := apierr.As(CheckReservedKey("favicon.ico", false)).Message; msg != "favicon.ico is a reserved path and cannot be used as a short link." {
		t.Fatal(msg)
	}
}

// TestNormalizeKeyTrimsBeforeValidating: the checks apply to the key as it
// is stored, so a slash cannot smuggle a refused key in.
func TestNormalizeKeyTrimsBeforeValidating(t *testing.T) {
	for _, k := range []string{"/_", "_/", "/_hidden", "/.well-known/x", "x.php/", "//"} {
		if got, err := NormalizeKey(k); err == nil {
			t.Errorf("NormalizeKey(%q) = %q, want Invalid key.", k, got)
		}
	}
	if got, err := NormalizeKey("/_root/"); err != nil || got != "_root" {
		t.Errorf("NormalizeKey(/_root/) = %q, %v", got, err)
	}
}

func TestLookupKey(t *testing.T) {
	for in, want := range map[string]string{
		"": "_root", "/": "_root", "Abc": "abc", "/a/B/": "a/b", "한국어": "xn--3e0bk47br7k", "_root": "_root",
		"conversion/Tracking": "conversion/tracking",
	} {
		if got := LookupKey(in); got != want {
			t.Errorf("LookupKey(%q) = %q, want %q", in, got, want)
		}
	}
}
