// Package freeport picks TCP ports on 127.0.0.1 for servers a test starts
// as child processes (relink serve, ClickHouse), which bind them a moment
// later.
//
// Ports come from below the kernel's ephemeral range (32768–60999 by
// default), chosen at random and checked free by listening on them. A port
// the kernel handed out for 127.0.0.1:0 was in the ephemeral range, where
// any outgoing connection of any process (a test's connection to
// PostgreSQL, Redis, a browser) may take it between the check and the
// child's bind; below that range only another pick can, and a random pick
// among 12,000 ports rarely meets another.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// Range is where ports are picked: [Low, High).
const (
	Low  = 20000
	High = 32768
)

// given is every port Pick returned in this process: a port is handed out
// once, so two picks for one test (or two servers of one test binary)
// never get the same port, whether or not the first was bound yet.
var given = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// Pick returns n ports free on 127.0.0.1 right now, none of them returned
// before in this process.
func Pick(n int) ([]int, error) {
	given.Lock()
	defer given.Unlock()
	var out []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for tries := 0; len(out) < n; tries++ {
		if tries >= 1000 {
			return nil, fmt.Errorf("freeport: no free port in [%d, %d) after %d tries", Low, High, tries)
		}
		p := Low + rand.IntN(High-Low)
		if given.ports[p] {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue // taken
		}
		lns = append(lns, ln)
		given.ports[p] = true
		out = append(out, p)
	}
	return out, nil
}
