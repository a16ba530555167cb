package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestHostRouting drives the default configuration in memory: the Host
// header picks the face, and /api on the app host is the API.
func TestHostRouting(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ws, key := seed(t, db, "acme", models.PlanPro)
		s := newServer(t, db, env{
			vars:    map[string]string{"RELINK_SHORT_DOMAIN": "acme.link"},
			domains: []string{"go.example.com"},
		})
		cases := []struct {
			name, host, path string
			face             string // reported by /healthz
		}{
			{"api host", apiHost, "/healthz", "api"},
			{"app host", appHost, "/healthz", "app"},
			{"api under /api on app host", appHost, "/api/healthz", "api"},
			{"host is case-insensitive", "LocalHost:8081", "/healthz", "api"},
			{"default short domain", "acme.link", "/healthz", "short"},
			{"default short domain with :80", "acme.link:80", "/healthz", "short"},
			{"registered short domain", "go.example.com", "/healthz", "short"},
			// In memory the arrival port is unknown (0): the app face.
			{"unknown host", "example.org", "/healthz", "app"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := s.do(t, req{Host: c.host, Path: c.path})
				if r.Status != http.StatusOK {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				m := jsonOf(t, r)
				if m["status"] != "ok" || m["face"] != c.face {
					t.Fatalf("healthz = %v, want face %q", m, c.face)
				}
			})
		}

		t.Run("api at the root of the api host and under /api on the app host", func(t *testing.T) {
			for _, hp := range [][2]string{{apiHost, "/workspaces/acme"}, {appHost, "/api/workspaces/acme"}, {apiHost, "/workspaces/" + ws.PublicID()}} {
				r := s.do(t, req{Host: hp[0], Path: hp[1], Key: key})
				if r.Status != http.StatusOK {
					t.Fatalf("%s%s: %d %s", hp[0], hp[1], r.Status, r.Body)
				}
				m := jsonOf(t, r)
				if m["id"] != ws.PublicID() || m["slug"] != "acme" || m["plan"] != "pro" {
					t.Fatalf("%s%s: %v", hp[0], hp[1], m)
				}
			}
		})
		t.Run("api paths are not served at the root of the app host", func(t *testing.T) {
			for _, p := range []string{"/workspaces/acme", "/apix/workspaces/acme"} {
				r := s.do(t, req{Host: appHost, Path: p, Key: key})
				if r.Status != http.StatusNotFound || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
					t.Fatalf("%s on the app host: %d %s %s", p, r.Status, r.Header.Get("Content-Type"), r.Body)
				}
			}
		})
		t.Run("unknown api route is a JSON 404", func(t *testing.T) {
			for _, hp := range [][3]string{
				{"GET", apiHost, "/nope"},
				{"GET", appHost, "/api/nope"},
				{"GET", appHost, "/api"},
				{"GET", apiHost, "/"},
				{"PUT", apiHost, "/workspaces/acme"}, // known path, unknown method
			} {
				r := s.do(t, req{Method: hp[0], Host: hp[1], Path: hp[2], Key: key})
				wantError(t, r, 404, "not_found", "The requested endpoint does not exist.")
			}
		})
		t.Run("unknown api route still needs a key", func(t *testing.T) {
			r := s.do(t, req{Host: apiHost, Path: "/links"})
			wantError(t, r, 401, "unauthorized", "Missing Authorization header.")
			r = s.do(t, req{Host: appHost, Path: "/api/links", Key: "dub_nosuchkeynosuchkeynosuch"})
			wantError(t, r, 401, "unauthorized", "Unauthorized: Invalid API key.")
		})
	})
}

// TestArrivalPortRouting serves real sockets: a Host that matches no origin
// is served by the face of the port the request arrived on, and /healthz
// answers on every port.
func TestArrivalPortRouting(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	_, key := seed(t, db, "acme", models.PlanPro)
	ports := freePorts(t, 2)
	appPort, apiPort := ports[0], ports[1]
	s := newServer(t, db, env{vars: map[string]string{
		"RELINK_APP_URL": "http://localhost:" + appPort,
		"RELINK_API_URL": "http://localhost:" + apiPort,
	}})
	s.serveLive(t, nil)
	c := &http.Client{}
	cases := []struct {
		name, port, host, face string
	}{
		{"app port, ip host", appPort, "127.0.0.1:" + appPort, "app"},
		{"api port, ip host", apiPort, "127.0.0.1:" + apiPort, "api"},
		{"api port, foreign host", apiPort, "unknown.example", "api"},
		{"app port, foreign host", appPort, "unknown.example", "app"},
		{"a known host wins over the port", apiPort, "localhost:" + appPort, "app"},
		{"a known host wins over the port (api)", appPort, "localhost:" + apiPort, "api"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httpDo(t, c, "GET", "http://127.0.0.1:"+tc.port+"/healthz", tc.host, nil, "")
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			if m := jsonOf(t, r); m["face"] != tc.face {
				t.Fatalf("face = %v, want %s", m["face"], tc.face)
			}
		})
	}
	t.Run("the api answers on its port under an IP host", func(t *testing.T) {
		r := httpDo(t, c, "GET", "http://127.0.0.1:"+apiPort+"/workspaces/acme", "", map[string]string{"Authorization": "Bearer " + key}, "")
		if r.Status != 200 || jsonOf(t, r)["slug"] != "acme" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		r = httpDo(t, c, "GET", "http://127.0.0.1:"+apiPort+"/links", "", nil, "")
		wantError(t, r, 401, "unauthorized", "Missing Authorization header.")
	})
}

// TestListenersPlan: one listener per distinct port the origins name.
func TestListenersPlan(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	cases := []struct {
		name string
		vars map[string]string
		want string // addresses, space-separated; none has TLS here
	}{
		{"defaults", nil, ":8080 :8081"},
		{"app and api share a port", map[string]string{"RELINK_APP_URL": "http://localhost:9000", "RELINK_API_URL": "http://127.0.0.1:9000"}, ":9000"},
		{"dev short domain on its own port", map[string]string{"RELINK_SHORT_DOMAIN": "localhost:9002"}, ":8080 :8081 :9002"},
		{"https origins without certificates (TLS ends at a proxy)", map[string]string{
			"RELINK_APP_URL": "https://relink.example.com", "RELINK_API_URL": "https://api.example.com", "RELINK_SESSION_KEYS": sessionKeys,
		}, ":443"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := newServer(t, db, env{vars: c.vars}).Listeners()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range plan {
				if l.TLS != nil {
					t.Fatalf("%s has TLS without certificates", l.Addr)
				}
				got = append(got, l.Addr)
			}
			if strings.Join(got, " ") != c.want {
				t.Fatalf("listeners %v, want %s", got, c.want)
			}
		})
	}
	t.Run("unreadable certificate", func(t *testing.T) {
		s := newServer(t, db, env{vars: map[string]string{"RELINK_TLS_CERT": "/nonexistent/cert.pem", "RELINK_TLS_KEY": "/nonexistent/key.pem"}})
		if _, err := s.Listeners(); err == nil || !strings.Contains(err.Error(), "load TLS certificate") {
			t.Fatalf("err = %v", err)
		}
	})
}
