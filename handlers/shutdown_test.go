package handlers_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/testdb"
)

// closeSignal wraps a listener and closes closed when it is closed.
type closeSignal struct {
	net.Listener
	once   sync.Once
	closed chan struct{}
}

func (l *closeSignal) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() { close(l.closed) })
	return err
}

// slowRoute mounts GET /probe/slow on the API face: it reports when it has
// started and answers only when release is closed.
func slowRoute(s *testServer) (started, release chan struct{}) {
	started, release = make(chan struct{}, 1), make(chan struct{})
	s.Face(request.FaceAPI).Get("/probe/slow", func(c *fiber.Ctx) error {
		started <- struct{}{}
		<-release
		return c.SendString("done")
	})
	return started, release
}

// TestGracefulShutdown: on cancel the listeners close at once (new
// connections are refused), the in-flight request still gets its answer,
// and only then the drainers run, in order, with the shutdown deadline.
func TestGracefulShutdown(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ports := freePorts(t, 2)
	s := newServer(t, db, env{vars: map[string]string{
		"RELINK_APP_URL":          "http://localhost:" + ports[0],
		"RELINK_API_URL":          "http://localhost:" + ports[1],
		"RELINK_SHUTDOWN_TIMEOUT": "7s",
	}})
	started, release := slowRoute(s)

	var mu sync.Mutex
	var order []string
	var deadlines []time.Time
	var drained atomic.Bool
	drainer := func(name string, err error) func(context.Context) error {
		return func(ctx context.Context) error {
			drained.Store(true)
			mu.Lock()
			defer mu.Unlock()
			order = append(order, name)
			d, ok := ctx.Deadline()
			if !ok {
				t.Errorf("drainer %s: context without deadline", name)
			}
			deadlines = append(deadlines, d)
			return err
		}
	}
	s.OnShutdown("first", drainer("first", nil))
	s.OnShutdown("webhooks", drainer("webhooks", errors.New("queue stuck")))
	s.OnShutdown("last", drainer("last", nil))

	var wrapped []*closeSignal
	l := s.serveLive(t, func(ln net.Listener) net.Listener {
		w := &closeSignal{Listener: ln, closed: make(chan struct{})}
		wrapped = append(wrapped, w)
		return w
	})
	// Both listeners are serving before shutdown begins.
	for _, p := range ports {
		if r := httpDo(t, &http.Client{}, "GET", "http://127.0.0.1:"+p+"/healthz", "", nil, ""); r.Status != 200 {
			t.Fatalf("healthz on %s: %d", p, r.Status)
		}
	}

	type result struct {
		r   resp
		err error
	}
	got := make(chan result, 1)
	go func() {
		c := &http.Client{Transport: &http.Transport{}}
		res, err := c.Get("http://127.0.0.1:" + ports[1] + "/probe/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		got <- result{r: readResp(t, res)}
	}()
	<-started

	cancelAt := time.Now()
	l.cancel()
	for _, w := range wrapped {
		<-w.closed
	}
	for _, p := range ports {
		if c, err := net.Dial("tcp", "127.0.0.1:"+p); err == nil {
			c.Close()
			t.Fatalf("port %s still accepts connections after shutdown began", p)
		}
	}
	if drained.Load() {
		t.Fatal("drainers ran while a request was in flight")
	}

	close(release)
	res := <-got
	if res.err != nil {
		t.Fatalf("in-flight request failed: %v", res.err)
	}
	if res.r.Status != 200 || string(res.r.Body) != "done" {
		t.Fatalf("in-flight request: %d %s", res.r.Status, res.r.Body)
	}

	err := l.stop(t)
	if err == nil || !strings.Contains(err.Error(), "drain webhooks: queue stuck") {
		t.Fatalf("Serve error = %v, want the failing drainer's error", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(order, ",") != "first,webhooks,last" {
		t.Fatalf("drainers ran as %v", order)
	}
	for i, d := range deadlines {
		if d.Before(cancelAt) || d.After(cancelAt.Add(7*time.Second+time.Second)) {
			t.Fatalf("drainer %d deadline %v is not the 7s shutdown deadline from %v", i, d, cancelAt)
		}
		if i > 0 && !d.Equal(deadlines[0]) {
			t.Fatalf("drainers do not share one deadline: %v", deadlines)
		}
	}
	// Drained lines: the server's own jobs that drain (the click pipeline,
	// the API keys' last use), "first" and "last"; "webhooks" failed.
	var jobs []string
	for _, l := range s.logs.Find(t, "drained") {
		jobs = append(jobs, fmt.Sprint(l["job"]))
	}
	sort.Strings(jobs)
	if len(s.logs.Find(t, "drain failed")) != 1 || strings.Join(jobs, ",") != "api key use,clicks,first,last" {
		t.Fatalf("drained %v; drain log lines: %v", jobs, s.logs.Lines(t))
	}
}

// TestShutdownDeadline: a request that outlives the deadline does not hold
// the process forever; Serve reports it and the drainers still run, with
// time of their own.
func TestShutdownDeadline(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	ports := freePorts(t, 2)
	s := newServer(t, db, env{vars: map[string]string{
		"RELINK_APP_URL":          "http://localhost:" + ports[0],
		"RELINK_API_URL":          "http://localhost:" + ports[1],
		"RELINK_SHUTDOWN_TIMEOUT": "300ms",
	}})
	started, release := slowRoute(s)
	defer close(release)
	var drainerDeadline time.Time
	var hasDeadline bool
	s.OnShutdown("clicks", func(ctx context.Context) error {
		drainerDeadline, hasDeadline = ctx.Deadline()
		return nil
	})
	l := s.serveLive(t, nil)
	go func() {
		c := &http.Client{Transport: &http.Transport{}}
		if res, err := c.Get("http://127.0.0.1:" + ports[1] + "/probe/slow"); err == nil {
			res.Body.Close()
		}
	}()
	<-started
	stopAt := time.Now()
	err := l.stop(t)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Serve error = %v, want the deadline", err)
	}
	// The drainers have a deadline of their own, set when the HTTP deadline
	// has passed: the stuck request does not leave the click flush an
	// expired context. The HTTP deadline ends 300 ms after the stop at the
	// earliest, so the drainers' ends 600 ms after it at the earliest; had
	// they shared the HTTP context it would end 300 ms after the shutdown
	// began. (Whether the context is still live when a drainer runs depends
	// on how long the jobs before it took, which a loaded machine stretches.)
	if !hasDeadline {
		t.Fatal("drainer ran without a deadline")
	}
	if got := drainerDeadline.Sub(stopAt); got < 600*time.Millisecond {
		t.Fatalf("drainer's deadline is %v after the stop, want at least 600ms (the HTTP deadline's 300ms, then 300ms of its own)", got)
	}
}
