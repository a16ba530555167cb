package handlers

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/relinkhq/relink/internal/config"
)

// Listener is one address to serve, with TLS when tls is set.
type Listener struct {
	Addr string
	TLS  *tls.Config
}

// Listeners plans the sockets from the configuration: one per distinct port
// the origins name (TLS on https origins when certificates are configured),
// plus the plain-HTTP listener next to TLS.
func (s *Server) Listeners() ([]Listener, error) {
	cfg := s.svc.Config
	if cfg.ListenAddr != "" {
		// Behind a reverse proxy: one plain-HTTP address, the face chosen by
		// Host (the proxy passes it through).
		return []Listener{{Addr: cfg.ListenAddr}}, nil
	}
	var tlsCfg *tls.Config
	switch {
	case s.acme != nil:
		tlsCfg = s.acme.TLSConfig()
	case cfg.TLSCert != "":
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("load TLS certificate: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ports := map[string]bool{} // port -> https
	add := func(u *url.URL) { ports[config.Port(u)] = ports[config.Port(u)] || u.Scheme == "https" }
	add(cfg.AppURL)
	add(cfg.APIURL)
	if _, p, err := net.SplitHostPort(cfg.ShortDomain); err == nil {
		scheme := "https"
		if cfg.DevMode {
			scheme = cfg.AppURL.Scheme
		}
		add(&url.URL{Scheme: scheme, Host: "x:" + p})
	}
	var out []Listener
	for p, https := range ports {
		l := Listener{Addr: ":" + p}
		if https && tlsCfg != nil {
			l.TLS = tlsCfg
		}
		out = append(out, l)
	}
	if tlsCfg != nil && cfg.HTTPAddr != "" {
		_, p, err := net.SplitHostPort(cfg.HTTPAddr)
		if err != nil {
			return nil, fmt.Errorf("RELINK_HTTP_ADDR: %w", err)
		}
		if _, taken := ports[p]; !taken {
			out = append(out, Listener{Addr: cfg.HTTPAddr})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Addr < out[j].Addr })
	return out, nil
}

func (s *Server) acmeManager() *autocert.Manager {
	cfg := s.svc.Config
	return &autocert.Manager{
		Prompt: autocert.AcceptTOS,
		Email:  cfg.ACMEEmail,
		Cache:  autocert.DirCache(cfg.ACMEDir),
		Client: &acme.Client{DirectoryURL: cfg.ACMECA},
		// Certificates for the origins and every registered domain
		// (Services.Domains, in memory), nothing else.
		HostPolicy: func(_ context.Context, host string) error {
			if s.ServesTLSHost(strings.ToLower(host)) {
				return nil
			}
			return fmt.Errorf("acme: %q is not a Relink origin or registered short domain", host)
		},
	}
}

// Listen opens the planned sockets.
func Listen(ls []Listener) ([]net.Listener, error) {
	var out []net.Listener
	for _, l := range ls {
		ln, err := net.Listen("tcp", l.Addr)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, fmt.Errorf("listen %s: %w", l.Addr, err)
		}
		ln = lingerListener{ln}
		if l.TLS != nil {
			ln = tls.NewListener(ln, l.TLS)
		}
		out = append(out, ln)
	}
	return out, nil
}

// Serve starts the background jobs and serves every listener until ctx is
// cancelled, then stops accepting, lets in-flight requests finish and stops
// and drains the jobs, all within the configured shutdown deadline.
func (s *Server) Serve(ctx context.Context, lns []net.Listener) error {
	s.Root.Handler() // build the route tree once before serving
	s.svc.Jobs.Start(ctx)
	srv := s.Root.Server()
	// Answers given during the stop say the connection closes after them.
	srv.CloseOnShutdown = true
	errc := make(chan error, len(lns))
	for _, ln := range lns {
		s.log.Info("listening", "addr", ln.Addr().String())
		ln = answerListener{Listener: ln, stopping: &s.stopping, budget: s.svc.Config.ShutdownTimeout}
		go func(ln net.Listener) { errc <- srv.Serve(ln) }(ln)
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
		s.log.Error("listener failed; shutting down", "err", serveErr)
	}
	return errors.Join(serveErr, s.Shutdown())
}

// Shutdown stops the listeners, waits for in-flight requests (up to the
// shutdown timeout), then stops and drains the jobs (with a fresh timeout).
func (s *Server) Shutdown() error {
	timeout := s.svc.Config.ShutdownTimeout
	start := time.Now()
	s.log.Info("shutting down", "deadline", timeout)
	s.stopping.Store(true) // requests being read or answered finish (answer.go)
	var errs []error
	httpCtx, cancelHTTP := context.WithTimeout(context.Background(), timeout)
	if err := s.Root.ShutdownWithContext(httpCtx); err != nil {
		errs = append(errs, fmt.Errorf("stop http: %w", err))
	}
	cancelHTTP()
	// The jobs get a deadline of their own, so a request stuck past the
	// HTTP deadline cannot leave the click flush without time.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := s.svc.Jobs.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	s.log.Info("stopped", "took", time.Since(start))
	return errors.Join(errs...)
}

// lingerListener's connections close gracefully: the write side is shut
// first (the client gets the answer and a FIN), then whatever the client is
// still sending is read and discarded for up to lingerTimeout before the
// socket is closed. Without it a request refused before its body was read
// (a body over RELINK_BODY_LIMIT) closed a socket with unread data, which
// the kernel answers with a reset, and a client still writing its body never
// saw the 400 (issue 15 item 5).
type lingerListener struct{ net.Listener }

// lingerTimeout bounds the discard; lingerMax bounds the bytes read.
const (
	lingerTimeout = 2 * time.Second
	lingerMax     = 64 << 20
)

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &lingerConn{TCPConn: tc}, nil
	}
	return c, nil
}

type lingerConn struct {
	*net.TCPConn
	once sync.Once
}

func (c *lingerConn) Close() error {
	var err error
	c.once.Do(func() {
		if c.TCPConn.CloseWrite() != nil {
			err = c.TCPConn.Close()
			return
		}
		go func() {
			_ = c.TCPConn.SetReadDeadline(time.Now().Add(lingerTimeout))
			_, _ = io.CopyN(io.Discard, c.TCPConn, lingerMax)
			_ = c.TCPConn.Close()
		}()
	})
	return err
}
