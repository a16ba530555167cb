// Package chtest starts private ClickHouse servers for tests: one of each
// kind per test binary, on free ports, in temporary directories, stopped
// when the package's tests end (Main). Each test gets its own database (URL).
//
// Two kinds (docs/clickhouse.md, "Versions tested"):
//
//   - "clickhouse-18.16": Debian's clickhouse-server (18.16.1 on Debian 12),
//     the oldest server Relink runs on;
//   - "chdb-26": a current ClickHouse (26.x) through chDB, the engine as a
//     library (libchdb.so from the npm package @chdb/lib-linux-x64-gnu,
//     tests/chdb), served over ClickHouse's HTTP interface by chdbserver, so
//     Relink talks to it exactly as to a server.
//
// Without a kind's binary or library the tests that need it are skipped,
// unless CI=true, where its absence fails them (CI installs both; .ci/run).
package chtest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/freeport"
)

// The kinds of server (Server.Name).
const (
	ClickHouse = "clickhouse-18.16"
	ChDB       = "chdb-26"
)

// Kinds are the servers every ClickHouse test runs against, oldest first;
// RELINK_TEST_CLICKHOUSE_KINDS (comma-separated) narrows them, e.g. to run
// one kind while working on it.
var Kinds = selectKinds(os.Getenv("RELINK_TEST_CLICKHOUSE_KINDS"))

func selectKinds(env string) []string {
	all := []string{ClickHouse, ChDB}
	if env == "" {
		return all
	}
	var out []string
	for _, k := range all {
		if strings.Contains(","+env+",", ","+k+",") {
			out = append(out, k)
		}
	}
	return out
}

type kind struct {
	once  sync.Once
	avail string // why not available ("" when it is)
	srv   *server
	err   error
}

var kinds = map[string]*kind{ClickHouse: {}, ChDB: {}}

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

// ChDBLibrary is libchdb.so: RELINK_TEST_CHDB_LIB, else tests/chdb's
// node_modules in the repository above the working directory ("" when not
// installed).
func ChDBLibrary() string {
	if p := os.Getenv("RELINK_TEST_CHDB_LIB"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "tests", "chdb", "node_modules", "@chdb", "lib-linux-x64-gnu", "libchdb.so")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Main runs the package's tests and stops the servers afterwards:
// func TestMain(m *testing.M) { os.Exit(chtest.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	for _, k := range kinds {
		if k.srv != nil {
			k.srv.stop()
		}
	}
	return code
}

// URL is ServerURL of the Debian clickhouse-server (18.16).
func URL(tb testing.TB) string {
	tb.Helper()
	return ServerURL(tb, ClickHouse)
}

// ServerURL starts the server of that kind when needed and returns the URL
// of a new, empty database for this test (dropped at the test's end). It
// skips the test when the kind is not installed, except under CI=true.
func ServerURL(tb testing.TB, name string) string {
	tb.Helper()
	k := kinds[name]
	k.once.Do(func() {
		switch name {
		case ClickHouse:
			if bin := Binary(); bin == "" {
				k.avail = "clickhouse-server is not installed (apt-get install clickhouse-server)"
			} else {
				k.srv, k.err = start(bin)
			}
		case ChDB:
			if lib := ChDBLibrary(); lib == "" {
				k.avail = "libchdb.so is not installed (cd tests/chdb && npm ci)"
			} else {
				k.srv, k.err = startChDB(lib)
			}
		}
	})
	if k.avail != "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal(k.avail + " (CI=true requires it)")
		}
		tb.Skip(k.avail)
	}
	if k.err != nil {
		tb.Fatalf("start %s: %v", name, k.err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	db := "t_" + hex.EncodeToString(b)
	base := "http://" + k.srv.http
	tb.Cleanup(func() { _ = Exec(base, "DROP DATABASE IF EXISTS "+db) })
	return base + "/" + db
}

// Each runs f as a subtest per kind of server (Kinds), with a new database
// on it.
func Each(t *testing.T, f func(t *testing.T, url string)) {
	t.Helper()
	for _, name := range Kinds {
		t.Run(name, func(t *testing.T) { f(t, ServerURL(t, name)) })
	}
}

// Available reports whether a kind can run here: installed, or CI=true
// (where ServerURL fails the test when it is not).
func Available(name string) bool {
	if os.Getenv("CI") == "true" {
		return true
	}
	if name == ClickHouse {
		return Binary() != ""
	}
	return ChDBLibrary() != ""
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
	// Ports for the server to bind (internal/freeport: below the ephemeral
	// range, which outgoing connections use; three different ones).
	ports, err := freeport.Pick(3)
	if err != nil {
		return nil, err
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

// Optional is ServerURL for tests that run with or without ClickHouse (the
// analytics property tests add a ClickHouse engine per kind that is there):
// "" when the kind is not installed, except under CI=true, where its
// absence fails the test.
func Optional(tb testing.TB, name string) string {
	tb.Helper()
	if !Available(name) {
		return ""
	}
	return ServerURL(tb, name)
}

// startChDB builds chdbserver (the go command's cache makes this quick
// after the first time) and starts it on libchdb.so with a data directory
// of its own.
func startChDB(lib string) (*server, error) {
	dir, err := os.MkdirTemp("", "relink-chdb-")
	if err != nil {
		return nil, err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	bin := filepath.Join(dir, "chdbserver")
	build := exec.Command(goBin, "build", "-o", bin, "github.com/relinkhq/relink/internal/chstore/chtest/chdbserver")
	if out, err := build.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("build chdbserver: %w: %s", err, out)
	}
	cmd := exec.Command(bin, "-data", filepath.Join(dir, "data"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHDB_LIB_PATH="+lib)
	logf, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	s := &server{cmd: cmd, dir: dir, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				addr <- a
			}
		}
		close(addr)
	}()
	go func() { _ = cmd.Wait(); close(s.done) }()
	select {
	case a, ok := <-addr:
		if ok {
			s.http = a
			return s, nil
		}
	case <-time.After(60 * time.Second):
	}
	log, _ := os.ReadFile(filepath.Join(dir, "stderr.log"))
	s.stop()
	return nil, fmt.Errorf("chdbserver did not start: %s", tail(log))
}
