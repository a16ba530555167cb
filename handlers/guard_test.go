package handlers_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestOversizedBodyIsAnswered: a client that writes its whole 8 MiB body
// before reading (most do) still reads the 400, instead of a connection
// reset from a socket closed with unread data.
func TestOversizedBodyIsAnswered(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	ports := freePorts(t, 2)
	s := newServer(t, db, env{vars: map[string]string{
		"RELINK_APP_URL": "http://localhost:" + ports[0],
		"RELINK_API_URL": "http://localhost:" + ports[1],
	}})
	s.serveLive(t, nil)
	for i := 0; i < 3; i++ {
		conn, err := net.Dial("tcp", "127.0.0.1:"+ports[1])
		if err != nil {
			t.Fatal(err)
		}
		const size = 8 << 20
		fmt.Fprintf(conn, "POST /links HTTP/1.1\r\nHost: localhost:%s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", ports[1], key, size)
		werr := make(chan error, 1)
		go func() {
			_, err := io.CopyN(conn, zeroReader{}, size)
			werr <- err
		}()
		if err := <-werr; err != nil {
			t.Fatalf("writing the body: %v (the server reset the connection)", err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		b, _ := io.ReadAll(res.Body)
		conn.Close()
		if res.StatusCode != 400 || !strings.Contains(string(b), "Request body is too large: the limit is 1048576 bytes.") {
			t.Fatalf("status %d body %s", res.StatusCode, b)
		}
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestUnsafeDestinations: javascript:, data:, file: and vbscript: targets
// (any case, with the tricks browsers forgive) are refused with spec/links.md's
// 422, as destinations and as the other link URLs.
func TestUnsafeDestinations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ts := newServer(t, db, env{})
		_, key := seed(t, db, "acme", models.PlanPro)
		for _, u := range []string{"javascript:alert(1)", "JavaScript:alert(1)", "java\tscript:alert(1)", "data:text/html,<script>alert(1)</script>",
			"file:///etc/passwd", "vbscript:msgbox(1)", " javascript:alert(1)"} {
			r := ts.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: key, Body: fmt.Sprintf(`{"url":%q}`, u)})
			wantError(t, r, 422, "unprocessable_entity", "")
			r = ts.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: key, Body: fmt.Sprintf(`{"url":"https://example.com","ios":%q}`, u)})
			wantError(t, r, 422, "unprocessable_entity", "")
		}
		if r := ts.do(t, req{Method: "POST", Host: apiHost, Path: "/links", Key: key, Body: `{"url":"myapp://open/x"}`}); r.Status != 200 {
			t.Fatalf("custom scheme refused: %d %s", r.Status, r.Body)
		}
	})
}

// TestMetricsTokenAndHSTS: /metrics needs RELINK_METRICS_TOKEN's bearer
// token (and is 404 outside dev mode without one); HTTPS answers carry HSTS,
// plain-HTTP ones do not.
func TestMetricsTokenAndHSTS(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ts := newServer(t, db, env{vars: map[string]string{"RELINK_METRICS_TOKEN": "s3cret", "RELINK_TRUSTED_PROXIES": "0.0.0.0/0"}})
	if r := ts.do(t, req{Host: appHost, Path: "/metrics"}); r.Status != 401 {
		t.Fatalf("/metrics without a token: %d", r.Status)
	}
	if r := ts.do(t, req{Host: appHost, Path: "/metrics", Header: map[string]string{"Authorization": "Bearer wrong"}}); r.Status != 401 {
		t.Fatalf("/metrics with a wrong token: %d", r.Status)
	}
	r := ts.do(t, req{Host: appHost, Path: "/metrics", Header: map[string]string{"Authorization": "Bearer s3cret"}})
	if r.Status != 200 || !strings.Contains(string(r.Body), "relink_clicks") {
		t.Fatalf("/metrics with the token: %d %.200s", r.Status, r.Body)
	}
	if h := r.Header.Get("Strict-Transport-Security"); h != "" {
		t.Fatalf("HSTS on plain HTTP: %q", h)
	}
	r = ts.do(t, req{Host: apiHost, Path: "/healthz", Header: map[string]string{"X-Forwarded-Proto": "https"}})
	if h := r.Header.Get("Strict-Transport-Security"); h != "max-age=31536000" {
		t.Fatalf("HSTS on HTTPS = %q", h)
	}
	prod := newServer(t, db, env{vars: map[string]string{"RELINK_DEV": "false", "RELINK_TRUSTED_PROXIES": "0.0.0.0/0", "RELINK_SESSION_KEYS": strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32)}})
	if r := prod.do(t, req{Host: appHost, Path: "/metrics", Header: map[string]string{"X-Forwarded-Proto": "https"}}); r.Status != 404 {
		t.Fatalf("/metrics outside dev without a token: %d", r.Status)
	}
}
