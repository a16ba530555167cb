package codecheck

import (
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/relinkhq/relink/"

// root is the repository root (this package is internal/codecheck).
var root = filepath.Join("..", "..")

// longAllowed are the functions still over MaxLines, each with the reason
// (docs/architecture.md, "Function length"). The list only shrinks: an
// entry that is no longer long fails the test too, so it is removed.
var longAllowed = map[string]string{
	"handlers/embed/embed_test.go TestEmbedPageAndFragments":               "to split (issue 12 item 8)",
	"handlers/console/analytics.go (*Handlers).analyticsView":              "to split (issue 12 item 8)",
	"handlers/embed/tabs_test.go TestTabs":                                 "to split (issue 12 item 8)",
	"handlers/console/links_test.go TestLinks":                             "to split (issue 12 item 8)",
	"handlers/redirect_test.go TestRedirectDecisions":                      "to split (issue 12 item 8)",
	"internal/links/process.go (*Service).process":                         "to split (issue 12 item 8)",
	"handlers/embed/timeseries_test.go TestEarningsTimeseries":             "to split (issue 12 item 8)",
	"handlers/api/links_create_test.go TestCreateLink":                     "to split (issue 12 item 8)",
	"internal/conversions/track.go (*Service).TrackSale":                   "to split (issue 12 item 8)",
	"handlers/console/members_test.go TestInvites":                         "to split (issue 12 item 8)",
	"handlers/redirect/redirect.go (*Handlers).serve":                      "to split (issue 12 item 8)",
	"internal/ingest/ingest.go (*Pipeline).run":                            "to split (issue 12 item 8)",
	"handlers/console/session_test.go TestSignIn":                          "to split (issue 12 item 8)",
	"internal/config/config.go Load":                                       "to split (issue 12 item 8)",
	"handlers/api/domains_tags_folders_test.go TestDomains":                "to split (issue 12 item 8)",
	"internal/analytics/params_test.go TestParseAccepts":                   "to split (issue 12 item 8)",
	"internal/demo/demo_test.go TestBackfillMatchesHooks":                  "to split (issue 12 item 8)",
	"internal/analytics/params.go Parse":                                   "to split (issue 12 item 8)",
	"internal/conversions/commission.go (*Service).eventCommissionRow":     "to split (issue 12 item 8)",
	"internal/conversions/partneranalytics.go (*Service).PartnerAnalytics": "to split (issue 12 item 8)",
	"models/bulk_test.go TestBulkLoaderMatchesRecordClicks":                "to split (issue 12 item 8)",
}

// TestFunctionLength: no hand-written function is longer than MaxLines
// lines (generated files excepted).
func TestFunctionLength(t *testing.T) {
	long, err := LongFunctions(root, MaxLines)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, f := range long {
		found[f.ID()] = true
		if _, ok := longAllowed[f.ID()]; !ok {
			t.Errorf("%s: over %d lines; split it (or list it, with the reason, in longAllowed and docs/architecture.md)", f, MaxLines)
		}
	}
	for id := range longAllowed {
		if !found[id] {
			t.Errorf("%s is no longer over %d lines: remove it from longAllowed", id, MaxLines)
		}
	}
}

// faces are the handler packages serving one face each.
var faces = []string{"handlers/api", "handlers/console", "handlers/embed", "handlers/redirect"}

// borrowAllowed are face-to-face imports still to be removed, with the
// reason.
var borrowAllowed = map[string]string{
	"handlers/redirect -> handlers/api": "ParseTrackClick moves to internal/conversions (s2-shortlink, issue 12 item 2)",
}

// TestFacesDoNotBorrow: no face imports another face; what they share
// lives in handlers/request and handlers/render.
func TestFacesDoNotBorrow(t *testing.T) {
	for _, face := range faces {
		imps, err := Imports(filepath.Join(root, face))
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range imps {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok || rel == face {
				continue
			}
			for _, other := range faces {
				if rel == other || strings.HasPrefix(rel, other+"/") {
					if _, ok := borrowAllowed[face+" -> "+other]; !ok {
						t.Errorf("%s imports %s: move what it needs to handlers/request (or a domain package)", face, other)
					}
				}
			}
		}
	}
}

// TestLongFunctionsFound: the checker itself measures a function from its
// func keyword to its closing brace and names methods with their receiver.
func TestLongFunctionsFound(t *testing.T) {
	long, err := LongFunctions(filepath.Join("testdata"), 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range long {
		got = append(got, f.String())
	}
	want := "sample.go:10 (*T).Long (5 lines)"
	if strings.Join(got, "; ") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
