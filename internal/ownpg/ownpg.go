// Package ownpg runs a private PostgreSQL server for fault tests and the
// fault benchmark (bench/faults): initdb in a directory of its own, on a
// port of its own, so stopping or hanging it (SIGSTOP) never touches the
// machine's shared cluster. When the process runs as root the server runs as
// the "postgres" user (PostgreSQL refuses root).
package ownpg

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // readiness check
	"github.com/relinkhq/relink/internal/freeport"
)

// Instance is one private server.
type Instance struct {
	Dir  string // data directory
	Port int
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{}
}

// Available reports whether initdb and postgres can be found.
func Available() bool {
	_, err := binDir()
	return err == nil
}

func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(r), nil
		}
		return filepath.Dir(p), nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		return "", errors.New("ownpg: initdb not found")
	}
	return filepath.Dir(m[len(m)-1]), nil
}

// Start initialises a new directory under the system's temporary directory
// (removed by Close) and starts the server on a free port of 127.0.0.1.
func Start() (*Instance, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "relink-pg-*")
	if err != nil {
		return nil, fmt.Errorf("ownpg: %w", err)
	}
	in := &Instance{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("ownpg: running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		in.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ownpg: %w", err)
	}
	if in.cred != nil {
		if err := os.Chown(dir, int(in.cred.Uid), int(in.cred.Gid)); err != nil {
			return nil, fmt.Errorf("ownpg: chown %s: %w", dir, err)
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: in.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ownpg: initdb: %w: %s", err, out)
	}
	ports, err := freeport.Pick(1) // below the ephemeral range, which outgoing connections use
	if err != nil {
		return nil, err
	}
	in.Port = ports[0]
	return in, in.Restart()
}

// URL is the server's postgres:// URL for database db ("postgres" if empty).
func (in *Instance) URL(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", in.Port, db)
}

// Restart starts the server (after Stop) and waits until it accepts queries.
func (in *Instance) Restart() error {
	cmd := exec.Command(filepath.Join(in.bin, "postgres"), "-D", in.Dir, "-p", strconv.Itoa(in.Port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+in.Dir,
		"-c", "fsync=off", "-c", "max_connections=100", "-c", "shared_buffers=32MB")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: in.cred, Setpgid: true}
	log, err := os.OpenFile(filepath.Join(in.Dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("ownpg: %w", err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("ownpg: start postgres: %w", err)
	}
	in.cmd, in.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); log.Close(); close(done) }(in.done)
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := sql.Open("pgx", in.URL(""))
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			err = db.PingContext(ctx)
			cancel()
			db.Close()
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ownpg: server not ready after 30s: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// CreateDatabase creates database name.
func (in *Instance) CreateDatabase(name string) error {
	db, err := sql.Open("pgx", in.URL(""))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec("CREATE DATABASE " + name)
	return err
}

// Stop shuts the server down (fast mode: open connections are closed).
func (in *Instance) Stop() error {
	if in.cmd == nil {
		return nil
	}
	_ = in.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot stop
	if err := in.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("ownpg: stop: %w", err)
	}
	select {
	case <-in.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-in.cmd.Process.Pid, syscall.SIGKILL)
		<-in.done
	}
	in.cmd = nil
	return nil
}

// Pause hangs the server: every process of it gets SIGSTOP, so sockets stay
// open and nothing answers (a hung database, not a refused connection).
func (in *Instance) Pause() error { return in.signalAll(syscall.SIGSTOP) }

// Resume undoes Pause.
func (in *Instance) Resume() error { return in.signalAll(syscall.SIGCONT) }

func (in *Instance) signalAll(sig syscall.Signal) error {
	if in.cmd == nil {
		return errors.New("ownpg: not running")
	}
	// Backends call setsid(), so the process group is not enough: signal
	// the postmaster (first, so it forks no new backend) and each child.
	pm := in.cmd.Process.Pid
	if err := syscall.Kill(pm, sig); err != nil {
		return fmt.Errorf("ownpg: signal postmaster: %w", err)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so parse after ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pm) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			_ = syscall.Kill(pid, sig)
		}
	}
	return nil
}

// Close stops the server and removes its directory.
func (in *Instance) Close() error {
	err := in.Stop()
	return errors.Join(err, os.RemoveAll(in.Dir))
}
