// Package input is the one reader of zod-style JSON request bodies (links,
// conversions, partners, customers, commissions). An Object reads typed
// fields in the upstream schema's order and keeps the FIRST issue in zod's
// "issue: path: message" form (spec/links.md §1.5, spec/partners-and-embed.md §0.3);
// unknown keys are ignored. Malformed JSON is a 400, anything else a 422.
package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/apierr"
)

// Field is a decoded optional field: Set when the key was present, Null
// when it was null (or a nullable empty string).
type Field[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Has reports a present, non-null value.
func (f Field[T]) Has() bool { return f.Set && !f.Null }

// Ptr returns a pointer to the value, or nil when absent or null.
func (f Field[T]) Ptr() *T {
	if !f.Has() {
		return nil
	}
	v := f.Value
	return &v
}

// Value wraps a present value.
func Value[T any](v T) Field[T] { return Field[T]{Set: true, Value: v} }

// Null is a present null.
func Null[T any]() Field[T] { return Field[T]{Set: true, Null: true} }

// MsgBadJSON is the 400 message of a body that is not JSON.
const MsgBadJSON = "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."

// Object reads one JSON object.
type Object struct {
	m      map[string]json.RawMessage
	prefix string
	err    error
	// nullish: every field is .nullish() (null reads as absent), the
	// conversion and program schemas; otherwise null is a value that only
	// Nullable fields accept, as in the link schema.
	nullish bool
}

// Raw parses a body into raw JSON (empty body: {}); malformed JSON is a 400.
func Raw(body []byte) (json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	var raw json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err, MsgBadJSON)
	}
	return raw, nil
}

// Decode parses a body that must be one object.
func Decode(body []byte) (*Object, error) {
	raw, err := Raw(body)
	if err != nil {
		return nil, err
	}
	return At(raw, "")
}

// DecodeNullish is Decode for schemas whose fields are all nullish.
func DecodeNullish(body []byte) (*Object, error) {
	o, err := Decode(body)
	if o != nil {
		o.nullish = true
	}
	return o, err
}

// At parses a nested object whose issues are reported under prefix.
func At(raw json.RawMessage, prefix string) (*Object, error) {
	if k := Kind(raw); k != "object" {
		return nil, apierr.Validation("invalid_type", prefix, "Invalid input: expected object, received "+k)
	}
	o := &Object{prefix: prefix}
	if err := json.Unmarshal(raw, &o.m); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err, MsgBadJSON)
	}
	return o, nil
}

// Kind names a JSON value's type as zod does ("undefined" when absent).
func Kind(raw json.RawMessage) string {
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

// Err is the first issue (nil when none).
func (o *Object) Err() error { return o.err }

// SetErr records err as the issue unless one is already recorded.
func (o *Object) SetErr(err error) {
	if o.err == nil {
		o.err = err
	}
}

// Path is name's issue path under the object's prefix.
func (o *Object) Path(name string) string {
	if o.prefix == "" {
		return name
	}
	return o.prefix + "." + name
}

// Fail records an issue on name unless one is already recorded.
func (o *Object) Fail(issue, name, msg string) {
	if o.err == nil {
		o.err = apierr.Validation(issue, o.Path(name), msg)
	}
}

// TypeErr records "Invalid input: expected want, received <kind>".
func (o *Object) TypeErr(name, want string, raw json.RawMessage) {
	o.Fail("invalid_type", name, "Invalid input: expected "+want+", received "+Kind(raw))
}

// Get returns the field's raw JSON and whether the key is present.
func (o *Object) Get(name string) (json.RawMessage, bool) {
	r, ok := o.m[name]
	return r, ok
}

// Has reports whether the key is present (null included).
func (o *Object) Has(name string) bool {
	_, ok := o.m[name]
	return ok
}

// Present returns the raw value when present and (for a nullish object)
// not null.
func (o *Object) Present(name string) (json.RawMessage, bool) {
	r, ok := o.m[name]
	if ok && o.nullish && Kind(r) == "null" {
		return nil, false
	}
	return r, ok
}

// JSLen is a string's length as JavaScript (and zod) counts it: UTF-16 code
// units.
func JSLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// FmtNum formats a bound as JavaScript prints it.
func FmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// QuoteOptions is zod's enum list: "a"|"b".
func QuoteOptions(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, "|")
}

// Check is a string format rule: the issue and message when ok is false.
type Check struct {
	OK      func(string) bool
	Issue   string
	Message string
}

