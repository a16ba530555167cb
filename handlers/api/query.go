package api

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
)

// Query reads a query parameter as upstream does: a repeated key keeps its
// last value (spec/links.md §1.2).
func Query(c *fiber.Ctx, name string) string {
	vals := c.Context().QueryArgs().PeekMulti(name)
	if len(vals) == 0 {
		return ""
	}
	return string(vals[len(vals)-1])
}

// QueryList splits a comma-joined query parameter (explode=false arrays),
// trimming items and dropping empties.
func QueryList(c *fiber.Ctx, name string) []string {
	var out []string
	for _, s := range strings.Split(Query(c, name), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// QueryBool accepts only the literal strings true and false (422 otherwise).
func QueryBool(c *fiber.Ctx, name string, def bool) (bool, error) {
	switch Query(c, name) {
	case "":
		return def, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, apierr.Validation("invalid_value", name, `Invalid option: expected one of "true"|"false"`)
}

// Param is a path parameter, percent-decoded ("ext_a%20b%2Fc" → "ext_a b/c").
func Param(c *fiber.Ctx, name string) string {
	p := c.Params(name)
	if d, err := url.PathUnescape(p); err == nil {
		return d
	}
	return p
}
