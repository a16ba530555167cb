package codecheck

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PathLiteral is a literal URL path written in code.
type PathLiteral struct {
	File string // slash-separated, relative to the root
	Line int
	Text string
}

func (l PathLiteral) String() string { return fmt.Sprintf("%s:%d %s", l.File, l.Line, l.Text) }

// PathLiterals lists the literal paths under prefix (a path such as
// "/console") written in the non-test .go and .templ files of paths
// (files, or directories walked recursively, relative to root), except
// under the directories in skip: a Go string literal that starts with the
// path or holds it quoted (an attribute in templ's generated HTML), and in
// a .templ file the path quoted ("/console", "/console/…", '/console?…').
// Import paths and comments are not looked at.
func PathLiterals(root, prefix string, skip []string, paths ...string) ([]PathLiteral, error) {
	var out []PathLiteral
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[filepath.Join(root, s)] = true
	}
	for _, p := range paths {
		err := filepath.WalkDir(filepath.Join(root, p), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && skipped[path] {
				return filepath.SkipDir
			}
			if d.IsDir() || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			var found []PathLiteral
			switch {
			case strings.HasSuffix(path, ".go"):
				found, err = goPathLiterals(path, rel, prefix)
			case strings.HasSuffix(path, ".templ"):
				found, err = templPathLiterals(path, rel, prefix)
			}
			out = append(out, found...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// pathRegexp matches the path prefix, or a path below it, at the start of a
// string or just after a quote.
func pathRegexp(prefix string) *regexp.Regexp {
	return regexp.MustCompile("(^|[\"'`])" + regexp.QuoteMeta(prefix) + "($|[/?#\"'`])")
}

func goPathLiterals(path, rel, prefix string) ([]PathLiteral, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	imports := map[*ast.BasicLit]bool{}
	for _, im := range f.Imports {
		imports[im.Path] = true
	}
	re := pathRegexp(prefix)
	var out []PathLiteral
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || imports[lit] {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if re.MatchString(s) {
			out = append(out, PathLiteral{File: rel, Line: fset.Position(lit.Pos()).Line, Text: lit.Value})
		}
		return true
	})
	return out, nil
}

func templPathLiterals(path, rel, prefix string) ([]PathLiteral, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	re := pathRegexp(prefix)
	var out []PathLiteral
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "//") {
			continue
		}
		if m := re.FindStringIndex(line); m != nil && m[0] > 0 {
			out = append(out, PathLiteral{File: rel, Line: n, Text: strings.TrimSpace(line)})
		}
	}
	return out, sc.Err()
}