// MaxIdentifier is the documented limit (docs/reliability.md) of an
// identifier or short text field the spec leaves unbounded (invoiceId,
// clickId, customerExternalId on the main route, tenantId, …). Such fields
// are indexed, and PostgreSQL refuses a btree row over 2,704 bytes: an
// unbounded one was a 500 (issue 15). 255 characters are at most 1,020
// bytes.
const MaxIdentifier = 255

// Str are a string field's rules, applied in this order: trim, lower,
// transform, length, empty-as-null, check.
type Str struct {
	Required bool
	ReqMsg   string // message for a missing required field (default: a type error)
	Nullable bool   // null is a value (Field.Null) instead of a type error
	Trim     bool
	Lower    bool
	// Transform rewrites the value before the length checks (URLify).
	Transform func(string) string
	Min, Max  int // UTF-16 length; 0 = no limit
	MinMsg    string
	MaxMsg    string
	EmptyNull bool // "" reads as null
	Check     *Check
}

// Str reads a string field.
func (o *Object) Str(name string, opt Str) Field[string] {
	if o.err != nil {
		return Field[string]{}
	}
	raw, ok := o.Present(name)
	if !ok || Kind(raw) == "null" && (!opt.Nullable || opt.Required) {
		if ok || opt.Required {
			o.missing(name, "string", opt.Required, opt.ReqMsg)
		}
		return Field[string]{}
	}
	if Kind(raw) == "null" {
		return Null[string]()
	}
	var s string
	if Kind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		o.TypeErr(name, "string", raw)
		return Field[string]{}
	}
	if opt.Trim {
		s = strings.TrimSpace(s)
	}
	if opt.Lower {
		s = strings.ToLower(s)
	}
	if opt.Transform != nil {
		s = opt.Transform(s)
	}
	n := JSLen(s)
	switch {
	case opt.Min > 0 && n < opt.Min:
		msg := opt.MinMsg
		if msg == "" {
			msg = fmt.Sprintf("Too small: expected string to have >=%d characters", opt.Min)
		}
		o.Fail("too_small", name, msg)
		return Field[string]{}
	case opt.Max > 0 && n > opt.Max:
		msg := opt.MaxMsg
		if msg == "" {
			msg = fmt.Sprintf("Too big: expected string to have <=%d characters", opt.Max)
		}
		o.Fail("too_big", name, msg)
		return Field[string]{}
	case s == "" && opt.EmptyNull:
		return Null[string]()
	case opt.Check != nil && !opt.Check.OK(s):
		o.Fail(opt.Check.Issue, name, opt.Check.Message)
		return Field[string]{}
	}
	return Value(s)
}

// missing reports an absent or null field: a required one's message, or a
// type error.
func (o *Object) missing(name, want string, required bool, reqMsg string) {
	if required && reqMsg != "" {
		o.Fail("invalid_type", name, reqMsg)
		return
	}
	o.TypeErr(name, want, o.m[name])
}

// Enum reads a string limited to options; def when absent (or null on a
// nullish object).
func (o *Object) Enum(name string, options []string, def string) string {
	s := o.Str(name, Str{})
	if !s.Has() {
		return def
	}
	for _, v := range options {
		if s.Value == v {
			return v
		}
	}
	o.Fail("invalid_value", name, "Invalid option: expected one of "+QuoteOptions(options))
	return def
}

// Num are a number field's rules.
type Num struct {
	Required       bool
	ReqMsg         string
	Int            bool // a safe integer (|v| <= 2^53, no fraction)
	Min, Max       *float64
	MinMsg, MaxMsg string
}

// Bound is a Num bound.
func Bound(v float64) *float64 { return &v }

// Num reads a number field.
func (o *Object) Num(name string, opt Num) Field[float64] {
	if o.err != nil {
		return Field[float64]{}
	}
	raw, ok := o.Present(name)
	if !ok || Kind(raw) == "null" {
		if ok || opt.Required {
			o.missing(name, "number", opt.Required, opt.ReqMsg)
		}
		return Field[float64]{}
	}
	var f float64
	if Kind(raw) != "number" || json.Unmarshal(raw, &f) != nil {
		o.TypeErr(name, "number", raw)
		return Field[float64]{}
	}
	if opt.Int && (f != math.Trunc(f) || math.Abs(f) > 1<<53) {
		o.Fail("invalid_type", name, "Invalid input: expected int, received number")
		return Field[float64]{}
	}
	switch {
	case opt.Min != nil && f < *opt.Min:
		msg := opt.MinMsg
		if msg == "" {
			msg = "Too small: expected number to be >=" + FmtNum(*opt.Min)
		}
		o.Fail("too_small", name, msg)
		return Field[float64]{}
	case opt.Max != nil && f > *opt.Max:
		msg := opt.MaxMsg
		if msg == "" {
			msg = "Too big: expected number to be <=" + FmtNum(*opt.Max)
		}
		o.Fail("too_big", name, msg)
		return Field[float64]{}
	}
	return Value(f)
}

