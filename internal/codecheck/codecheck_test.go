package codecheck

import (
	"fmt"
	"io/fs"
	"os"
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
var longAllowed = map[string]string{}

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
var borrowAllowed = map[string]string{}

// TestFacesDoNotBorrow: no face imports another face; what they share
// lives in handlers/request and handlers/render. Below the faces, nothing
// in internal/ or models imports handlers (internal/apptest, which builds
// the whole server for tests, excepted).
func TestFacesDoNotBorrow(t *testing.T) {
	for _, dir := range packageDirs(t, "internal", "models") {
		if dir == "internal/apptest" {
			continue
		}
		imps, err := Imports(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range imps {
			if rel, ok := strings.CutPrefix(imp, module); ok && (rel == "handlers" || strings.HasPrefix(rel, "handlers/")) {
				t.Errorf("%s imports %s: the domain does not know the HTTP faces", dir, rel)
			}
		}
	}
	for _, face := range faces {
		imps, err := Imports(filepath.Join(root, face))
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range imps {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok || rel == face || strings.HasPrefix(rel, face+"/") { // its own subpackages (handlers/console/route)
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
//
// A file named *_templ.go is templ's output and skipped by name. It is
// written here rather than kept in testdata, because `templ generate`
// deletes a *_templ.go that has no .templ source (check-generated would fail).
func TestLongFunctionsFound(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"gen.go", "sample.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	templOutput := "package sample\n\nfunc GeneratedByName() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "sample_templ.go"), []byte(templOutput), 0o644); err != nil {
		t.Fatal(err)
	}
	long, err := LongFunctions(dir, 3)
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

// packageDirs lists the directories with Go files under the given roots
// (slash-separated, relative to the repository root).
func packageDirs(t *testing.T, roots ...string) []string {
	t.Helper()
	var out []string
	for _, r := range roots {
		err := filepath.WalkDir(filepath.Join(root, r), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") {
				rel, _ := filepath.Rel(root, filepath.Dir(path))
				if len(out) == 0 || out[len(out)-1] != filepath.ToSlash(rel) {
					out = append(out, filepath.ToSlash(rel))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// citeAllowed are cited names that are not files of this repository on
// purpose (upstream's files, named as upstream names them).
var citeAllowed = map[string]bool{}

// TestCitations: every Markdown file a comment or a document cites exists
// in the repository (relative to the citing file, the root or docs/), is
// not ambiguous, and has the sections cited ("spec/links.md §4.3" needs a
// "### 4.3" heading in docs/spec/links.md).
func TestCitations(t *testing.T) {
	cites, err := Citations(root)
	if err != nil {
		t.Fatal(err)
	}
	secs := map[string]map[string]bool{}
	for _, c := range cites {
		if citeAllowed[c.Target] {
			continue
		}
		p, err := Resolve(root, c)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if p == "" {
			t.Errorf("%s: no such file in the repository", c)
			continue
		}
		if len(c.Sections) == 0 {
			continue
		}
		if secs[p] == nil {
			if secs[p], err = Sections(filepath.Join(root, p)); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range c.Sections {
			if !secs[p][s] {
				hint := ""
				if spec := filepath.Join("docs", "spec", filepath.Base(p)); spec != p {
					if _, err := os.Stat(filepath.Join(root, spec)); err == nil {
						hint = " (the contract's is spec/" + filepath.Base(p) + ")"
					}
				}
				t.Errorf("%s: %s has no section %s%s", c, p, s, hint)
			}
		}
	}
	if len(cites) < 100 {
		t.Errorf("found only %d citations: the scanner is broken", len(cites))
	}
}

// TestCitationScanner: the scanner finds citations across a comment's
// line break and ranges of sections, and Resolve answers "" for a file the
// repository does not have (so TestCitations can fail).
func TestCitationScanner(t *testing.T) {
	got := citationsIn("x.go", "// the rule (spec/links.md\n// §4.3) and spec/parity.md §2–§7; see docs/nope.md; https://e.com/a.md")
	want := []string{"x.go:1: spec/links.md §4.3", "x.go:2: spec/parity.md §2, §7", "x.go:2: docs/nope.md"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("citation %d = %q, want %q", i, got[i], want[i])
		}
	}
	if p, err := Resolve(root, got[2]); p != "" || err != nil {
		t.Errorf("Resolve(docs/nope.md) = %q, %v; want no file", p, err)
	}
	if p, err := Resolve(root, got[0]); p != "docs/spec/links.md" || err != nil {
		t.Errorf("Resolve(spec/links.md) = %q, %v", p, err)
	}
	secs, err := Sections(filepath.Join(root, "docs/spec/links.md"))
	if err != nil || !secs["4.3"] || secs["4.99"] {
		t.Errorf("Sections(links.md): 4.3 %v, 4.99 %v, %v", secs["4.3"], secs["4.99"], err)
	}
}

// signIn are the console's and the partner portal's own session writes:
// signing in and out is the door's rule (docs/architecture.md "Who
// decides"), not a service's.
var signIn = map[string]bool{"CreateConsoleSession": true, "RevokeConsoleSession": true,
	"RevokeOtherConsoleSessions": true, "SetPasswordHash": true, "RevokePartnerSession": true}

// demoBulk are internal/demo's files that write the generated links,
// clicks, leads, sales and commissions in batches by design (COPY, multi-row
// INSERTs, the click writer): the per-row generation issue 30 exempts. The
// demo's other files (its setup: tags, folders, domain, program, rewards,
// enrollments) are walked like the faces.
var demoBulk = map[string]bool{"bulk.go": true, "demo.go": true, "commissions.go": true}

// TestServicesAreTheWriters walks the faces', the CLI's and the demo's
// setup code for calls that change data on the database directly (a
// models.DB write method, or gorm's Create/Updates/Delete/Exec on a chain
// from the database) instead of through a service (issue 30 item 1).
func TestServicesAreTheWriters(t *testing.T) {
	dirs := []string{"cmd/relink", "handlers", "handlers/api", "handlers/console", "handlers/embed", "handlers/redirect", "handlers/request"}
	demo, err := os.ReadDir(filepath.Join(root, "internal/demo"))
	if err != nil {
		t.Fatal(err)
	}
	walked := 0
	for _, e := range demo {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !demoBulk[n] {
			dirs = append(dirs, "internal/demo/"+n)
			walked++
		}
	}
	if walked == 0 {
		t.Fatal("internal/demo: no setup file walked")
	}
	writes, err := ModelWrites(root, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		if (strings.HasPrefix(w.File, "handlers/console/") || strings.HasPrefix(w.File, "handlers/embed/")) && signIn[w.Method] {
			continue
		}
		t.Errorf("%s: changes data on the database directly; go through the service that owns it (internal/links, internal/conversions, internal/workspaces, internal/webhooks…)", w)
	}
}

// TestModelWritesFound: the scanner sees a model write method, gorm's writes
// on a chain from the database, and nothing else.
func TestModelWritesFound(t *testing.T) {
	dir := t.TempDir()
	src := `package x

func f(h *H, db *DB) {
	h.db.SaveGroup(ctx, g)
	_ = h.db.GroupByID(ctx, "w", "g")
	db.WithContext(ctx).Model(&L{}).Where("id = ?", 1).Updates(m)
	h.db.WithContext(ctx).Where("x").Take(&v)
	h.links.Create(ctx, in)
	s.DB.DeleteTag(ctx, "w", "t")
	db.Close()
}
`
	if err := os.MkdirAll(filepath.Join(dir, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x", "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x", "y.go"), []byte("package x\n\nfunc g(db *DB) { db.CreateTag(ctx, t) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ws, err := ModelWrites(dir, "x/y.go"); err != nil || len(ws) != 1 || ws[0].String() != "x/y.go:3 CreateTag" {
		t.Fatalf("one file: got %v, %v", ws, err)
	}
	ws, err := ModelWrites(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	if want := "x/x.go:4 SaveGroup; x/x.go:6 Updates; x/x.go:9 DeleteTag; x/y.go:3 CreateTag"; strings.Join(got, "; ") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestConsoleURLsFromTable: the console's handlers and views build every
// console URL from the one route table (handlers/console/route: route.URL),
// so no "/console…" literal is written anywhere else (issue 30 item 6).
// Tests keep literal URLs: they check the wire.
func TestConsoleURLsFromTable(t *testing.T) {
	lits, err := PathLiterals(root, "/console", []string{"handlers/console/route"},
		"handlers/console", "views/console", "handlers/routes_console.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lits {
		t.Errorf("%s: a literal console path; build it with route.URL (handlers/console/route)", l)
	}
}

// TestPathLiteralsFound: the scanner sees a path literal in Go code, in
// templ's generated HTML strings and in a .templ attribute, and not an
// import path, a comment or the skipped directory.
func TestPathLiteralsFound(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"x/x.go":         "package x\n\nimport \"example.com/console\"\n\n// see /console/links\nvar a = \"/console/links/\" + id\nvar b = `<a href=\"/console\">`\nvar c = \"/consolex\"\nvar g = \"?next=/console\"\n",
		"x/x.templ":      "package x\n\n// the /console page\ntempl X() {\n\t<a href=\"/console/tags\">Tags</a>\n\t<a href={ href(route.Tags) }>Tags</a>\n}\n",
		"x/x_test.go":    "package x\n\nvar d = \"/console\"\n",
		"x/table/t.go":   "package table\n\nvar e = \"/console/links\"\n",
		"y/elsewhere.go": "package y\n\nvar f = \"/console\"\n",
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lits, err := PathLiterals(dir, "/console", []string{"x/table"}, "x")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lits {
		got = append(got, fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	if want := "x/x.go:6 x/x.go:7 x/x.templ:5"; strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestDubObjectsInWire: the Dub objects Relink writes are declared in
// internal/wire only (docs/architecture.md, "One wire format"); a struct
// with a link's shortLink or qrCode key elsewhere is a second copy of one.
func TestDubObjectsInWire(t *testing.T) {
	tags, err := WireTags(root, []string{"internal/wire", "tests", "bench", "node_modules"}, "shortLink", "qrCode")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range tags {
		t.Errorf("%s: a Dub object outside internal/wire; declare it there", w)
	}
}

// TestWireTagsFound: the scanner sees a tagged field in a struct type and
// an anonymous struct, and not a test file, a skipped directory or another
// key.
func TestWireTagsFound(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"x/x.go":      "package x\n\ntype A struct {\n\tS string `json:\"shortLink\"`\n\tT string `json:\"title\"`\n}\n\nvar b = struct {\n\tQ string `json:\"qrCode,omitempty\"`\n}{}\n",
		"x/x_test.go": "package x\n\ntype C struct {\n\tS string `json:\"shortLink\"`\n}\n",
		"w/w.go":      "package w\n\ntype D struct {\n\tS string `json:\"shortLink\"`\n}\n",
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tags, err := WireTags(dir, []string{"w"}, "shortLink", "qrCode")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range tags {
		got = append(got, w.String())
	}
	if want := `x/x.go:4 json:"shortLink" x/x.go:9 json:"qrCode"`; strings.Join(got, " ") != want {
		t.Fatalf("found %q, want %q", strings.Join(got, " "), want)
	}
}
