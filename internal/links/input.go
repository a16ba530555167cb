// Package links holds the business rules of short links, domains, tags and
// folders (links.md §3-8): parsing and validating link bodies with upstream's
// zod-style messages, URL and key rules, UTM rewriting, and the processing
// pipeline that turns a request into a stored link. It has no HTTP in it.
package links

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// Field is an optional JSON value: absent, null, or a value.
type Field[T any] struct {
	Set   bool // the key was present
	Null  bool // present as null (or a value the schema turns into null)
	Value T
}

// Has reports a present, non-null value.
func (f Field[T]) Has() bool { return f.Set && !f.Null }

// Ptr returns the value, or nil when absent or null.
func (f Field[T]) Ptr() *T {
	if !f.Has() {
		return nil
	}
	v := f.Value
	return &v
}

func value[T any](v T) Field[T] { return Field[T]{Set: true, Value: v} }

func nullable[T any](p *T) Field[T] {
	if p == nil {
		return Field[T]{Set: true, Null: true}
	}
	return value(*p)
}

// UTMKeys are the UTM fields in the order they are applied.
var UTMKeys = [5]string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"}

// Input is a link body (create, update, upsert, one bulk item) after schema
// validation: types checked, limits applied, strings trimmed and URLified
// where the schema does it. Business rules run later, in Process.
type Input struct {
	URL             Field[string]
	Domain          Field[string]
	Key             Field[string]
	KeyLength       Field[int]
	ExternalID      Field[string] // without the ext_ prefix
	TenantID        Field[string]
	ProgramID       Field[string]
	PartnerID       Field[string]
	Prefix          Field[string]
	TrackConversion Field[bool]
	Archived        Field[bool]
	TagIDs          Field[[]string]
	TagNames        Field[[]string]
	FolderID        Field[string]
	Comments        Field[string]
	ExpiresAt       Field[string]
	ExpiredURL      Field[string]
	Password        Field[string]
	Proxy           Field[bool]
	Title           Field[string]
	Description     Field[string]
	Image           Field[string]
	Video           Field[string]
	Rewrite         Field[bool]
	IOS             Field[string]
	Android         Field[string]
	Geo             Field[map[string]string]
	DoIndex         Field[bool]
	UTM             [5]Field[string] // in UTMKeys order
	Ref             Field[string]
	TestVariants    Field[[]models.TestVariant]
	TestStartedAt   Field[string]
	TestCompletedAt Field[string]
	PublicStats     Field[bool]
	TagID           Field[string]
	WebhookIDs      Field[[]string]

	// Raw is the item as the client sent it (for bulk error entries).
	Raw json.RawMessage
}

// Schema selects which fields a body may carry.
type Schema int

// The body schemas.
const (
	SchemaCreate     Schema = iota // POST /links, PUT /links/upsert, bulk items
	SchemaUpdate                   // PATCH /links/{id}: no keyLength, prefix
	SchemaBulkUpdate               // PATCH /links/bulk data: no domain, key, externalId
)

// MaxBulk is the most links a bulk request may carry.
const MaxBulk = 100

// ParseInput validates one JSON object body. Malformed JSON is a 400; the
// first schema issue is a 422 "issue: path: message" (links.md §1.5).
func ParseInput(body []byte, schema Schema) (*Input, error) {
	raw, err := decodeRaw(body)
	if err != nil {
		return nil, err
	}
	return parseItem(raw, schema, "")
}

// ParseBulk validates a bulk-create body: an array of 1..100 create bodies,
// issues reported with the path "[i].field".
func ParseBulk(body []byte) ([]*Input, error) {
	raw, err := decodeRaw(body)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		return nil, apierr.Validation("invalid_type", "", "Invalid input: expected array, received "+kind(raw))
	}
	if len(items) == 0 {
		return nil, apierr.Validation("too_small", "", "No links created – you must provide at least one link.")
	}
	if len(items) > MaxBulk {
		return nil, apierr.Validation("too_big", "", fmt.Sprintf("You can only create up to %d links at a time.", MaxBulk))
	}
	out := make([]*Input, len(items))
	for i, it := range items {
		in, err := parseItem(it, SchemaCreate, "["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out[i] = in
	}
	return out, nil
}

// BulkUpdate is a PATCH /links/bulk body.
type BulkUpdate struct {
	LinkIDs     []string
	ExternalIDs []string
	Data        *Input
}

