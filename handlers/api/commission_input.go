package api

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/input"
)

// cents reads a centsSchema field: a number, or a string or bigint coerced
// to one (spec/parity.md §2.1). Fractions are refused (§2.7: Relink's choice).
func cents(o *input.Object, name string, required bool) *int64 {
	r, ok := o.Present(name)
	if !ok {
		if required {
			o.Fail("invalid_type", name, "Invalid input: expected number, received "+input.Kind(o.Field(name)))
		}
		return nil
	}
	if input.Kind(r) == "string" {
		var s string
		_ = json.Unmarshal(r, &s)
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			o.Fail("invalid_type", name, "Invalid input: expected number, received NaN")
			return nil
		}
		r = json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64))
		o.Replace(name, r)
	}
	return o.Int(name, input.Num{Required: required})
}

// date reads a parseDateSchema field: ISO 8601 date-times and dates.
func date(o *input.Object, name string) *time.Time {
	s := o.Str(name, input.Str{Trim: true}).Ptr()
	if s == nil {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, *s); err == nil {
			t = t.UTC()
			return &t
		}
	}
	o.Fail("custom", name, "Invalid date")
	return nil
}

func nonBlank(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	return s
}

// stringArray reads a required array of strings.
func stringArray(o *input.Object, name string) []string {
	r, ok := o.Present(name)
	if !ok {
		o.Fail("invalid_type", name, "Invalid input: expected array, received "+input.Kind(o.Field(name)))
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(r, &raw); err != nil {
		o.Fail("invalid_type", name, "Invalid input: expected array, received "+input.Kind(r))
		return nil
	}
	out := make([]string, 0, len(raw))
	for i, item := range raw {
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			o.Fail("invalid_type", name+"["+strconv.Itoa(i)+"]", "Invalid input: expected string, received "+input.Kind(item))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func unique(v []string) bool {
	seen := map[string]bool{}
	for _, s := range v {
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}
