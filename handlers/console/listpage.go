package console

import (
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	vc "github.com/relinkhq/relink/views/console"
)

// Every console list pages the same way: ?page=N (from 1) of listPageSize
// rows, a count ("1–50 of 2,114"), and previous/next links that keep the
// list's other parameters (filters, sort) as they are in the URL.

// listPageSize is the rows of one page of a console table.
const listPageSize = 50

// maxListPage bounds ?page (deeper pages are what a filter is for).
const maxListPage = 1000

// listPage is the page a request asks for.
type listPage struct {
	Page, Size int
}

// Offset is the rows before the page.
func (p listPage) Offset() int { return (p.Page - 1) * p.Size }

// pageOf reads ?page (1 when absent or invalid, at most maxListPage).
func pageOf(c *fiber.Ctx, size int) listPage {
	n, _ := strconv.Atoi(c.Query("page"))
	return listPage{Page: min(max(n, 1), maxListPage), Size: size}
}

// withParam is the list at path with the request's query, key set to value
// (removed when value is ""), without page: a new filter or sort starts at
// page 1. (The path is explicit: a form post re-renders a list page from
// another path.)
func withParam(c *fiber.Ctx, path, key, value string) string {
	vals := request.QueryValues(c)
	vals.Del("page")
	if value == "" {
		vals.Del(key)
	} else {
		vals.Set(key, value)
	}
	return pathWith(path, vals)
}

// pathWith joins a path and the non-empty parameters of vals.
func pathWith(path string, vals url.Values) string {
	for k, vs := range vals {
		if len(vs) == 0 || vs[len(vs)-1] == "" {
			vals.Del(k)
		}
	}
	if len(vals) == 0 {
		return path
	}
	return path + "?" + vals.Encode()
}

// pagerFor is the pager of page p showing shown rows of total, for the list
// at path; its links keep the request's other parameters.
func pagerFor(c *fiber.Ctx, path string, p listPage, shown int, total int64) *vc.Pager {
	pg := &vc.Pager{From: p.Offset() + 1, To: p.Offset() + shown, Total: total}
	at := func(n int) string {
		vals := request.QueryValues(c)
		vals.Del("page")
		if n > 1 {
			vals.Set("page", strconv.Itoa(n))
		}
		return pathWith(path, vals)
	}
	if p.Page > 1 {
		pg.PrevURL = at(p.Page - 1)
	}
	if int64(p.Page*p.Size) < total && p.Page < maxListPage {
		pg.NextURL = at(p.Page + 1)
	}
	return pg
}

// sortLinks are a list's orders as links; the current one is sort, or the
// first when sort names none of them. It returns the chosen value.
func sortLinks(c *fiber.Ctx, v *vc.TablePage, path, sort string, opts ...[2]string) string {
	chosen := opts[0][0]
	for _, o := range opts {
		if o[0] == sort {
			chosen = sort
		}
	}
	for i, o := range opts {
		val := o[0]
		if i == 0 {
			val = "" // the default order has the shorter URL
		}
		v.Sorts = append(v.Sorts, vc.FilterLink{Label: o[1], Href: withParam(c, path, "sort", val), Current: o[0] == chosen})
	}
	return chosen
}

// statusFilters are a list's status tabs ("All" first); they keep the sort.
func statusFilters(c *fiber.Ctx, v *vc.TablePage, path, current string, statuses ...string) {
	v.Filters = append(v.Filters, vc.FilterLink{Label: "All", Href: withParam(c, path, "status", ""), Current: current == ""})
	for _, s := range statuses {
		v.Filters = append(v.Filters, vc.FilterLink{Label: s, Href: withParam(c, path, "status", s), Current: current == s})
	}
}