// ParseBulkUpdate validates a PATCH /links/bulk body.
func ParseBulkUpdate(body []byte) (*BulkUpdate, error) {
	raw, err := decodeRaw(body)
	if err != nil {
		return nil, err
	}
	d, err := newDecoder(raw, "")
	if err != nil {
		return nil, err
	}
	b := &BulkUpdate{}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{{"linkIds", &b.LinkIDs}, {"externalIds", &b.ExternalIDs}} {
		v := d.strings(f.name, MaxBulk)
		if v.Has() {
			*f.dst = v.Value
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	data, ok := d.m["data"]
	if !ok {
		return nil, apierr.Validation("invalid_type", "data", "Invalid input: expected object, received undefined")
	}
	b.Data, err = parseItem(data, SchemaBulkUpdate, "data")
	return b, err
}

func decodeRaw(body []byte) (json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	var raw json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err,
			"Invalid JSON format in request body. Please ensure the request body is a valid JSON object.")
	}
	return raw, nil
}

func parseItem(raw json.RawMessage, schema Schema, prefix string) (*Input, error) {
	d, err := newDecoder(raw, prefix)
	if err != nil {
		return nil, err
	}
	in := &Input{Raw: raw}
	// Fields in the upstream schema's order: the first issue wins.
	if schema == SchemaCreate {
		in.URL = d.str("url", strOpts{required: true, max: maxURL, urlify: true})
	} else {
		in.URL = d.str("url", strOpts{max: maxURL, urlify: true})
	}
	if schema != SchemaBulkUpdate {
		in.Domain = d.str("domain", strOpts{max: 190})
		in.Key = d.str("key", strOpts{max: 190})
	}
	if schema == SchemaCreate {
		in.KeyLength = d.number("keyLength", 3, 190)
	}
	if schema != SchemaBulkUpdate {
		in.ExternalID = d.str("externalId", strOpts{nullable: true, trim: true, min: 1, max: 255})
		if in.ExternalID.Has() {
			in.ExternalID.Value = strings.TrimPrefix(in.ExternalID.Value, "ext_")
		}
	}
	in.TenantID = d.str("tenantId", strOpts{nullable: true, max: 255})
	in.ProgramID = d.str("programId", strOpts{nullable: true})
	in.PartnerID = d.str("partnerId", strOpts{nullable: true})
	if schema == SchemaCreate {
		in.Prefix = d.str("prefix", strOpts{})
	}
	in.TrackConversion = d.boolean("trackConversion")
	in.Archived = d.boolean("archived")
	in.TagIDs = d.stringOrList("tagIds")
	in.TagNames = d.stringOrList("tagNames")
	in.FolderID = d.str("folderId", strOpts{nullable: true, emptyNull: true})
	in.Comments = d.str("comments", strOpts{nullable: true})
	in.ExpiresAt = d.str("expiresAt", strOpts{nullable: true, emptyNull: true})
	in.ExpiredURL = d.str("expiredUrl", strOpts{nullable: true, max: maxURL, urlify: true, validURL: true})
	in.Password = d.str("password", strOpts{nullable: true, emptyNull: true})
	in.Proxy = d.boolean("proxy")
	in.Title = d.str("title", strOpts{nullable: true})
	in.Description = d.str("description", strOpts{nullable: true})
	in.Image = d.image("image")
	in.Video = d.str("video", strOpts{nullable: true})
	in.Rewrite = d.boolean("rewrite")
	in.IOS = d.str("ios", strOpts{nullable: true, max: maxURL, urlify: true, validURL: true})
	in.Android = d.str("android", strOpts{nullable: true, max: maxURL, urlify: true, validURL: true})
	in.Geo = d.geo("geo")
	in.DoIndex = d.boolean("doIndex")
	for i, k := range UTMKeys {
		in.UTM[i] = d.str(k, strOpts{nullable: true, trim: true, max: 255, emptyNull: true})
	}
	in.Ref = d.str("ref", strOpts{nullable: true, trim: true, max: 255, emptyNull: true})
	in.TestVariants = d.testVariants("testVariants")
	in.TestStartedAt = d.str("testStartedAt", strOpts{nullable: true, emptyNull: true})
	in.TestCompletedAt = d.str("testCompletedAt", strOpts{nullable: true, emptyNull: true})
	in.PublicStats = d.boolean("publicStats")
	in.TagID = d.str("tagId", strOpts{nullable: true})
	in.WebhookIDs = d.nullableStrings("webhookIds")
	if d.err != nil {
		return nil, d.err
	}
	return in, nil
}

const maxURL = 32000

