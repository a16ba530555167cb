package handlers_test

import (
	"strings"
	"testing"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/shortlink"
	"github.com/relinkhq/relink/internal/testdb"
)

// TestReservedPathsCoverRoutes: every top-level path the app and short-link
// faces route themselves is in shortlink's reserved list for that face, so
// link validation refuses it as a key where the face serves links and the
// redirect never shadows it. A new route fails here until it is reserved.
func TestReservedPathsCoverRoutes(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	// The app host serving the default short domain (dev): the catch-all is
	// mounted behind the app's own routes.
	s := newServer(t, db, env{vars: map[string]string{"RELINK_SHORT_DOMAIN": "localhost:8080"}})
	faces := []struct {
		face request.Face
		sl   shortlink.Face
	}{{request.FaceApp, shortlink.AppFace}, {request.FaceShort, shortlink.ShortFace}}
	for _, f := range faces {
		n := 0
		for _, r := range s.Face(f.face).GetRoutes(true) {
			seg, _, _ := strings.Cut(strings.TrimPrefix(r.Path, "/"), "/")
			if seg == "" || seg == "*" { // the root and the short-link catch-all
				continue
			}
			n++
			if !shortlink.IsReserved(seg, f.sl) {
				t.Errorf("%s face routes %s %s but %q is not reserved for it", f.face, r.Method, r.Path, seg)
			}
		}
		if n == 0 {
			t.Fatalf("%s face: no routes listed", f.face)
		}
	}
	// The API is reached under /api on the app host (the dispatcher).
	if !shortlink.IsReserved("api/links", shortlink.AppFace) {
		t.Error("api is not reserved on the app face")
	}
	for _, seg := range []string{"metrics", "console", "embed", "deeplink", "static", "healthz"} {
		if !shortlink.IsReserved(seg, shortlink.AppFace) {
			t.Errorf("%s is not reserved on the app face", seg)
		}
	}
}
