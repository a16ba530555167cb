package analytics

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestInternConcurrent: engines that number overlapping values at once (as
// two processes over one database would) agree on every number, and each
// value is numbered once.
func TestInternConcurrent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := t.Context()
		engines := []*SQLEngine{NewEngine(db, time.Now), NewEngine(db, time.Now), NewEngine(db, time.Now)}
		got := make([]map[string]int32, 6)
		var wg sync.WaitGroup
		errs := make([]error, len(got))
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i] = map[string]int32{}
				for round := range 5 {
					var vals []string
					for v := range 40 {
						vals = append(vals, fmt.Sprintf("link_%d", (i*13+round*7+v)%120))
					}
					ids, err := engines[i%len(engines)].intern(ctx, "ws_concurrent", models.DimLink, vals)
					if err != nil {
						errs[i] = err
						return
					}
					for j, v := range vals {
						got[i][v] = ids[j]
					}
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		_, keys, err := NewEngine(db, time.Now).dictKeys(ctx, "ws_concurrent", models.DimLink)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				t.Fatalf("%s numbered twice", k)
			}
			seen[k] = true
		}
		for i, m := range got {
			for v, id := range m {
				if int(id) >= len(keys) || keys[id] != v {
					t.Fatalf("goroutine %d: %s is %d, the dictionary says %q", i, v, id, keys[min(int(id), len(keys)-1)])
				}
			}
		}
		if len(keys) != 120 {
			t.Fatalf("%d values numbered, want 120", len(keys))
		}
	})
}