// decoder reads typed fields from one JSON object and keeps the first issue.
type decoder struct {
	m      map[string]json.RawMessage
	prefix string
	err    error
}

func newDecoder(raw json.RawMessage, prefix string) (*decoder, error) {
	if kind(raw) != "object" {
		return nil, apierr.Validation("invalid_type", prefix, "Invalid input: expected object, received "+kind(raw))
	}
	d := &decoder{prefix: prefix}
	if err := json.Unmarshal(raw, &d.m); err != nil {
		return nil, apierr.Wrap(apierr.BadRequest, err,
			"Invalid JSON format in request body. Please ensure the request body is a valid JSON object.")
	}
	return d, nil
}

func (d *decoder) path(name string) string {
	if d.prefix == "" {
		return name
	}
	return d.prefix + "." + name
}

func (d *decoder) fail(issue, name, msg string) {
	if d.err == nil {
		d.err = apierr.Validation(issue, d.path(name), msg)
	}
}

func (d *decoder) typeErr(name, want string, raw json.RawMessage) {
	d.fail("invalid_type", name, "Invalid input: expected "+want+", received "+kind(raw))
}

// kind names a JSON value's type as zod does.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "undefined"
	}
	switch raw[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	case '{':
		return "object"
	}
	return "number"
}

type strOpts struct {
	required  bool
	nullable  bool
	trim      bool
	min, max  int // UTF-16 length; 0 = no limit
	emptyNull bool
	urlify    bool
	validURL  bool
}

// jsLen is a string's length as JavaScript counts it (UTF-16 code units).
func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

func (d *decoder) str(name string, o strOpts) Field[string] {
	if d.err != nil {
		return Field[string]{}
	}
	raw, ok := d.m[name]
	if !ok {
		if o.required {
			d.fail("invalid_type", name, "Invalid input: expected string, received undefined")
		}
		return Field[string]{}
	}
	if kind(raw) == "null" {
		if !o.nullable {
			d.typeErr(name, "string", raw)
		}
		return Field[string]{Set: true, Null: true}
	}
	var s string
	if kind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		d.typeErr(name, "string", raw)
		return Field[string]{}
	}
	if o.trim {
		s = strings.TrimSpace(s)
	}
	if o.urlify {
		s = URLify(strings.TrimSpace(s))
	}
	if o.min > 0 && jsLen(s) < o.min {
		d.fail("too_small", name, fmt.Sprintf("Too small: expected string to have >=%d characters", o.min))
		return Field[string]{}
	}
	if o.max > 0 && jsLen(s) > o.max {
		d.fail("too_big", name, fmt.Sprintf("Too big: expected string to have <=%d characters", o.max))
		return Field[string]{}
	}
	if s == "" && o.emptyNull {
		return Field[string]{Set: true, Null: true}
	}
	if o.validURL && (!ValidURL(s) || UnsafeScheme(s)) {
		d.fail("custom", name, "Invalid URL")
		return Field[string]{}
	}
	return value(s)
}

func (d *decoder) boolean(name string) Field[bool] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[bool]{}
	}
	var b bool
	if kind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		d.typeErr(name, "boolean", raw)
		return Field[bool]{}
	}
	return value(b)
}

func (d *decoder) number(name string, min, max float64) Field[int] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[int]{}
	}
	var f float64
	if kind(raw) != "number" || json.Unmarshal(raw, &f) != nil {
		d.typeErr(name, "number", raw)
		return Field[int]{}
	}
	if f < min {
		d.fail("too_small", name, fmt.Sprintf("Too small: expected number to be >=%s", fmtNum(min)))
		return Field[int]{}
	}
	if f > max {
		d.fail("too_big", name, fmt.Sprintf("Too big: expected number to be <=%s", fmtNum(max)))
		return Field[int]{}
	}
	return value(int(f))
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// stringOrList accepts "a,b" or ["a","b"], trimmed, empties and duplicates
// dropped.
func (d *decoder) stringOrList(name string) Field[[]string] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[[]string]{}
	}
	var list []string
	switch kind(raw) {
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
		d.fail("invalid_union", name, "Invalid input")
		return Field[[]string]{}
	}
	return value(dedupe(list))
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

// strings reads an optional array of strings of at most max items.
func (d *decoder) strings(name string, max int) Field[[]string] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[[]string]{}
	}
	return d.stringArray(name, raw, max)
}

