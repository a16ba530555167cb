// Package chtest starts a private clickhouse-server for tests: one per test
// binary, on free ports, in a temporary directory, stopped when the
// package's tests end (Main). Each test gets its own database (URL).
//
// Without the clickhouse-server binary the tests that need it are skipped,
// unless CI=true, where its absence fails them (CI installs Debian's
// clickhouse-server; .ci/run).
package chtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	once    sync.Once
	srv     *server
	srvErr  error
	binPath string
)

type server struct {
	cmd  *exec.Cmd
	dir  string
	http string // 127.0.0.1:port
	done chan struct{}
}

// Binary is the clickhouse-server executable ("" when not installed).
func Binary() string {
	for _, p := range []string{os.Getenv("RELINK_TEST_CLICKHOUSE_BIN"), "/usr/sbin/clickhouse-server", "/usr/bin/clickhouse-server"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("clickhouse-server"); err == nil {
		return p
	}
	if p, err := exec.LookPath("clickhouse"); err == nil {
		return p + " server"
	}
	return ""
}

// Main runs the package's tests and stops the server afterwards:
// func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	if srv != nil {
		srv.stop()
	}
	return code
}

// URL starts the shared server when needed and returns the URL of a new,
// empty database for this test (dropped at the test's end). It skips the
// test when clickhouse-server is not installed, except under CI=true.
func URL(tb testing.TB) string {
	tb.Helper()
	once.Do(func() {
		binPath = Binary()
		if binPath == "" {
			return
		}
		srv, srvErr = start(binPath)
	})
	if binPath == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("clickhouse-server is not installed (CI=true requires it: apt-get install clickhouse-server)")
		}
		tb.Skip("clickhouse-server not installed (apt-get install clickhouse-server)")
	}
	if srvErr != nil {
		tb.Fatalf("start clickhouse-server: %v", srvErr)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	db := "t_" + hex.EncodeToString(b)
	base := "http://" + srv.http
	tb.Cleanup(func() { _ = Exec(base, "DROP DATABASE IF EXISTS "+db) })
	return base + "/" + db
}

// Exec runs one statement against the server at base (http://host:port).
func Exec(base, query string) error {
	resp, err := http.Post(base+"/", "text/plain", strings.NewReader(query))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("clickhouse: HTTP %d", resp.StatusCode)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

const configXML = `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{dir}/server.log</log><errorlog>{dir}/error.log</errorlog></logger>
  <http_port>{http}</http_port>
  <tcp_port>{tcp}</tcp_port>
  <interserver_http_port>{inter}</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>{dir}/data/</path>
  <tmp_path>{dir}/tmp/</tmp_path>
  <user_files_path>{dir}/user_files/</user_files_path>
  <format_schema_path>{dir}/format_schemas/</format_schema_path>
  <mark_cache_size>134217728</mark_cache_size>
  <uncompressed_cache_size>134217728</uncompressed_cache_size>
  <timezone>UTC</timezone>
  <max_concurrent_queries>100</max_concurrent_queries>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
  </users>
  <profiles><default><max_threads>2</max_threads></default></profiles>
  <quotas><default></default></quotas>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
</yandex>
`

func start(bin string) (*server, error) {
	dir, err := os.MkdirTemp("", "relink-clickhouse-")
	if err != nil {
		return nil, err
	}
	var ports [3]int
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return nil, err
		}
	}
	cfg := strings.NewReplacer("{dir}", dir, "{http}", fmt.Sprint(ports[0]), "{tcp}", fmt.Sprint(ports[1]),
		"{inter}", fmt.Sprint(ports[2])).Replace(configXML)
	cfgPath := filepath.Join(dir, "config.xml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	args := strings.Fields(bin)
	args = append(args, "--config-file="+cfgPath)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	s := &server{cmd: cmd, dir: dir, http: fmt.Sprintf("127.0.0.1:%d", ports[0]), done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if err := Exec("http://"+s.http, "SELECT 1"); err == nil {
			return s, nil
		}
		select {
		case <-s.done:
			log, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
			errLog, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("clickhouse-server exited: %s %s", tail(log), tail(errLog))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("clickhouse-server did not answer on %s within 60s", s.http)
		}
	}
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Stop ends the server (SIGTERM, then SIGKILL after 10s) and removes its
// directory.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	_ = os.RemoveAll(s.dir)
}

// Optional is URL for tests that run with or without ClickHouse (the
// analytics property tests add the ClickHouse engine when it is there):
// "" when clickhouse-server is not installed, except under CI=true, where
// its absence fails the test.
func Optional(tb testing.TB) string {
	tb.Helper()
	if Binary() == "" && os.Getenv("CI") != "true" {
		return ""
	}
	return URL(tb)
}
