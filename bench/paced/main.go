// Command paced is an open-loop load generator (wrk2-like pacing, issue 35
// item 4): it sends requests at a fixed rate whatever the server's answer
// time, each as a distinct visitor (its own X-Forwarded-For), and measures
// each latency from the moment the request was due, not from when it was
// sent, so a server that falls behind shows it in the percentiles instead of
// slowing the load down (coordinated omission).
//
//	go run ./bench/paced -url http://127.0.0.1:9082/bench -rate 5000 -duration 20s
//
// bench/paced/run.sh starts Relink on SQLite and PostgreSQL and reports the
// redirect's p99 at the rate and the click writer's share of the server's CPU.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	target := flag.String("url", "http://127.0.0.1:9082/bench", "URL to request")
	rate := flag.Int("rate", 5000, "requests per second")
	duration := flag.Duration("duration", 20*time.Second, "how long to send")
	conns := flag.Int("conns", 64, "connections (and concurrent requests at most)")
	run := flag.Int("run", 0, "run number, part of every visitor address (distinct visitors across runs)")
	notrack := flag.Bool("notrack", false, "send dub-no-track: 1 (no click recorded)")
	flag.Parse()
	if err := paced(*target, *rate, *duration, *conns, *run, *notrack); err != nil {
		fmt.Fprintln(os.Stderr, "paced:", err)
		os.Exit(1)
	}
}

func paced(target string, rate int, duration time.Duration, conns, run int, notrack bool) error {
	if rate <= 0 || conns <= 0 {
		return fmt.Errorf("rate and conns must be positive")
	}
	tr := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	total := int(int64(rate) * int64(duration) / int64(time.Second))
	due := make(chan int, conns)
	lat := make([][]time.Duration, conns)
	var redirects, others, failures atomic.Int64
	start := time.Now().Add(100 * time.Millisecond)
	interval := time.Second / time.Duration(rate)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range due {
				at := start.Add(time.Duration(i) * interval)
				req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, target, nil)
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("fd01:%x:%x:%x::1", run, i/65536, i%65536))
				// A browser's user agent: Go's own is a bot's, whose clicks are not stored.
				req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36")
				if notrack {
					req.Header.Set("dub-no-track", "1")
				}
				resp, err := client.Do(req)
				if err != nil {
					failures.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[w] = append(lat[w], time.Since(at))
				if resp.StatusCode == http.StatusFound {
					redirects.Add(1)
				} else {
					others.Add(1)
				}
			}
		}()
	}
	for i := range total {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		due <- i // blocks when every connection is busy: that wait counts in the latency
	}
	close(due)
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	fmt.Printf("PACED rate=%d sent=%d achieved=%.0f/s redirects=%d other=%d failed=%d p50=%.2fms p99=%.2fms p999=%.2fms max=%.2fms\n",
		rate, total, float64(len(all))/elapsed.Seconds(), redirects.Load(), others.Load(), failures.Load(),
		pct(0.50), pct(0.99), pct(0.999), pct(1))
	return nil
}
