package webhooks

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Pacer lets link.clicked deliveries use the CPU that live traffic leaves
// idle. A click webhook turns every redirect into one signed HTTP request
// more (about 20-30 CPU µs on this project's benchmark machines, as much as
// the redirect itself); sent as they come, they take that CPU from the
// redirects whenever the machine is saturated. So every Interval the pacer
// samples the machine's CPU and the live traffic (clicks accepted by the
// redirects): while clicks arrive and less than Headroom of the CPU is idle,
// link.clicked deliveries are paced at BusyRate per second; as soon as
// the CPU is idle again (or the traffic stops) the pace doubles every
// Interval until it is lifted. Nothing is dropped: deliveries not sent yet
// wait in the outbox, durable, and are sent when the burst is over (their
// lag grows by the burst's length). Other events (links, leads, sales, …)
// are never paced: they are few and each one matters at once.
//
// The CPU sample is /proc/stat (the whole machine, as wrk or a neighbour on
// a shared box also takes CPU from the redirect); where it cannot be read
// (not Linux) the pacer never paces.
type Pacer struct {
	// BusyRate is the deliveries per second allowed while paced (> 0: a
	// machine saturated for hours still delivers, and its backlog is counted).
	BusyRate float64
	// Headroom is the idle fraction of the CPU under which live traffic is
	// taken to be saturating the machine (default 0.10).
	Headroom float64
	// Interval between samples (default 100ms).
	Interval time.Duration
	// Live counts the live requests (the click pipeline's accepted clicks).
	Live func() uint64
	// CPU returns the machine's busy and total CPU time in any unit; ok is
	// false when it cannot be read. Default: /proc/stat.
	CPU func() (busy, total uint64, ok bool)

	mu    sync.Mutex
	limit float64   // deliveries/s while paced; 0: not paced
	next  time.Time // the next delivery's slot while paced

	pacedNs   atomic.Int64 // time spent paced
	waitedNs  atomic.Int64 // time deliveries waited for their slot
	lastLive  uint64
	lastBusy  uint64
	lastTotal uint64
	sampled   bool
}

// PaceStats are the pacer's counters since start.
type PaceStats struct {
	Paced   bool          // now
	Limit   float64       // deliveries/s now (0: not paced)
	PacedT  time.Duration // total time spent paced
	WaitedT time.Duration // total time deliveries waited for their slot
}

// Stats returns the counters.
func (p *Pacer) Stats() PaceStats {
	p.mu.Lock()
	limit := p.limit
	p.mu.Unlock()
	return PaceStats{Paced: limit > 0, Limit: limit, PacedT: time.Duration(p.pacedNs.Load()),
		WaitedT: time.Duration(p.waitedNs.Load())}
}

func (p *Pacer) defaults() {
	if p.Headroom <= 0 {
		p.Headroom = 0.10
	}
	if p.Interval <= 0 {
		p.Interval = 100 * time.Millisecond
	}
	if p.CPU == nil {
		p.CPU = procStatCPU
	}
	if p.BusyRate <= 0 {
		p.BusyRate = 100
	}
}

// Run samples until ctx ends.
func (p *Pacer) Run(ctx context.Context) {
	p.defaults()
	t := time.NewTicker(p.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.Step()
		}
	}
}

// unpacedAbove is the pace at which pacing is lifted altogether.
const unpacedAbove = 100_000

// Step takes one sample and sets the pace (Run calls it every Interval).
func (p *Pacer) Step() {
	p.defaults()
	busy, total, ok := p.CPU()
	var live uint64
	if p.Live != nil {
		live = p.Live()
	}
	first := !p.sampled
	dBusy, dTotal, dLive := busy-p.lastBusy, total-p.lastTotal, live-p.lastLive
	p.lastBusy, p.lastTotal, p.lastLive, p.sampled = busy, total, live, true
	if !ok || first || dTotal == 0 {
		return
	}
	idle := 1 - float64(dBusy)/float64(dTotal)
	saturated := dLive > 0 && idle < p.Headroom
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.limit > 0 {
		p.pacedNs.Add(int64(p.Interval))
	}
	switch {
	case saturated:
		// Straight to BusyRate: every delivery sent during a burst is CPU
		// the redirects do not get (halving from the unpaced rate would take
		// about 8 samples, by estimate some 1% of a 10s burst's CPU).
		if p.limit == 0 {
			p.next = time.Now()
		}
		p.limit = p.BusyRate
	case p.limit > 0:
		p.limit *= 2
		if p.limit >= unpacedAbove {
			p.limit = 0
		}
	}
}

// Paced reports whether link.clicked deliveries are paced now (false for
// a nil pacer).
func (p *Pacer) Paced() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limit > 0
}

// Wait blocks until a link.clicked delivery may be sent, or ctx ends.
func (p *Pacer) Wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err // a stop takes no slot
	}
	p.mu.Lock()
	if p.limit == 0 {
		p.mu.Unlock()
		return nil
	}
	now := time.Now()
	if p.next.Before(now) {
		p.next = now
	}
	at := p.next
	p.next = p.next.Add(time.Duration(float64(time.Second) / p.limit))
	p.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		p.waitedNs.Add(int64(d))
	}
	return nil
}

// procStatCPU reads the machine's CPU times (clock ticks) from /proc/stat:
// busy is everything but idle and iowait.
func procStatCPU() (busy, total uint64, ok bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		return 0, 0, false
	}
	busy, total, err = parseProcStat(line)
	return busy, total, err == nil
}

// parseProcStat reads /proc/stat's first line: "cpu user nice system idle
// iowait irq softirq steal guest guest_nice" (guest time is already in
// user and nice).
func parseProcStat(line string) (busy, total uint64, err error) {
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("webhooks: /proc/stat: unexpected first line %q", line)
	}
	var idle uint64
	for i, s := range f[1:min(len(f), 9)] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("webhooks: /proc/stat field %d: %w", i+1, err)
		}
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return total - idle, total, nil
}
