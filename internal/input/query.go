package input

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
)

// Query reads zod-style query-string parameters (GET /analytics, /events):
// a repeated key's last value wins, unknown keys are ignored, and issues
// are 422s in the same "issue: path: message" form as bodies.
type Query struct{ Vals url.Values }

// Get returns the last value of key and whether the key was sent.
func (q Query) Get(key string) (string, bool) {
	vs, ok := q.Vals[key]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// Str is the last value of key ("" when absent).
func (q Query) Str(key string) string {
	v, _ := q.Get(key)
	return v
}

// Enum is key's value limited to options ("" when absent).
func (q Query) Enum(key string, options []string) (string, error) {
	v, ok := q.Get(key)
	if !ok {
		return "", nil
	}
	for _, o := range options {
		if v == o {
			return v, nil
		}
	}
	return "", apierr.Validation("invalid_value", key, "Invalid option: expected one of "+QuoteOptions(options))
}

// Bool reads "true"/"false" (any case); nil when absent.
func (q Query) Bool(key string) (*bool, error) {
	v, ok := q.Get(key)
	if !ok {
		return nil, nil
	}
	switch strings.ToLower(v) {
	case "true":
		b := true
		return &b, nil
	case "false":
		b := false
		return &b, nil
	}
	return nil, apierr.Validation("invalid_value", key, `Invalid option: expected one of "true"|"false"`)
}

// PositiveInt coerces v like JavaScript's Number() (surrounding whitespace
// ignored, "" is 0) and requires a whole number in [1, 1e9]; label names the
// field in the messages ("Page must be a number.").
func PositiveInt(v, field, label string) (int, error) {
	s := strings.TrimSpace(v)
	f := 0.0
	if s != "" {
		var err error
		f, err = strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(s, "xXpP_nN") {
			return 0, apierr.Validation("invalid_type", field, label+" must be a number.")
		}
	}
	if f != math.Trunc(f) {
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
