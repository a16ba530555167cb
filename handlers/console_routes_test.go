package handlers_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console"
	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/testdb"
)

// TestConsoleRouteTable: every entry of the console's route table
// (handlers/console/route) is mounted on the app face with its method and
// pattern, and has its handler; every handler of console.Handlers has an
// entry (the middleware excepted), so a page cannot be served without a
// name to build its URL from.
func TestConsoleRouteTable(t *testing.T) {
	db := testdb.Open(t, "sqlite")
	s := newServer(t, db, env{})
	mounted := map[string]bool{}
	for _, r := range s.Face(request.FaceApp).GetRoutes(true) {
		mounted[r.Method+" "+strings.TrimSuffix(r.Path, "/")] = true
	}
	h := console.New(console.Deps{Config: s.Services().Config})
	named := map[string]bool{}
	for _, r := range route.Table {
		named[string(r.Name)] = true
		if !mounted[r.Method+" "+r.Pattern] {
			t.Errorf("route %s (%s %s) is not mounted on the app face", r.Name, r.Method, r.Pattern)
		}
		if _, err := h.Handler(r.Name); err != nil {
			t.Error(err)
		}
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			t.Errorf("route %s: method %s (the console's forms send GET and POST)", r.Name, r.Method)
		}
		if (r.Access == route.Open) == strings.HasPrefix(r.Pattern, route.Prefix) {
			t.Errorf("route %s (%s): Open routes and only they are outside %s", r.Name, r.Pattern, route.Prefix)
		}
	}
	middleware := map[string]bool{"Session": true, "RequireUser": true, "RequireOwner": true}
	handler := reflect.TypeOf((fiber.Handler)(nil))
	ht := reflect.TypeOf(h)
	for i := range ht.NumMethod() {
		m := ht.Method(i)
		if m.Type.NumIn() == 2 && m.Type.NumOut() == 1 && m.Type.In(1) == handler.In(0) && m.Type.Out(0) == handler.Out(0) &&
			!middleware[m.Name] && !named[m.Name] {
			t.Errorf("console handler %s has no entry in route.Table", m.Name)
		}
	}
}
