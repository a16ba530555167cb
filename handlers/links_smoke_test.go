package handlers_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestLinksSmoke(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanBusiness)
		r := e.ok(200, "acme", "POST", "/links", `{"url":"https://example.com","key":"hello","tagNames":[]}`)
		t.Logf("%s", r.body)
		r = e.ok(200, "acme", "GET", "/links", ``)
		t.Logf("%s", r.body)
	})
}
