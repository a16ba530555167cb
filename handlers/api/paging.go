package api

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
)

// PageSpec describes one list endpoint's paging rules.
type PageSpec struct {
	DefaultPageSize int      // e.g. 100 for links, 50 for domains
	MaxPageSize     int      // 100 unless the endpoint says otherwise
	SortBy          []string // whitelist; the first is the default
	DefaultOrder    string   // "asc" or "desc"
}

// Page is a validated page request.
type Page struct {
	Page, PageSize int
	SortBy         string
	SortOrder      string // "asc" | "desc"
}

// Offset is the number of rows before the page.
func (p Page) Offset() int { return (p.Page - 1) * p.PageSize }

// Desc reports a descending sort.
func (p Page) Desc() bool { return p.SortOrder == "desc" }

// ParsePage reads page, pageSize, sortBy and sortOrder from the query with
// the messages upstream uses (spec/links.md §1.5, spec/analytics.md §1.2).
func ParsePage(c *fiber.Ctx, spec PageSpec) (Page, error) {
	if spec.MaxPageSize == 0 {
		spec.MaxPageSize = 100
	}
	p := Page{Page: 1, PageSize: spec.DefaultPageSize, SortOrder: spec.DefaultOrder}
	if p.SortOrder == "" {
		p.SortOrder = "desc"
	}
	if len(spec.SortBy) > 0 {
		p.SortBy = spec.SortBy[0]
	}
	if v := Query(c, "page"); v != "" {
		n, err := parseCount(v, "page", "Page")
		if err != nil {
			return p, err
		}
		p.Page = n
	}
	if v := Query(c, "pageSize"); v != "" {
		n, err := parseCount(v, "pageSize", "Page size")
		if err != nil {
			return p, err
		}
		if n > spec.MaxPageSize {
			return p, apierr.Validation("too_big", "pageSize", fmt.Sprintf("Max page size is %d.", spec.MaxPageSize))
		}
		p.PageSize = n
	}
	if v := Query(c, "sortBy"); v != "" {
		if !contains(spec.SortBy, v) {
			return p, apierr.Validation("invalid_value", "sortBy", "Invalid option: expected one of "+request.Options(spec.SortBy))
		}
		p.SortBy = v
	}
	if v := Query(c, "sortOrder"); v != "" {
		if v != "asc" && v != "desc" {
			return p, apierr.Validation("invalid_value", "sortOrder", `Invalid option: expected one of "asc"|"desc"`)
		}
		p.SortOrder = v
	}
	return p, nil
}

func parseCount(v, field, label string) (int, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, apierr.Validation("invalid_type", field, label+" must be a number.")
	}
	if f != float64(int64(f)) {
		return 0, apierr.Validation("invalid_type", field, label+" must be an integer.")
	}
	if f < 1 {
		return 0, apierr.Validation("too_small", field, label+" must be greater than 0.")
	}
	if f > 1e9 {
		return 0, apierr.Validation("too_big", field, label+" is too large.")
	}
	return int(f), nil
}

// options formats a whitelist as zod does: "a"|"b".
func contains(vals []string, v string) bool {
	for _, x := range vals {
		if x == v {
			return true
		}
	}
	return false
}
