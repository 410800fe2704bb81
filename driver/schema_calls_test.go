package driver_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// schemaFreeQueries are the generated queries that name no schema object.
var schemaFreeQueries = map[string]bool{"BackendPID": true}

// TestEveryGeneratedQueryRunsOnTheDriversSchema: each call of a generated
// query (x.q.Name(ctx, db, ...)) passes its handle through the Driver's on(),
// which rewrites the query for the Driver's schema; a call without it would
// run in schema awa whatever Config.Schema says.
func TestEveryGeneratedQueryRunsOnTheDriversSchema(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	calls := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			q, ok := sel.X.(*ast.SelectorExpr)
			if !ok || q.Sel.Name != "q" || schemaFreeQueries[sel.Sel.Name] {
				return true
			}
			calls++
			if len(call.Args) < 2 {
				t.Errorf("%s: %s called with %d arguments", fset.Position(call.Pos()), sel.Sel.Name, len(call.Args))
				return true
			}
			on, ok := call.Args[1].(*ast.CallExpr)
			var fn *ast.SelectorExpr
			if ok {
				fn, ok = on.Fun.(*ast.SelectorExpr)
			}
			if !ok || fn.Sel.Name != "on" {
				t.Errorf("%s: the generated query %s runs on a handle not passed through on(): it would ignore the Driver's schema",
					fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if calls < 30 {
		t.Fatalf("found %d calls of generated queries: the scan is broken", calls)
	}
}
