package webhooks

import (
	"context"
	"os"
	"testing"
	"time"
)

// fakeMachine is the pacer's view of the CPU and the traffic, set by the
// test between steps.
type fakeMachine struct {
	busy, total, live uint64
	ok                bool
}

// tick advances the machine by one sample: idle is the idle fraction of
// the CPU in it, clicks the live clicks accepted.
func (m *fakeMachine) tick(idle float64, clicks uint64) {
	m.total += 1000
	m.busy += uint64((1 - idle) * 1000)
	m.live += clicks
}

func newTestPacer(m *fakeMachine) *Pacer {
	return &Pacer{BusyRate: 50, Interval: 100 * time.Millisecond,
		Live: func() uint64 { return m.live },
		CPU:  func() (uint64, uint64, bool) { return m.busy, m.total, m.ok }}
}

func TestPacerPacesOnlyWhileLiveTrafficSaturatesTheMachine(t *testing.T) {
	m := &fakeMachine{ok: true}
	p := newTestPacer(m)
	p.Step() // the first sample only sets the baseline
	steps := []struct {
		name   string
		idle   float64
		clicks uint64
		paced  bool
		limit  float64
	}{
		{"idle machine, no traffic", 0.9, 0, false, 0},
		{"busy machine without live traffic (a neighbour, or the deliveries themselves)", 0.02, 0, false, 0},
		{"live traffic with CPU to spare", 0.4, 5000, false, 0},
		{"live traffic saturating the machine: straight to BusyRate", 0.03, 9000, true, 50},
		{"still saturated", 0.01, 9000, true, 50},
		{"the burst ends: the pace doubles", 0.8, 0, true, 100},
		{"and doubles", 0.8, 0, true, 200},
		{"saturated again: back to BusyRate", 0.05, 100, true, 50},
		{"idle with traffic: doubles", 0.5, 100, true, 100},
	}
	for _, s := range steps {
		m.tick(s.idle, s.clicks)
		p.Step()
		st := p.Stats()
		if st.Paced != s.paced || st.Limit != s.limit {
			t.Fatalf("%s: paced %v at %.0f/s, want %v at %.0f/s", s.name, st.Paced, st.Limit, s.paced, s.limit)
		}
	}
	for range 20 {
		m.tick(0.8, 0)
		p.Step()
	}
	if st := p.Stats(); st.Paced {
		t.Fatalf("20 idle samples later still paced at %.0f/s", st.Limit)
	}
	if st := p.Stats(); st.PacedT < 5*p.Interval {
		t.Fatalf("time paced %v, want at least the paced samples", st.PacedT)
	}
}

func TestPacerWithoutACPUReadingNeverPaces(t *testing.T) {
	m := &fakeMachine{ok: false}
	p := newTestPacer(m)
	for range 5 {
		m.tick(0, 10000)
		p.Step()
	}
	if st := p.Stats(); st.Paced {
		t.Fatalf("paced at %.0f/s without a CPU reading", st.Limit)
	}
}

func TestPacerWaitKeepsThePaceAndStops(t *testing.T) {
	m := &fakeMachine{ok: true}
	p := newTestPacer(m)
	p.BusyRate = 20 // one slot every 50ms
	p.Step()
	m.tick(0, 1)
	p.Step()
	if st := p.Stats(); st.Limit != 20 {
		t.Fatalf("limit %.0f, want 20", st.Limit)
	}
	ctx := context.Background()
	start := time.Now()
	for range 5 {
		if err := p.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Slots at 0, 50, …, 200ms: five deliveries cannot pass sooner.
	if took := time.Since(start); took < 190*time.Millisecond {
		t.Fatalf("5 deliveries at 20/s passed in %v", took)
	}
	// Waits of a stopping worker take no slot (100 would be 5s of them).
	for range 100 {
		if p.Wait(canceled()) == nil {
			t.Fatal("Wait on a stopped context returned nil")
		}
	}
	p.mu.Lock()
	ahead := time.Until(p.next)
	p.mu.Unlock()
	if ahead > time.Second {
		t.Fatalf("stopped waits took slots: the next is %v ahead", ahead)
	}
	stopped := canceled()
	// A nil pacer (RELINK_WEBHOOK_BUSY_RATE=off) never waits.
	var none *Pacer
	if err := none.Wait(stopped); err != nil {
		t.Fatalf("nil pacer: %v", err)
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestParseProcStat(t *testing.T) {
	busy, total, err := parseProcStat("cpu  100 5 50 800 20 3 2 1 0 0\n")
	if err != nil || busy != 161 || total != 981 {
		t.Fatalf("busy %d total %d err %v; want 161 of 981", busy, total, err)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 2 x 4 5", "cpu 1 2"} {
		if _, _, err := parseProcStat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := os.Stat("/proc/stat"); err == nil {
		if _, total, ok := procStatCPU(); !ok || total == 0 {
			t.Fatalf("this machine's /proc/stat: ok %v total %d", ok, total)
		}
	}
}
