// Package oabattery reads an OpenAPI document's operations and makes the
// hostile values the bad-input batteries send to each parameter and body
// field: the in-process TestOpenAPIBattery (handlers) and the built
// binary's TestServedBattery (tests/e2e) share it, so a new route or
// filter of the served document is covered by both without anyone adding
// it (docs/reliability.md).
package oabattery

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Param is one parameter of an operation.
type Param struct {
	Name, In string
	Schema   map[string]any
}

// Op is one operation: its method, path and parameters, and the
// properties of its JSON body when it documents one (nested objects' as
// "parent.child").
type Op struct {
	Method, Path string
	Params       []Param
	Body         map[string]map[string]any
	BodyArray    bool // the body is an array of objects (POST /links/bulk)
}

// Operations lists the document's operations, sorted by path and method.
func Operations(document []byte) ([]Op, error) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	resolve := func(s map[string]any) map[string]any {
		for i := 0; i < 8; i++ {
			ref, ok := s["$ref"].(string)
			if !ok {
				break
			}
			s = doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		}
		return s
	}
	var ops []Op
	for path, methods := range doc.Paths {
		for m, raw := range methods {
			switch m {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			var o struct {
				Parameters []struct {
					Name   string         `json:"name"`
					In     string         `json:"in"`
					Schema map[string]any `json:"schema"`
				} `json:"parameters"`
				RequestBody struct {
					Content map[string]struct {
						Schema map[string]any `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("%s %s: %w", m, path, err)
			}
			op := Op{Method: strings.ToUpper(m), Path: path}
			for _, p := range o.Parameters {
				op.Params = append(op.Params, Param{p.Name, p.In, resolve(p.Schema)})
			}
			if c, ok := o.RequestBody.Content["application/json"]; ok {
				op.Body = map[string]map[string]any{}
				root := resolve(c.Schema)
				op.BodyArray = SchemaType(root) == "array"
				collectProps(root, resolve, op.Body, "")
			}
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Path+ops[i].Method < ops[j].Path+ops[j].Method })
	return ops, nil
}

// collectProps gathers the properties of a body schema (through
// allOf/anyOf/oneOf and arrays of objects), and one level of a nested
// object's as "parent.child".
func collectProps(s map[string]any, resolve func(map[string]any) map[string]any, out map[string]map[string]any, prefix string) {
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok {
			for _, x := range list {
				if m, ok := x.(map[string]any); ok {
					collectProps(resolve(m), resolve, out, prefix)
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok && prefix == "" {
		collectProps(resolve(items), resolve, out, prefix)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			m, ok := p.(map[string]any)
			if !ok {
				continue
			}
			m = resolve(m)
			out[prefix+name] = m
			if _, nested := m["properties"]; nested && prefix == "" {
				collectProps(m, resolve, out, name+".")
			}
		}
	}
}

var paramRe = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// ColonPath is a document path in the router's form ({id} → :id).
func ColonPath(p string) string { return paramRe.ReplaceAllString(p, ":$1") }

// FillPath fills a document path's parameters with the seeded ids; set
// ("name=value") replaces one of them.
func FillPath(p string, ids map[string]string, set string) string {
	name, val, _ := strings.Cut(set, "=")
	return paramRe.ReplaceAllStringFunc(p, func(m string) string {
		n := m[1 : len(m)-1]
		if n == name {
			return val
		}
		if v, ok := ids[p+" "+n]; ok {
			return v
		}
		if v, ok := ids[n]; ok {
			return v
		}
		return "abc"
	})
}

// SchemaType is a schema's type (the first of a union's).
func SchemaType(s map[string]any) string {
	if t, ok := s["type"].(string); ok {
		return t
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok && len(list) > 0 {
			if m, ok := list[0].(map[string]any); ok {
				return SchemaType(m)
			}
		}
	}
	return "string"
}

// HostileValues are the query and path values sent to one parameter.
func HostileValues(s map[string]any) []string {
	long := strings.Repeat("x", 3000)
	switch SchemaType(s) {
	case "integer", "number":
		return []string{"99999999999999999999999", "-1", "1.5", "1e400", "abc", long}
	case "boolean":
		return []string{"maybe", "1", long}
	}
	vs := []string{long, "9999-12-31", "-", ",,,", "-" + long, "zz_unknown", "0001-01-01"}
	if _, ok := s["enum"]; ok {
		vs = append(vs, "ZZ_UNKNOWN_ENUM")
	}
	return vs
}

// HostileJSON are the JSON values sent in one body field.
func HostileJSON(s map[string]any) []any {
	long := strings.Repeat("y", 3000)
	switch SchemaType(s) {
	case "integer", "number":
		return []any{json.Number("99999999999999999999999999"), -1, 1.5, json.Number("1e400"), "abc", map[string]any{}}
	case "boolean":
		return []any{"yes", 2, nil}
	case "array":
		items := make([]any, 3000)
		for i := range items {
			items[i] = "z"
		}
		return []any{items, "notanarray", []any{long, nil, 1}}
	case "object":
		return []any{"notanobject", []any{1}, map[string]any{"a": long}}
	}
	return []any{long, "9999-12-31T00:00:00Z", 123, true, []any{"a"}, map[string]any{"x": 1}, "ZZ_UNKNOWN"}
}

// BodyWith is base with field f ("parent.child" for a nested one) set to v,
// as JSON; in an array of one when array is set.
func BodyWith(base map[string]any, f string, v any, array bool) string {
	body := map[string]any{}
	for k, bv := range base {
		body[k] = bv
	}
	if parent, child, nested := strings.Cut(f, "."); nested {
		inner := map[string]any{}
		if m, ok := body[parent].(map[string]any); ok {
			for k, iv := range m {
				inner[k] = iv
			}
		}
		inner[child] = v
		body[parent] = inner
	} else {
		body[f] = v
	}
	var out any = body
	if array {
		out = []any{body}
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BaseBodies are valid bodies of the operations whose fields are checked
// after a required one (a link's url, a lead's event name …), keyed by
// "METHOD /document/path": a hostile value replaces one field at a time, so
// it reaches the check of its own field instead of the first required one.
// ids are the battery's seeded resources by parameter name ("linkId",
// "partnerId").
func BaseBodies(ids map[string]string) map[string]map[string]any {
	return map[string]map[string]any{
		"POST /links":                  {"url": "https://example.com/a"},
		"PUT /links/upsert":            {"url": "https://example.com/b"},
		"PATCH /links/{linkId}":        {"url": "https://example.com/c"},
		"PUT /links/{linkId}":          {"url": "https://example.com/c"},
		"POST /links/bulk":             {"url": "https://example.com/bulk"},
		"PATCH /links/bulk":            {"linkIds": []string{ids["linkId"]}, "data": map[string]any{"title": "bulk"}},
		"POST /track/lead":             {"clickId": "", "eventName": "Sign up", "customerExternalId": "cust_1"},
		"POST /track/sale":             {"customerExternalId": "cust_1", "amount": 100, "invoiceId": "inv_1"},
		"POST /tags":                   {"name": "t1"},
		"POST /folders":                {"name": "f1"},
		"POST /domains":                {"slug": "example.org"},
		"POST /partners":               {"name": "P", "email": "p@example.com"},
		"POST /partners/links":         {"partnerId": ids["partnerId"], "url": "https://example.com/p"},
		"PUT /partners/links/upsert":   {"partnerId": ids["partnerId"], "url": "https://example.com/p"},
		"POST /customers":              {"externalId": "x", "country": "US"},
		"POST /commissions":            {"type": "custom", "partnerId": ids["partnerId"], "amount": 100},
		"POST /discount-codes":         {"partnerId": ids["partnerId"], "linkId": ids["linkId"]},
		"POST /webhooks":               {"name": "h", "url": "https://example.com/h", "triggers": []string{"link.created"}},
		"POST /tokens/embed/referrals": {"partnerId": ids["partnerId"]},
	}
}
