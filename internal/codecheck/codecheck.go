// Package codecheck holds the tree's structural rules as code, run by
// `make lint` and `make test`: no hand-written function over MaxLines
// lines, and faces that do not import one another (docs/architecture.md).
package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// MaxLines is the longest a hand-written function may be.
const MaxLines = 120

// Func is one function declaration.
type Func struct {
	File  string // slash-separated, relative to the root
	Line  int
	Name  string // Func or (Recv).Method
	Lines int
}

// ID is the function's file and name, stable across edits elsewhere in
// the file.
func (f Func) ID() string { return f.File + " " + f.Name }

func (f Func) String() string {
	return fmt.Sprintf("%s:%d %s (%d lines)", f.File, f.Line, f.Name, f.Lines)
}

// skipDir reports directories that hold no hand-written Go of the project.
func skipDir(name string) bool {
	return name == "node_modules" || name == "testdata" || (strings.HasPrefix(name, ".") && name != ".")
}

// Generated reports files that are generated (templ's output, or any file
// carrying Go's "Code generated … DO NOT EDIT." header).
func Generated(path string, f *ast.File) bool {
	if strings.HasSuffix(path, "_templ.go") {
		return true
	}
	return ast.IsGenerated(f)
}

// LongFunctions lists the function declarations under root longer than
// max lines (from `func` to the closing brace), longest first.
func LongFunctions(root string, max int) ([]Func, error) {
	var out []Func
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		if Generated(path, f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := end - start + 1; n > max {
				out = append(out, Func{File: filepath.ToSlash(rel), Line: start, Name: funcName(fn), Lines: n})
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Lines != out[j].Lines {
			return out[i].Lines > out[j].Lines
		}
		return out[i].ID() < out[j].ID()
	})
	return out, err
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + typeName(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return "*" + typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	}
	return "?"
}

// Imports returns the import paths of the non-test Go files in dir.
func Imports(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", p, err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			seen[path] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
