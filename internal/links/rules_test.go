package links

import (
	"strings"
	"testing"
)

func TestURLify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com", "https://example.com"},
		{"https://example.com/a?b=c", "https://example.com/a?b=c"},
		{"google.com", "https://google.com/"},
		{"google.com/path?q=1", "https://google.com/path?q=1"},
		{"mailto:a@b.com", "mailto:a@b.com"},
		{"myapp://open/x", "myapp://open/x"},
		{"no dot", "no dot"},
		{"nodot", "nodot"},
		{"", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := URLify(tc.in); got != tc.want {
				t.Fatalf("URLify(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestValidURL(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"https://example.com", true},
		{"http://localhost:3000/x", true},
		{"https://例え.jp/", true},
		{"tel:+123", true},
		{"myapp://x", true},
		{"https://", false},
		{"https://exa mple.com", false},
		{"example.com", false},
		{"ftp", false},
		{"https://-bad-.com", false},
		{"javascript", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := ValidURL(tc.in); got != tc.want {
				t.Fatalf("ValidURL(%q) = %v", tc.in, got)
			}
		})
	}
}

func TestRandomKey(t *testing.T) {
	if k := RandomKey(0, ""); len(k) != 7 || strings.Trim(k, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") != "" {
		t.Fatalf("default key %q", k)
	}
	if k := RandomKey(10, "/test/"); !strings.HasPrefix(k, "test/") || len(k) != 15 {
		t.Fatalf("prefixed key %q", k)
	}
	seen := map[string]bool{}
	for range 1000 {
		seen[RandomKey(7, "")] = true
	}
	if len(seen) != 1000 {
		t.Fatalf("%d distinct keys of 1000", len(seen))
	}
}

func TestApplyUTM(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name, dest string
		keys       []string
		vals       map[string]*string
		want       string
	}{
		{"adds with slash", "https://example.com", []string{"utm_source", "utm_medium"}, map[string]*string{"utm_source": s("test_source"), "utm_medium": s("email")}, "https://example.com/?utm_source=test_source&utm_medium=email"},
		{"replaces in place", "https://example.com/?utm_source=x&a=1&utm_source=y", []string{"utm_source"}, map[string]*string{"utm_source": s("new")}, "https://example.com/?utm_source=new&a=1"},
		{"deletes on empty", "https://example.com/?utm_campaign=c&b=2", []string{"utm_campaign"}, map[string]*string{"utm_campaign": s("")}, "https://example.com/?b=2"},
		{"deletes on null, last param", "https://example.com/p?utm_term=t", []string{"utm_term"}, map[string]*string{"utm_term": nil}, "https://example.com/p"},
		{"first plus becomes space", "https://e.com/", []string{"utm_source"}, map[string]*string{"utm_source": s("a+b+c")}, "https://e.com/?utm_source=a+b%2Bc"},
		{"form encoding", "https://e.com/", []string{"ref"}, map[string]*string{"ref": s("x y&z=é")}, "https://e.com/?ref=x+y%26z%3D%C3%A9"},
		{"keeps fragment", "https://e.com/a#frag", []string{"utm_source"}, map[string]*string{"utm_source": s("s")}, "https://e.com/a?utm_source=s#frag"},
		{"no keys: verbatim", "https://e.com/?a=%2B", nil, nil, "https://e.com/?a=%2B"},
		{"invalid url untouched", "not a url", []string{"utm_source"}, map[string]*string{"utm_source": s("s")}, "not a url"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ApplyUTM(tc.dest, tc.keys, tc.vals); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	u := UTMFromURL("https://e.com/?utm_source=a+b&utm_medium=&utm_campaign=c%20d#x")
	if *u["utm_source"] != "a b" || u["utm_medium"] != nil || *u["utm_campaign"] != "c d" || len(u) != 2 {
		t.Fatalf("UTMFromURL: %v", u)
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]string{
		"2030-04-16T17:00:00.000Z":  "2030-04-16T17:00:00Z",
		"2030-04-16T17:00:00Z":      "2030-04-16T17:00:00Z",
		"2030-04-16T19:00:00+02:00": "2030-04-16T17:00:00Z",
		"2030-04-16T17:00:00":       "2030-04-16T17:00:00Z",
		"2030-04-16":                "2030-04-16T00:00:00Z",
	} {
		got, ok := ParseTime(in)
		if !ok || got.Format("2006-01-02T15:04:05Z07:00") != want {
			t.Errorf("ParseTime(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	for _, bad := range []string{"tomorrow", "16/04/2030", "2030-13-01"} {
		if _, ok := ParseTime(bad); ok {
			t.Errorf("ParseTime(%q) accepted", bad)
		}
	}
}
