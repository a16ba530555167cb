package deploy

import (
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBackupUnderLoad: `relink backup FILE` copies the SQLite database of a
// running server while redirects keep coming (each one a stored click), and
// `relink restore FILE` into a fresh data directory gives a server that has
// every link and every click the database had stored when the backup began
// (and none it had not stored when the backup ended). No redirect fails
// while the copy is made.
func TestBackupUnderLoad(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"RELINK_DATABASE_URL":         "sqlite:" + filepath.Join(dir, "relink.db"),
		"RELINK_DATA_DIR":             filepath.Join(dir, "data"),
		"RELINK_CLICK_DEDUP_WINDOW":   "0",
		"RELINK_CLICK_FLUSH_INTERVAL": "50ms",
	}
	key := createWorkspace(t, env, "acme", "business")
	srv := startServer(t, env)
	var ids, keys []string
	for i := range 12 {
		var l struct{ ID, Key string }
		srv.must(t, "POST", "/links", key, map[string]any{"url": "https://example.com/" + string(rune('a'+i)), "key": "bk" + string(rune('a'+i))}, &l)
		ids, keys = append(ids, l.ID), append(keys, l.Key)
	}

	// Redirect load: four visitors over the links until stopped.
	stop := make(chan struct{})
	var sent, failed atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	short := strings.TrimPrefix(env["RELINK_APP_URL"], "http://")
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("GET", srv.app+"/"+keys[i%len(keys)], nil)
				req.Host = short
				req.Header.Set("User-Agent", browserUA)
				res, err := client.Do(req)
				sent.Add(1)
				if err != nil || res.StatusCode != http.StatusFound {
					failed.Add(1)
					if err == nil {
						res.Body.Close()
					}
					continue
				}
				res.Body.Close()
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	before := srv.clicksByLink(t, key)
	backup := filepath.Join(t.TempDir(), "relink-backup.db")
	out := relinkCmd(t, env, "backup", backup)
	after := srv.clicksByLink(t, key)
	time.Sleep(300 * time.Millisecond) // redirects go on after the copy
	close(stop)
	wg.Wait()
	t.Logf("%s; %d redirects sent during the test", strings.TrimSpace(out), sent.Load())
	if failed.Load() != 0 {
		t.Fatalf("%d of %d redirects failed while the backup ran", failed.Load(), sent.Load())
	}
	if total(before) == 0 {
		t.Fatal("no click was stored before the backup: the load did not reach the database")
	}

	// A fresh server restored from the copy.
	fresh := t.TempDir()
	env2 := map[string]string{
		"RELINK_DATABASE_URL": "sqlite:" + filepath.Join(fresh, "relink.db"),
		"RELINK_DATA_DIR":     filepath.Join(fresh, "data"),
	}
	restored := relinkCmd(t, env2, "restore", backup)
	if !strings.Contains(restored, "restored ") {
		t.Fatalf("relink restore: %s", restored)
	}
	srv2 := startServer(t, env2)
	for _, id := range ids {
		srv2.must(t, "GET", "/links/"+id, key, nil, nil)
	}
	got := srv2.clicksByLink(t, key)
	for _, id := range ids {
		if got[id] < before[id] || got[id] > after[id] {
			t.Errorf("link %s: %d clicks in the restored copy; the database had %d before the backup and %d after it", id, got[id], before[id], after[id])
		}
	}
	t.Logf("clicks stored: %d before the backup, %d in the copy, %d after the backup", total(before), total(got), total(after))
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
