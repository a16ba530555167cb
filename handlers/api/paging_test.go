package api_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/api"
	"github.com/relinkhq/relink/internal/apierr"
)

// parsePage runs api.ParsePage on a real Fiber request with query q.
func parsePage(t *testing.T, spec api.PageSpec, q string) (api.Page, error) {
	t.Helper()
	var page api.Page
	var perr error
	app := fiber.New()
	app.Get("/", func(c *fiber.Ctx) error {
		page, perr = api.ParsePage(c, spec)
		return nil
	})
	res, err := app.Test(httptest.NewRequest("GET", "/?"+q, nil))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return page, perr
}

func TestParsePage(t *testing.T) {
	links := api.PageSpec{DefaultPageSize: 100, SortBy: []string{"createdAt", "clicks", "saleAmount", "lastClicked"}}
	tags := api.PageSpec{DefaultPageSize: 100, SortBy: []string{"name", "createdAt"}, DefaultOrder: "asc"}
	domains := api.PageSpec{DefaultPageSize: 50, MaxPageSize: 50}
	cases := []struct {
		name string
		spec api.PageSpec
		q    string
		want api.Page
		err  string // exact 422 message
	}{
		{"defaults", links, "", api.Page{Page: 1, PageSize: 100, SortBy: "createdAt", SortOrder: "desc"}, ""},
		{"defaults asc", tags, "", api.Page{Page: 1, PageSize: 100, SortBy: "name", SortOrder: "asc"}, ""},
		{"all set", links, "page=3&pageSize=20&sortBy=clicks&sortOrder=asc", api.Page{Page: 3, PageSize: 20, SortBy: "clicks", SortOrder: "asc"}, ""},
		{"max page size", links, "pageSize=100", api.Page{Page: 1, PageSize: 100, SortBy: "createdAt", SortOrder: "desc"}, ""},
		{"integral float", links, "page=2.0", api.Page{Page: 2, PageSize: 100, SortBy: "createdAt", SortOrder: "desc"}, ""},
		{"repeated key: last wins", links, "page=2&page=5", api.Page{Page: 5, PageSize: 100, SortBy: "createdAt", SortOrder: "desc"}, ""},
		{"page=0", links, "page=0", api.Page{}, "too_small: page: Page must be greater than 0."},
		{"page=-1", links, "page=-1", api.Page{}, "too_small: page: Page must be greater than 0."},
		{"page=abc", links, "page=abc", api.Page{}, "invalid_type: page: Page must be a number."},
		{"page=NaN", links, "page=NaN", api.Page{}, "invalid_type: page: Page must be a number."},
		{"page=Infinity", links, "page=Infinity", api.Page{}, "invalid_type: page: Page must be a number."},
		{"page=1.5", links, "page=1.5", api.Page{}, "invalid_type: page: Page must be an integer."},
		{"pageSize=101", links, "pageSize=101", api.Page{}, "too_big: pageSize: Max page size is 100."},
		{"pageSize=51 on domains", domains, "pageSize=51", api.Page{}, "too_big: pageSize: Max page size is 50."},
		{"pageSize=0", links, "pageSize=0", api.Page{}, "too_small: pageSize: Page size must be greater than 0."},
		{"pageSize=x", links, "pageSize=x", api.Page{}, "invalid_type: pageSize: Page size must be a number."},
		{"sortBy not whitelisted", links, "sortBy=name", api.Page{}, `invalid_value: sortBy: Invalid option: expected one of "createdAt"|"clicks"|"saleAmount"|"lastClicked"`},
		{"sortBy is case-sensitive", tags, "sortBy=Name", api.Page{}, `invalid_value: sortBy: Invalid option: expected one of "name"|"createdAt"`},
		{"sortOrder=up", tags, "sortOrder=up", api.Page{}, `invalid_value: sortOrder: Invalid option: expected one of "asc"|"desc"`},
		{"page checked before pageSize", links, "pageSize=101&page=0", api.Page{}, "too_small: page: Page must be greater than 0."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parsePage(t, c.spec, c.q)
			if c.err != "" {
				e, ok := err.(*apierr.Error)
				if !ok {
					t.Fatalf("error %v (%T), want *apierr.Error", err, err)
				}
				if e.Code != apierr.Unprocessable || e.Status() != 422 || e.Message != c.err {
					t.Fatalf("got %s %d %q,\nwant 422 %q", e.Code, e.Status(), e.Message, c.err)
				}
				if e.Doc() != "https://dub.co/docs/api-reference/errors#unprocessable-entity" {
					t.Fatalf("doc_url %s", e.Doc())
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
	t.Run("offset", func(t *testing.T) {
		p, _ := parsePage(t, links, "page=3&pageSize=20")
		if p.Offset() != 40 || !p.Desc() {
			t.Fatalf("offset %d desc %v", p.Offset(), p.Desc())
		}
	})
}
