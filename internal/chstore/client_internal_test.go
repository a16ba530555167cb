package chstore

import (
	"net/http"
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
