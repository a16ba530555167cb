// Command chdbserver is test code: it serves the part of ClickHouse's HTTP
// interface Relink uses (docs/clickhouse.md, "Client") over one chDB session
// (the ClickHouse engine as a library, libchdb.so from the npm package
// @chdb/lib-linux-x64-gnu, loaded by github.com/chdb-io/chdb-go), so the
// ClickHouse store's tests run against a current ClickHouse release while
// Relink keeps talking HTTP. internal/chstore/chtest builds and starts it.
//
//	CHDB_LIB_PATH=/path/libchdb.so chdbserver -data DIR
//
// (chdb-go loads the library CHDB_LIB_PATH names when its package is
// initialized, before main runs.)
//
// It listens on a free 127.0.0.1 port and prints "listening HOST:PORT" on
// stdout. A request is a POST whose body is the statement (INSERT data
// inline after FORMAT); the URL parameters are the HTTP interface's:
// database (the session's current database for this statement), query_id
// (ignored) and settings (applied with SET before the statement). An answer
// is TabSeparated unless the statement names a FORMAT; an exception is an
// HTTP 500 (404 for an unknown database or table) whose body is
// ClickHouse's message, as the server answers.
//
// chDB runs one session per process, so statements run one at a time.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/chdb-io/chdb-go/chdb"
)

func main() {
	data := flag.String("data", "", "the session's data directory")
	flag.Parse()
	if *data == "" {
		log.Fatal("chdbserver: -data is required")
	}
	sess, err := chdb.NewSession(*data)
	if err != nil {
		log.Fatalf("chdbserver: open session in %s: %v", *data, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, &handler{sess: sess}))
}

type handler struct {
	mu   sync.Mutex
	sess *chdb.Session
}

// run executes one statement and returns its answer.
func (h *handler) run(q string) (string, error) {
	res, err := h.sess.Query(q, "TabSeparated")
	if err != nil {
		return "", err
	}
	defer res.Free()
	if err := res.Error(); err != nil {
		return "", err
	}
	return string(res.Buf()), nil
}

// notSettings are the HTTP interface's parameters that are not settings.
var notSettings = map[string]bool{"database": true, "query_id": true, "query": true, "default_format": true, "user": true, "password": true}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	params := r.URL.Query()
	query := string(body)
	if q := params.Get("query"); q != "" {
		query = q + "\n" + query
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var pre, post []string
	if db := params.Get("database"); db != "" {
		pre = append(pre, "USE "+db)
	} else {
		pre = append(pre, "USE default")
	}
	// A server applies the URL's settings to this statement only; the
	// session's SET lasts, so they are reset afterwards.
	for k, vs := range params {
		if !notSettings[k] && validName(k) {
			pre = append(pre, "SET "+k+" = "+quote(vs[0]))
			post = append(post, "SET "+k+" = DEFAULT")
		}
	}
	defer func() {
		for _, p := range post {
			_, _ = h.run(p)
		}
	}()
	for _, p := range pre {
		if _, err := h.run(p); err != nil {
			fail(w, err)
			return
		}
	}
	out, err := h.run(query)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/tab-separated-values; charset=UTF-8")
	_, _ = io.WriteString(w, out)
}

func fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if msg := err.Error(); strings.Contains(msg, "(UNKNOWN_DATABASE)") || strings.Contains(msg, "(UNKNOWN_TABLE)") {
		status = http.StatusNotFound
	}
	w.Header().Set("X-ClickHouse-Exception-Code", "1")
	http.Error(w, err.Error(), status)
}

func validName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
