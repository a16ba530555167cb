package console

import (
	"fmt"
	"sync"
	"time"

	"github.com/relinkhq/relink/internal/importer"
	vc "github.com/relinkhq/relink/views/console"
)

// importTimeout bounds one console import run.
const importTimeout = time.Hour

// imports holds each workspace's CSV upload and import run in memory: one
// upload and one run per workspace at a time (a server restart forgets
// them; links created so far stay, and a re-run skips them).
type imports struct {
	mu   sync.Mutex
	byWS map[string]*importState
}

type importState struct {
	// The upload awaiting its mapping.
	upload   string
	fileName string
	data     []byte
	// The run: its source ("CSV file", "Shlink", …) and state. An API
	// source's token is not kept here: it lives in the source value the
	// run's goroutine holds, and goes with it when the run ends.
	source   string
	started  bool
	running  bool
	progress importer.Progress
	report   *importer.Report
	err      error
}

func (im *imports) get(ws string) *importState {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.byWS == nil {
		im.byWS = map[string]*importState{}
	}
	s := im.byWS[ws]
	if s == nil {
		s = &importState{}
		im.byWS[ws] = s
	}
	return s
}

// snapshot copies the run's view under the lock.
func (im *imports) view(ws string) vc.ImportProgressView {
	s := im.get(ws)
	im.mu.Lock()
	defer im.mu.Unlock()
	p := vc.ImportProgressView{Started: s.started, Running: s.running, Source: s.source, Done: s.progress.Done,
		Created: s.progress.Created, Skipped: s.progress.Skipped, Failed: s.progress.Failed, Clicks: s.progress.Clicks, TotalText: "?"}
	if s.progress.Total > 0 {
		p.TotalText = fmt.Sprint(s.progress.Total)
		p.Percent = min(100*s.progress.Done/s.progress.Total, 100)
	}
	switch {
	case s.running:
		p.State, p.Title = "running", "Importing from "+s.source+"…"
	case s.err != nil:
		p.State, p.Title, p.Error = "failed", "Import from "+s.source+" stopped", s.err.Error()
	default:
		p.State, p.Title, p.Percent = "done", "Import from "+s.source+" finished", 100
	}
	if s.report != nil && !s.running {
		for _, e := range s.report.Errors {
			p.Rows = append(p.Rows, vc.ImportRowView{Row: e.Row, Link: e.Domain + "/" + e.Key, Reason: e.Error, Failed: true})
		}
		for _, e := range s.report.Skips {
			p.Rows = append(p.Rows, vc.ImportRowView{Row: e.Row, Link: e.Domain + "/" + e.Key, Reason: e.Error})
		}
	}
	return p
}
