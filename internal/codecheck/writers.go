package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// writeVerb matches the names of models.DB's methods that change data.
var writeVerb = regexp.MustCompile(`^(Updates|Exec|CreateInBatches|UpdateColumns?|Create|Save|Update|Delete|Insert|Set|Add|Remove|Revoke|Rotate|Confirm|Complete|Fail|Accept|Ban|Archive|Upsert|Record|Mark|Approve|Reject|Enroll|Open|Refund|Void|Purge|Trim|Touch)([A-Z]|$)`)

// ModelWrite is a call of a models.DB write method.
type ModelWrite struct {
	File   string // slash-separated, relative to the root
	Line   int
	Method string
}

func (w ModelWrite) String() string { return fmt.Sprintf("%s:%d %s", w.File, w.Line, w.Method) }

// ModelWrites lists, in the non-test Go files of dirs (relative to root,
// not recursive; an entry ending in .go is that one file), the calls of a write method (writeVerb) on a value
// named db or DB (h.db.SaveGroup, p.db.SetGroupReward, db.CreateLink, s.DB.…):
// the faces and commands that must change data through a service. It is a
// syntactic check: a *models.DB held under another name is not seen.
func ModelWrites(root string, dirs ...string) ([]ModelWrite, error) {
	var out []ModelWrite
	fset := token.NewFileSet()
	for _, dir := range dirs {
		var names []string
		if strings.HasSuffix(dir, ".go") { // one file
			dir, names = filepath.Dir(dir), []string{filepath.Base(dir)}
		} else {
			entries, err := os.ReadDir(filepath.Join(root, dir))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", dir, err)
			}
			for _, e := range entries {
				if !e.IsDir() {
					names = append(names, e.Name())
				}
			}
		}
		for _, name := range names {
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			path := filepath.Join(root, dir, name)
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return nil, fmt.Errorf("parse %s: %w", path, err)
			}
			if Generated(path, f) {
				continue
			}
			rel := filepath.ToSlash(filepath.Join(dir, name))
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !writeVerb.MatchString(sel.Sel.Name) || !fromDB(sel.X) {
					return true
				}
				out = append(out, ModelWrite{File: rel, Line: fset.Position(call.Pos()).Line, Method: sel.Sel.Name})
				return true
			})
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

// fromDB reports an expression that is the database or a chain of calls
// on it (h.db, db.WithContext(ctx).Model(&x).Where(…)): gorm's own
// Create, Updates, Delete and Exec on such a chain are writes too.
func fromDB(e ast.Expr) bool {
	for {
		if isDB(e) {
			return true
		}
		switch x := e.(type) {
		case *ast.CallExpr:
			e = x.Fun
		case *ast.SelectorExpr:
			e = x.X
		default:
			return false
		}
	}
}

// isDB reports an expression naming the database: db, DB, x.db, x.DB.
func isDB(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "db" || x.Name == "DB"
	case *ast.SelectorExpr:
		return x.Sel.Name == "db" || x.Sel.Name == "DB"
	}
	return false
}
