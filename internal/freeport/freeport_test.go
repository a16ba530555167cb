package freeport

import (
	"net"
	"strconv"
	"testing"
)

// Pick gives distinct ports in its range that can be bound right after.
func TestPick(t *testing.T) {
	ports, err := Pick(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < Low || p >= High || seen[p] {
			t.Fatalf("port %d: out of [%d, %d) or repeated in %v", p, Low, High, ports)
		}
		seen[p] = true
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d picked but not bindable: %v", p, err)
		}
		ln.Close()
	}
}

// A port is handed out once per process.
func TestPickNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		ports, err := Pick(3)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
}

// A port in use is never picked.
func TestPickSkipsTaken(t *testing.T) {
	var held []net.Listener
	taken := map[int]bool{}
	for p := Low; p < Low+2000; p++ { // a sixth of the range held
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			held = append(held, ln)
			taken[p] = true
		}
	}
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for range 20 {
		ports, err := Pick(5)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			if taken[p] {
				t.Fatalf("picked port %d, which is held", p)
			}
		}
	}
}
