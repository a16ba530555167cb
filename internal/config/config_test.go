package config_test

import (
	"encoding/base64"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/config"
)

var (
	hashHex  = strings.Repeat("11", 32)
	blockHex = strings.Repeat("22", 32)
	keys     = hashHex + ":" + blockHex
)

func load(env map[string]string) (*config.Config, error) {
	return config.Load(func(k string) string { return env[k] })
}

func mustLoad(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	c, err := load(env)
	if err != nil {
		t.Fatalf("Load(%v): %v", env, err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	c := mustLoad(t, nil)
	checks := []struct {
		name      string
		got, want any
	}{
		{"database", c.DatabaseURL, "sqlite:relink.db"},
		{"dialect", c.Dialect(), "sqlite"},
		{"app", c.AppURL.String(), "http://localhost:8080"},
		{"api", c.APIURL.String(), "http://localhost:8081"},
		{"short domain", c.ShortDomain, "localhost:8080"},
		{"dev", c.DevMode, true},
		{"redis", c.RedisURL, ""},
		{"tls", c.TLSEnabled(), false},
		{"http addr", c.HTTPAddr, ""},
		{"acme dir", c.ACMEDir, "./certs"},
		{"log format", c.LogFormat, "text"},
		{"log level", c.LogLevel, slog.LevelInfo},
		{"body limit", c.BodyLimit, 1048576},
		{"shutdown", c.ShutdownTimeout, 20 * time.Second},
		{"session keys", len(c.SessionHashKeys) + len(c.SessionBlockKeys), 0},
		{"trusted loopback v4", c.IsTrustedProxy(net.ParseIP("127.0.0.1")), true},
		{"trusted loopback v6", c.IsTrustedProxy(net.ParseIP("::1")), true},
		{"trusted v4-mapped loopback", c.IsTrustedProxy(net.ParseIP("::ffff:127.0.0.1")), true},
		{"untrusted 127.0.0.2", c.IsTrustedProxy(net.ParseIP("127.0.0.2")), false},
		{"untrusted public", c.IsTrustedProxy(net.ParseIP("203.0.113.9")), false},
		{"nil ip", c.IsTrustedProxy(nil), false},
		{"attribution window", c.ClickHouseClickWindow, 90 * 24 * time.Hour},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s = %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestValues(t *testing.T) {
	c := mustLoad(t, map[string]string{
		"RELINK_DATABASE_URL":     "postgres://u@db:5432/relink?sslmode=disable",
		"RELINK_APP_URL":          " https://Relink.Example.com/console?x=1 ",
		"RELINK_API_URL":          "https://api.example.com:8443",
		"RELINK_SHORT_DOMAIN":     "Go.Example.com",
		"RELINK_SESSION_KEYS":     keys,
		"RELINK_TLS_CERT":         "/c.pem",
		"RELINK_TLS_KEY":          "/k.pem",
		"RELINK_TRUSTED_PROXIES":  "10.0.0.0/8, 192.168.1.7 ,",
		"RELINK_LOG_FORMAT":       "json",
		"RELINK_LOG_LEVEL":        "debug",
		"RELINK_BODY_LIMIT":       "2048",
		"RELINK_SHUTDOWN_TIMEOUT": "1m30s",
		"RELINK_REDIS_URL":        "redis://127.0.0.1:6379/2",
	})
	if c.Dialect() != "postgres" || c.DevMode || !c.TLSEnabled() || c.HTTPAddr != ":80" {
		t.Fatalf("dialect %s dev %v tls %v http %q", c.Dialect(), c.DevMode, c.TLSEnabled(), c.HTTPAddr)
	}
	if c.AppURL.String() != "https://relink.example.com" || c.APIURL.Host != "api.example.com:8443" || c.ShortDomain != "go.example.com" {
		t.Fatalf("origins %s %s %s", c.AppURL, c.APIURL, c.ShortDomain)
	}
	if c.LogFormat != "json" || c.LogLevel != slog.LevelDebug || c.BodyLimit != 2048 || c.ShutdownTimeout != 90*time.Second || c.RedisURL != "redis://127.0.0.1:6379/2" {
		t.Fatalf("%+v", c)
	}
	if !c.IsTrustedProxy(net.ParseIP("10.1.2.3")) || !c.IsTrustedProxy(net.ParseIP("192.168.1.7")) ||
		c.IsTrustedProxy(net.ParseIP("192.168.1.8")) || c.IsTrustedProxy(net.ParseIP("127.0.0.1")) {
		t.Fatalf("trusted proxies %v", c.TrustedProxies)
	}
	if config.Port(c.AppURL) != "443" || config.Port(c.APIURL) != "8443" {
		t.Fatalf("ports %s %s", config.Port(c.AppURL), config.Port(c.APIURL))
	}
	if p := config.Port(&url.URL{Scheme: "http", Host: "x"}); p != "80" {
		t.Fatalf("http default port %s", p)
	}
}

// TestAttributionWindow: RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW in days or as a
// Go duration.
func TestAttributionWindow(t *testing.T) {
	for v, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2160h": 90 * 24 * time.Hour, " 365d ": 365 * 24 * time.Hour, "7d": 7 * 24 * time.Hour} {
		if c := mustLoad(t, map[string]string{"RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW": v}); c.ClickHouseClickWindow != want {
			t.Errorf("%q = %s, want %s", v, c.ClickHouseClickWindow, want)
		}
	}
}

func TestDevModeDetection(t *testing.T) {
	cases := []struct {
		name     string
		app, api string
		dev      string // RELINK_DEV
		want     bool
	}{
		{"localhost", "http://localhost:8080", "http://localhost:8081", "", true},
		{"127.0.0.1", "http://127.0.0.1:8080", "http://127.0.0.1:8081", "", true},
		{"ipv6 loopback", "http://[::1]:8080", "http://[::1]:8081", "", true},
		{"*.localhost", "http://app.localhost:8080", "http://api.localhost", "", true},
		{"public app", "https://relink.example.com", "http://localhost:8081", "", false},
		{"public api", "http://localhost:8080", "https://api.example.com", "", false},
		{"localhost look-alike", "http://localhost.example.com", "http://localhost:8081", "", false},
		{"forced off", "http://localhost:8080", "http://localhost:8081", "false", false},
		{"forced on", "https://relink.example.com", "https://api.example.com", "true", true},
		{"forced on, 1", "https://relink.example.com", "https://api.example.com", "1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"RELINK_APP_URL": c.app, "RELINK_API_URL": c.api, "RELINK_DEV": c.dev, "RELINK_SESSION_KEYS": keys}
			if got := mustLoad(t, env).DevMode; got != c.want {
				t.Fatalf("DevMode = %v, want %v", got, c.want)
			}
		})
	}
	t.Run("session keys required outside dev", func(t *testing.T) {
		_, err := load(map[string]string{"RELINK_APP_URL": "https://relink.example.com"})
		if err == nil || !strings.Contains(err.Error(), "RELINK_SESSION_KEYS is required outside dev mode") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestInvalidValues(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string // substring of the error
	}{
		{"database scheme", map[string]string{"RELINK_DATABASE_URL": "mysql://x"}, `RELINK_DATABASE_URL: want sqlite:PATH or postgres://…, got "mysql://x"`},
		{"app without scheme", map[string]string{"RELINK_APP_URL": "localhost:8080"}, `RELINK_APP_URL: want an origin like https://example.com, got "localhost:8080"`},
		{"api ftp", map[string]string{"RELINK_API_URL": "ftp://api.example.com"}, "RELINK_API_URL: want an origin"},
		{"api no host", map[string]string{"RELINK_API_URL": "https://"}, "RELINK_API_URL: want an origin"},
		{"dev not a bool", map[string]string{"RELINK_DEV": "maybe"}, `RELINK_DEV: want true or false, got "maybe"`},
		{"tls cert alone", map[string]string{"RELINK_TLS_CERT": "/c.pem"}, "RELINK_TLS_CERT and RELINK_TLS_KEY must be set together"},
		{"tls key alone", map[string]string{"RELINK_TLS_KEY": "/k.pem"}, "RELINK_TLS_CERT and RELINK_TLS_KEY must be set together"},
		{"proxy", map[string]string{"RELINK_TRUSTED_PROXIES": "10.0.0.0/8,nope"}, `RELINK_TRUSTED_PROXIES: "nope" is not a CIDR or address`},
		{"log format", map[string]string{"RELINK_LOG_FORMAT": "xml"}, `RELINK_LOG_FORMAT: want text or json, got "xml"`},
		{"log level", map[string]string{"RELINK_LOG_LEVEL": "loud"}, "RELINK_LOG_LEVEL:"},
		{"body limit zero", map[string]string{"RELINK_BODY_LIMIT": "0"}, `RELINK_BODY_LIMIT: want a positive number of bytes, got "0"`},
		{"body limit text", map[string]string{"RELINK_BODY_LIMIT": "1MB"}, `RELINK_BODY_LIMIT: want a positive number of bytes, got "1MB"`},
		{"shutdown without unit", map[string]string{"RELINK_SHUTDOWN_TIMEOUT": "20"}, `RELINK_SHUTDOWN_TIMEOUT: want a positive duration like 20s, got "20"`},
		{"shutdown negative", map[string]string{"RELINK_SHUTDOWN_TIMEOUT": "-5s"}, `RELINK_SHUTDOWN_TIMEOUT: want a positive duration like 20s, got "-5s"`},
		{"session keys no colon", map[string]string{"RELINK_SESSION_KEYS": hashHex}, "RELINK_SESSION_KEYS: want HASHKEY:BLOCKKEY pairs"},
		{"session keys not hex/base64", map[string]string{"RELINK_SESSION_KEYS": "zz!:" + blockHex}, "RELINK_SESSION_KEYS: key \"zz!\" is neither hex nor base64"},
		{"short hash key", map[string]string{"RELINK_SESSION_KEYS": strings.Repeat("11", 16) + ":" + blockHex}, "hash key must be at least 32 bytes, got 16"},
		{"odd block key", map[string]string{"RELINK_SESSION_KEYS": hashHex + ":" + strings.Repeat("22", 20)}, "block key must be 16, 24 or 32 bytes, got 20"},
		{"missing _FILE", map[string]string{"RELINK_SESSION_KEYS_FILE": "/nonexistent/relink-keys"}, "RELINK_SESSION_KEYS_FILE: open /nonexistent/relink-keys"},
		{"attribution window too short", map[string]string{"RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW": "6d"}, `RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW: want a duration of at least 7d, like 90d or 2160h, got "6d"`},
		{"attribution window text", map[string]string{"RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW": "ninety"}, `RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW: want a duration`},
		{"attribution window days fraction", map[string]string{"RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW": "1.5d"}, `RELINK_CLICKHOUSE_ATTRIBUTION_WINDOW: want a duration`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := load(c.env)
			if err == nil || cfg != nil {
				t.Fatalf("Load accepted %v", c.env)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
	t.Run("every problem is reported at once", func(t *testing.T) {
		_, err := load(map[string]string{"RELINK_LOG_FORMAT": "xml", "RELINK_BODY_LIMIT": "-1", "RELINK_DATABASE_URL": "x"})
		if err == nil || strings.Count(err.Error(), "\n") != 2 {
			t.Fatalf("want three joined errors, got %v", err)
		}
	})
}

func TestFileVariants(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keysFile := write("keys", keys+"\n")
	dbFile := write("db", "postgres://relink:s3cret@db/relink\n")
	c := mustLoad(t, map[string]string{
		"RELINK_APP_URL":           "https://relink.example.com",
		"RELINK_SESSION_KEYS_FILE": keysFile,
		"RELINK_DATABASE_URL_FILE": dbFile,
	})
	if len(c.SessionHashKeys) != 1 || c.DatabaseURL != "postgres://relink:s3cret@db/relink" {
		t.Fatalf("from files: %d keys, db %q", len(c.SessionHashKeys), c.DatabaseURL)
	}
	// The plain variable wins over _FILE.
	c = mustLoad(t, map[string]string{"RELINK_DATABASE_URL": "sqlite:x.db", "RELINK_DATABASE_URL_FILE": dbFile})
	if c.DatabaseURL != "sqlite:x.db" {
		t.Fatalf("database %q", c.DatabaseURL)
	}
}

func TestSessionKeys(t *testing.T) {
	b64 := func(b byte, n int) string {
		return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string([]byte{b}), n)))
	}
	c := mustLoad(t, map[string]string{
		// Newest first; hex, then standard base64 with a 16-byte block key,
		// then raw URL base64 with a 24-byte block key.
		"RELINK_SESSION_KEYS": keys + ", " + b64('a', 64) + ":" + b64('b', 16) + "," +
			base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("c", 40))) + ":" + base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat("d", 24))),
	})
	if len(c.SessionHashKeys) != 3 || len(c.SessionBlockKeys) != 3 {
		t.Fatalf("%d hash keys, %d block keys", len(c.SessionHashKeys), len(c.SessionBlockKeys))
	}
	wantLens := [][2]int{{32, 32}, {64, 16}, {40, 24}}
	for i, w := range wantLens {
		if len(c.SessionHashKeys[i]) != w[0] || len(c.SessionBlockKeys[i]) != w[1] {
			t.Errorf("pair %d: %d/%d bytes, want %d/%d", i, len(c.SessionHashKeys[i]), len(c.SessionBlockKeys[i]), w[0], w[1])
		}
	}
	if c.SessionHashKeys[0][0] != 0x11 || c.SessionBlockKeys[0][0] != 0x22 || c.SessionHashKeys[1][0] != 'a' {
		t.Fatal("keys decoded in the wrong order or encoding")
	}
}

func TestVarsAreDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range config.Vars {
		if !strings.HasPrefix(v.Name, "RELINK_") || v.Doc == "" || v.Default == "" || seen[v.Name] {
			t.Errorf("bad Vars entry %+v", v)
		}
		seen[v.Name] = true
	}
}

// TestDeploymentSettings: the reverse-proxy listener, the on-demand TLS
// token and domain verification's settings.
func TestDeploymentSettings(t *testing.T) {
	load := func(env map[string]string) (*config.Config, error) {
		return config.Load(func(k string) string { return env[k] })
	}
	c, err := load(map[string]string{"RELINK_LISTEN_ADDR": "127.0.0.1:8080", "RELINK_DNS_RESOLVER": "192.0.2.53",
		"RELINK_DOMAIN_ADDRESSES": "192.0.2.10, ::ffff:192.0.2.11,2001:db8::1", "RELINK_TLS_ASK_TOKEN": "tok"})
	if err != nil {
		t.Fatal(err)
	}
	if c.ListenAddr != "127.0.0.1:8080" || c.DNSResolver != "192.0.2.53:53" || c.TLSAskToken != "tok" || c.DomainTarget != "localhost" {
		t.Errorf("%q %q %q %q", c.ListenAddr, c.DNSResolver, c.TLSAskToken, c.DomainTarget)
	}
	if len(c.DomainAddresses) != 3 || c.DomainAddresses[1].String() != "192.0.2.11" {
		t.Errorf("addresses %v", c.DomainAddresses)
	}
	for _, env := range []map[string]string{
		{"RELINK_LISTEN_ADDR": "8080"},
		{"RELINK_LISTEN_ADDR": "127.0.0.1:8080", "RELINK_ACME_EMAIL": "ops@example.com"},
		{"RELINK_DOMAIN_ADDRESSES": "192.0.2.10,example.com"},
	} {
		if _, err := load(env); err == nil {
			t.Errorf("%v: accepted", env)
		}
	}
}
