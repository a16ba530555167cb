package logbuf

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// sink records each write(2)-equivalent call.
type sink struct {
	mu     sync.Mutex
	writes []string
	err    error
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, string(p))
	return len(p), s.err
}

func (s *sink) text() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.writes, ""), len(s.writes)
}

func TestLinesAreBatchedAndNothingIsLostOnClose(t *testing.T) {
	s := &sink{}
	w := New(s, 1<<20, time.Hour)
	var want bytes.Buffer
	for i := range 1000 {
		line := fmt.Sprintf("level=INFO msg=request n=%d\n", i)
		want.WriteString(line)
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if got, n := s.text(); n != 0 || got != "" {
		t.Fatalf("before Close: %d writes reached the output, want 0 (buffered)", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, n := s.text()
	if got != want.String() {
		t.Fatalf("after Close the output differs from what was logged (%d vs %d bytes)", len(got), want.Len())
	}
	if n != 1 {
		t.Fatalf("1000 lines took %d writes, want 1", n)
	}
}

func TestFullBufferIsWrittenAndBigLinesPassThrough(t *testing.T) {
	s := &sink{}
	w := New(s, 64, time.Hour)
	defer w.Close()
	line := strings.Repeat("a", 30) + "\n" // 31 bytes: two fit, the third overflows
	for range 3 {
		w.Write([]byte(line))
	}
	if got, n := s.text(); n != 1 || got != line+line {
		t.Fatalf("after overflowing: %d writes %q, want the first two lines in one write", n, got)
	}
	big := strings.Repeat("b", 100) + "\n"
	w.Write([]byte(big))
	if got, _ := s.text(); got != line+line+line+big {
		t.Fatalf("a line bigger than the buffer must follow the buffered ones in order, got %q", got)
	}
}

func TestIntervalFlush(t *testing.T) {
	s := &sink{}
	w := New(s, 1<<20, 10*time.Millisecond)
	defer w.Close()
	w.Write([]byte("hello\n"))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, _ := s.text(); got == "hello\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the periodic flush never wrote the buffered line")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestConcurrentWritesKeepLinesWhole(t *testing.T) {
	s := &sink{}
	w := New(s, 4096, time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				fmt.Fprintf(w, "goroutine=%d line=%d %s\n", g, i, strings.Repeat("x", g*10))
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := s.text()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	for _, l := range lines {
		var g, i int
		var pad string
		if _, err := fmt.Sscanf(l, "goroutine=%d line=%d %s", &g, &i, &pad); err != nil && g != 0 {
			t.Fatalf("torn line %q: %v", l, err)
		}
		if len(pad) != g*10 {
			t.Fatalf("torn line %q", l)
		}
	}
}

func TestWriteErrorIsReported(t *testing.T) {
	s := &sink{err: errors.New("disk full")}
	w := New(s, 1024, time.Hour)
	w.Write([]byte("x\n"))
	if err := w.Close(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Close = %v, want the write error", err)
	}
}