func (d *decoder) nullableStrings(name string) Field[[]string] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[[]string]{}
	}
	if kind(raw) == "null" {
		return Field[[]string]{Set: true, Null: true}
	}
	return d.stringArray(name, raw, 0)
}

func (d *decoder) stringArray(name string, raw json.RawMessage, max int) Field[[]string] {
	var items []json.RawMessage
	if kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		d.typeErr(name, "array", raw)
		return Field[[]string]{}
	}
	if max > 0 && len(items) > max {
		d.fail("too_big", name, fmt.Sprintf("Too big: expected array to have <=%d items", max))
		return Field[[]string]{}
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if kind(it) != "string" || json.Unmarshal(it, &s) != nil {
			d.typeErr(name+"."+strconv.Itoa(i), "string", it)
			return Field[[]string]{}
		}
		out = append(out, strings.TrimSpace(s))
	}
	return value(out)
}

// image follows §3: a non-string or "" becomes null, a string that is
// neither http(s) nor a data:image URL is silently nulled.
func (d *decoder) image(name string) Field[string] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[string]{}
	}
	var s string
	if kind(raw) != "string" || json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		return Field[string]{Set: true, Null: true}
	}
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	if !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") && !strings.HasPrefix(low, "data:image/") {
		return Field[string]{Set: true, Null: true}
	}
	return value(s)
}

func (d *decoder) geo(name string) Field[map[string]string] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[map[string]string]{}
	}
	if kind(raw) == "null" {
		return Field[map[string]string]{Set: true, Null: true}
	}
	var m map[string]json.RawMessage
	if kind(raw) != "object" || json.Unmarshal(raw, &m) != nil {
		d.typeErr(name, "record", raw)
		return Field[map[string]string]{}
	}
	out := make(map[string]string, len(m))
	for _, cc := range sortedKeys(m) {
		v := m[cc]
		p := name + "." + cc
		if !isCountryCode(cc) {
			d.fail("invalid_key", p, "Invalid key in record: expected an ISO 3166-1 alpha-2 country code such as \"US\"")
			return Field[map[string]string]{}
		}
		var s string
		if kind(v) != "string" || json.Unmarshal(v, &s) != nil {
			d.typeErr(p, "string", v)
			return Field[map[string]string]{}
		}
		s = URLify(strings.TrimSpace(s))
		if jsLen(s) > maxURL {
			d.fail("too_big", p, fmt.Sprintf("Too big: expected string to have <=%d characters", maxURL))
			return Field[map[string]string]{}
		}
		if !ValidURL(s) || UnsafeScheme(s) {
			d.fail("custom", p, "Invalid URL")
			return Field[map[string]string]{}
		}
		out[cc] = s
	}
	return value(out)
}

func isCountryCode(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func (d *decoder) testVariants(name string) Field[[]models.TestVariant] {
	raw, ok := d.m[name]
	if d.err != nil || !ok {
		return Field[[]models.TestVariant]{}
	}
	if kind(raw) == "null" {
		return Field[[]models.TestVariant]{Set: true, Null: true}
	}
	var items []json.RawMessage
	if kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		d.typeErr(name, "array", raw)
		return Field[[]models.TestVariant]{}
	}
	out := make([]models.TestVariant, 0, len(items))
	for i, it := range items {
		sub, err := newDecoder(it, d.path(name+"."+strconv.Itoa(i)))
		if err != nil {
			if d.err == nil {
				d.err = err
			}
			return Field[[]models.TestVariant]{}
		}
		u := sub.str("url", strOpts{required: true, max: maxURL, urlify: true, validURL: true})
		var pct float64
		if sub.err == nil {
			pr, ok := sub.m["percentage"]
			switch {
			case !ok || kind(pr) != "number" || json.Unmarshal(pr, &pct) != nil:
				sub.typeErr("percentage", "number", pr)
			case pct < 10:
				sub.fail("too_small", "percentage", "Too small: expected number to be >=10")
			case pct > 90:
				sub.fail("too_big", "percentage", "Too big: expected number to be <=90")
			}
		}
		if sub.err != nil {
			d.err = sub.err
			return Field[[]models.TestVariant]{}
		}
		out = append(out, models.TestVariant{URL: u.Value, Percentage: pct})
	}
	if len(out) < 2 {
		d.fail("too_small", name, "Too small: expected array to have >=2 items")
		return Field[[]models.TestVariant]{}
	}
	if len(out) > 4 {
		d.fail("too_big", name, "Too big: expected array to have <=4 items")
		return Field[[]models.TestVariant]{}
	}
	return value(out)
}
