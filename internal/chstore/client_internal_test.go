package chstore

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The client never reuses a connection idle for as long as ClickHouse
// keeps one open (keep_alive_timeout, 3 s on 18.16): reusing one the server
// has just closed loses the query to an EOF, as a loaded runner showed.
func TestIdleConnectionsExpireBeforeTheServers(t *testing.T) {
	c, err := Open("http://127.0.0.1:8123/relink")
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := c.http.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T", c.http.Transport)
	}
	if tr.IdleConnTimeout <= 0 || tr.IdleConnTimeout >= 3*time.Second {
		t.Fatalf("IdleConnTimeout %s, want below ClickHouse's 3 s keep-alive", tr.IdleConnTimeout)
	}
	if tr.Proxy == nil || tr.DialContext == nil {
		t.Fatal("transport lost the default transport's settings")
	}
}

// FuzzTSVRoundTrip: appendTSV's field reads back as the value through
// unescapeTSV, holds no raw tab or newline, and is the value itself when
// the value has nothing to escape.
func FuzzTSVRoundTrip(f *testing.F) {
	for _, s := range []string{"", "plain", "tab\there", "a\\b", "nl\nx\r", "\x00\b\f", "ünïcode\t\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		field := string(appendTSV([]byte("x"), s))[1:]
		if strings.ContainsAny(field, "\t\n") {
			t.Fatalf("appendTSV(%q) = %q holds a separator", s, field)
		}
		if got := unescapeTSV(field); got != s {
			t.Fatalf("unescapeTSV(appendTSV(%q)) = %q (field %q)", s, got, field)
		}
		if !strings.ContainsAny(s, "\\\t\n\r\x00\b\f") && field != s {
			t.Fatalf("appendTSV(%q) = %q, want it unchanged", s, field)
		}
	})
}
