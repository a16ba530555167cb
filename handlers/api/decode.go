package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/apierr"
)

// object reads typed fields from one JSON object body and keeps the first
// schema issue in zod's "issue: path: message" form (partners-and-embed.md
// §0.3). Unknown keys are ignored. Callers read fields in the upstream
// schema's order so the first issue reported is upstream's.
type object struct {
	m      map[string]json.RawMessage
	prefix string
	err    error
}

// decodeObject parses a body: malformed JSON is a 400, anything but an
// object a 422; an empty body counts as {}.
func decodeObject(body []byte) (*object, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	var raw json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err,
			"Invalid JSON format in request body. Please ensure the request body is a valid JSON object.")
	}
	return objectAt(raw, "")
}

// objectAt parses a nested object whose issues are reported under prefix.
func objectAt(raw json.RawMessage, prefix string) (*object, error) {
	if k := kindOf(raw); k != "object" {
		return nil, apierr.Validation("invalid_type", prefix, "Invalid input: expected object, received "+k)
	}
	o := &object{prefix: prefix}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err,
			"Invalid JSON format in request body. Please ensure the request body is a valid JSON object.")
	}
	return o, nil
}

func kindOf(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "undefined"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func (o *object) path(name string) string {
	if o.prefix == "" {
		return name
	}
	return o.prefix + "." + name
}

func (o *object) fail(issue, name, msg string) {
	if o.err == nil {
		o.err = apierr.Validation(issue, o.path(name), msg)
	}
}

// raw returns the field's JSON and whether it is present and not null.
func (o *object) raw(name string) (json.RawMessage, bool) {
	r, ok := o.m[name]
	if !ok || kindOf(r) == "null" {
		return nil, false
	}
	return r, true
}

// has reports whether the key is present (null included).
func (o *object) has(name string) bool {
	_, ok := o.m[name]
	return ok
}

// strOpts are a string field's rules.
type strOpts struct {
	required bool
	reqMsg   string // message for a missing required field
	trim     bool
	min, max int // in characters; 0 = no limit
	minMsg   string
	email    bool
	url      bool
	lower    bool
}

// maxIdentifier is the documented limit (docs/reliability.md) of a string
// field the spec leaves unbounded.
const maxIdentifier = 255

// str reads a string field; nil when absent or null.
func (o *object) str(name string, opt strOpts) *string {
	r, ok := o.raw(name)
	if !ok {
		if opt.required {
			msg := opt.reqMsg
			if msg == "" {
				msg = "Invalid input: expected string, received " + kindOf(o.m[name])
			}
			o.fail("invalid_type", name, msg)
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		o.fail("invalid_type", name, "Invalid input: expected string, received "+kindOf(r))
		return nil
	}
	if opt.trim {
		s = strings.TrimSpace(s)
	}
	if opt.lower {
		s = strings.ToLower(s)
	}
	if opt.max == 0 && !opt.url {
		// Identifiers the spec gives no limit (invoiceId, clickId,
		// customerExternalId on the main route, tenantId, …) are indexed:
		// PostgreSQL refuses a btree row over 2,704 bytes, so an unbounded
		// one was a 500 (issue 15). 255 characters is at most 1,020 bytes.
		opt.max = maxIdentifier
	}
	n := utf8.RuneCountInString(s)
	switch {
	case opt.min > 0 && n < opt.min:
		msg := opt.minMsg
		if msg == "" {
			msg = fmt.Sprintf("Too small: expected string to have >=%d characters", opt.min)
		}
		o.fail("too_small", name, msg)
	case opt.max > 0 && n > opt.max:
		o.fail("too_big", name, fmt.Sprintf("Too big: expected string to have <=%d characters", opt.max))
	case opt.email && !validEmail(s):
		o.fail("invalid_format", name, "Invalid email address")
	case opt.url && !validURL(s):
		o.fail("invalid_format", name, "Invalid URL")
	}
	return &s
}

func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@"):], ".")
}

func validURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// enum reads a string field limited to options; def when absent or null.
func (o *object) enum(name string, options []string, def string) string {
	s := o.str(name, strOpts{})
	if s == nil {
		return def
	}
	for _, v := range options {
		if *s == v {
			return v
		}
	}
	o.fail("invalid_value", name, "Invalid option: expected one of "+quoteOptions(options))
	return def
}

func quoteOptions(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, "|")
}

// intOpts are an integer field's rules.
type intOpts struct {
	required       bool
	reqMsg         string
	min, max       *int64
	minMsg, maxMsg string
}

func bound(v int64) *int64 { return &v }

// integer reads an integer field; nil when absent or null.
func (o *object) integer(name string, opt intOpts) *int64 {
	r, ok := o.raw(name)
	if !ok {
		if opt.required {
			msg := opt.reqMsg
			if msg == "" {
				msg = "Invalid input: expected number, received " + kindOf(o.m[name])
			}
			o.fail("invalid_type", name, msg)
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(r, &f); err != nil {
		o.fail("invalid_type", name, "Invalid input: expected number, received "+kindOf(r))
		return nil
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		o.fail("invalid_type", name, "Invalid input: expected int, received number")
		return nil
	}
	v := int64(f)
	switch {
	case opt.min != nil && v < *opt.min:
		msg := opt.minMsg
		if msg == "" {
			msg = fmt.Sprintf("Too small: expected number to be >=%d", *opt.min)
		}
		o.fail("too_small", name, msg)
	case opt.max != nil && v > *opt.max:
		msg := opt.maxMsg
		if msg == "" {
			msg = fmt.Sprintf("Too big: expected number to be <=%d", *opt.max)
		}
		o.fail("too_big", name, msg)
	}
	return &v
}

// MaxMetadata is the longest serialised metadata accepted.
const MaxMetadata = 10000

// metadata reads an object field stored as event metadata.
func (o *object) metadata(name string) map[string]any {
	r, ok := o.raw(name)
	if !ok {
		return nil
	}
	if kindOf(r) != "object" {
		o.fail("invalid_type", name, "Invalid input: expected record, received "+kindOf(r))
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(r, &m); err != nil {
		o.fail("invalid_type", name, "Invalid input: expected record, received "+kindOf(r))
		return nil
	}
	b, _ := json.Marshal(m)
	if utf8.RuneCount(b) > MaxMetadata {
		o.fail("custom", name, fmt.Sprintf("Metadata must be less than %d characters", MaxMetadata))
		return nil
	}
	return m
}

// child reads a nested object field; nil when absent or null.
func (o *object) child(name string) *object {
	r, ok := o.raw(name)
	if !ok {
		return nil
	}
	c, err := objectAt(r, o.path(name))
	if err != nil {
		if o.err == nil {
			o.err = err
		}
		return nil
	}
	return c
}