// Int reads a safe-integer field; nil when absent (or null on a nullish
// object) or invalid.
func (o *Object) Int(name string, opt Num) *int64 {
	opt.Int = true
	f := o.Num(name, opt)
	if !f.Has() {
		return nil
	}
	v := int64(f.Value)
	return &v
}

// Bool reads a boolean field.
func (o *Object) Bool(name string) Field[bool] {
	raw, ok := o.Present(name)
	if o.err != nil || !ok {
		return Field[bool]{}
	}
	var b bool
	if Kind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		o.TypeErr(name, "boolean", raw)
		return Field[bool]{}
	}
	return Value(b)
}

// StringOrList accepts "a,b" or ["a","b"], trimmed, empties and duplicates
// dropped.
func (o *Object) StringOrList(name string) Field[[]string] {
	raw, ok := o.Present(name)
	if o.err != nil || !ok {
		return Field[[]string]{}
	}
	var list []string
	switch Kind(raw) {
	case "string":
		var s string
		if json.Unmarshal(raw, &s) == nil {
			list = strings.Split(s, ",")
			break
		}
		fallthrough
	case "array":
		if json.Unmarshal(raw, &list) == nil {
			break
		}
		fallthrough
	default:
		o.Fail("invalid_union", name, "Invalid input")
		return Field[[]string]{}
	}
	return Value(dedupe(list))
}

func dedupe(list []string) []string {
	out := make([]string, 0, len(list))
	seen := map[string]bool{}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// Strings reads an array of strings of at most max items (0: no limit),
// each trimmed; nullable makes null a value.
func (o *Object) Strings(name string, max int, nullable bool) Field[[]string] {
	raw, ok := o.Present(name)
	if o.err != nil || !ok {
		return Field[[]string]{}
	}
	if nullable && Kind(raw) == "null" {
		return Null[[]string]()
	}
	var items []json.RawMessage
	if Kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		o.TypeErr(name, "array", raw)
		return Field[[]string]{}
	}
	if max > 0 && len(items) > max {
		o.Fail("too_big", name, fmt.Sprintf("Too big: expected array to have <=%d items", max))
		return Field[[]string]{}
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if Kind(it) != "string" || json.Unmarshal(it, &s) != nil {
			o.TypeErr(name+"."+strconv.Itoa(i), "string", it)
			return Field[[]string]{}
		}
		out = append(out, strings.TrimSpace(s))
	}
	return Value(out)
}

// MaxMetadata is the longest serialised metadata accepted.
const MaxMetadata = 10000

// Metadata reads an object field stored as event metadata.
func (o *Object) Metadata(name string) map[string]any {
	r, ok := o.Present(name)
	if o.err != nil || !ok || Kind(r) == "null" {
		return nil
	}
	if Kind(r) != "object" {
		o.TypeErr(name, "record", r)
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(r, &m); err != nil {
		o.TypeErr(name, "record", r)
		return nil
	}
	b, _ := json.Marshal(m)
	if utf8.RuneCount(b) > MaxMetadata {
		o.Fail("custom", name, fmt.Sprintf("Metadata must be less than %d characters", MaxMetadata))
		return nil
	}
	return m
}

// Child reads a nested object field; nil when absent (or null on a nullish
// object).
func (o *Object) Child(name string) *Object {
	r, ok := o.Present(name)
	if o.err != nil || !ok {
		return nil
	}
	c, err := At(r, o.Path(name))
	if err != nil {
		o.SetErr(err)
		return nil
	}
	c.nullish = o.nullish
	return c
}

// ValidEmail is the email format of the conversion and program schemas.
func ValidEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@"):], ".")
}

// ValidAbsURL reports an absolute URL (a scheme and a host).
func ValidAbsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// Email and URL are the z.string().email() and .url() checks.
var (
	Email = &Check{OK: ValidEmail, Issue: "invalid_format", Message: "Invalid email address"}
	URL   = &Check{OK: ValidAbsURL, Issue: "invalid_format", Message: "Invalid URL"}
)

// Replace sets a field's raw JSON (a coercion step, like zod's
// z.coerce, before the typed read).
func (o *Object) Replace(name string, raw json.RawMessage) { o.m[name] = raw }

// Field is the field's raw JSON as sent (nil when absent, null included).
func (o *Object) Field(name string) json.RawMessage { return o.m[name] }
