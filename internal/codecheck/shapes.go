package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

// WireTag is a struct field whose JSON key marks a Dub object.
type WireTag struct {
	File string // slash-separated, relative to the root
	Line int
	Key  string
}

func (w WireTag) String() string { return fmt.Sprintf("%s:%d json:%q", w.File, w.Line, w.Key) }

// WireTags lists, in the non-test, non-generated Go files below root
// outside the skipped directories (slash-separated, relative to root), the
// struct fields tagged with one of keys: the keys only Dub's objects carry
// (a link's shortLink and qrCode), which internal/wire alone writes.
func WireTags(root string, skip []string, keys ...string) ([]WireTag, error) {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var out []WireTag
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, s := range skip {
				if rel == s {
					return filepath.SkipDir
				}
			}
			if rel != "." && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		if Generated(path, f) {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil {
				return true
			}
			tag, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return true
			}
			key, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			if want[key] {
				out = append(out, WireTag{File: rel, Line: fset.Position(field.Pos()).Line, Key: key})
			}
			return true
		})
		return nil
	})
	return out, err
}
