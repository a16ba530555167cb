package codecheck

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Citation is a reference, in a comment or a document, to a Markdown file
// of the repository and optionally to sections of it ("spec/links.md §4.3",
// "docs/clickhouse.md").
type Citation struct {
	File     string   // the citing file, relative to the root
	Line     int      // 1-based
	Target   string   // the cited path as written
	Sections []string // "4.3", … (empty: the file only)
}

func (c Citation) String() string {
	s := fmt.Sprintf("%s:%d: %s", c.File, c.Line, c.Target)
	if len(c.Sections) > 0 {
		s += " §" + strings.Join(c.Sections, ", §")
	}
	return s
}

var (
	// A path ending in .md, not part of a URL or a longer word.
	mdPath = regexp.MustCompile(`(?:^|[^\w/.:-])((?:\.\./|\./)*[\w-]+(?:/[\w.-]+)*\.md)\b`)
	// Sections after a citation, possibly after a line break and a comment
	// leader: "§4.3", "§2–§7", "§4–6", "§3.4-3.9".
	sectionRun = regexp.MustCompile(`^[\s/*#-]*§(\d+(?:\.\d+)*)(?:\s*[–-]\s*§?(\d+(?:\.\d+)*))?`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s`)
)

// citationExts are the files whose text may cite documents.
var citationExts = map[string]bool{".go": true, ".md": true, ".templ": true, ".sql": true, ".mjs": true,
	".js": true, ".sh": true, ".yml": true, ".yaml": true, ".toml": true, ".service": true, "": true}

// Citations lists the document citations in the repository's tracked
// text files (generated *_templ.go excepted: they repeat their .templ).
func Citations(root string) ([]Citation, error) {
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var cites []Citation
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !citationExts[filepath.Ext(f)] || strings.HasSuffix(f, "_templ.go") || strings.Contains(f, "node_modules/") ||
			strings.HasPrefix(f, "internal/codecheck/") && strings.HasSuffix(f, "_test.go") { // its examples
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet committed
			}
			return nil, err
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		cites = append(cites, citationsIn(f, string(b))...)
	}
	return cites, nil
}

func citationsIn(file, text string) []Citation {
	var cites []Citation
	for _, m := range mdPath.FindAllStringSubmatchIndex(text, -1) {
		c := Citation{File: file, Line: strings.Count(text[:m[2]], "\n") + 1, Target: text[m[2]:m[3]]}
		if s := sectionRun.FindStringSubmatch(text[m[3]:]); s != nil {
			c.Sections = append(c.Sections, s[1])
			if s[2] != "" {
				c.Sections = append(c.Sections, s[2])
			}
		}
		cites = append(cites, c)
	}
	return cites
}

// Resolve finds the cited file as Markdown links resolve: next to the
// citing file; failing that, at the root or under docs/. It answers "" when
// none exists and an error when the name is ambiguous (both the root and
// docs/ have it).
func Resolve(root string, c Citation) (string, error) {
	exists := func(p string) bool {
		st, err := os.Stat(filepath.Join(root, p))
		return err == nil && !st.IsDir()
	}
	if p := filepath.Clean(filepath.Join(filepath.Dir(c.File), c.Target)); exists(p) {
		return p, nil
	}
	var found []string
	for _, base := range []string{".", "docs"} {
		if p := filepath.Clean(filepath.Join(base, c.Target)); exists(p) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s is ambiguous (%s): write the path", c.Target, strings.Join(found, ", "))
}

// Sections lists the numbered headings of a Markdown file ("4", "4.3").
func Sections(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	secs := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := heading.FindStringSubmatch(sc.Text()); m != nil {
			secs[m[1]] = true
		}
	}
	return secs, sc.Err()
}
