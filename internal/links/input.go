// Package links holds the business rules of short links, domains, tags and
// folders (spec/links.md §3-8): parsing and validating link bodies with upstream's
// zod-style messages, URL and key rules, UTM rewriting, and the processing
// pipeline that turns a request into a stored link. It has no HTTP in it.
package links

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/models"
)

// Field is an optional JSON value: absent, null, or a value (the input
// reader's).
type Field[T any] = input.Field[T]

func value[T any](v T) Field[T] { return input.Value(v) }

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
// first schema issue is a 422 "issue: path: message" (spec/links.md §1.5).
func ParseInput(body []byte, schema Schema) (*Input, error) {
	raw, err := input.Raw(body)
	if err != nil {
		return nil, err
	}
	return parseItem(raw, schema, "")
}

// ParseBulk validates a bulk-create body: an array of 1..100 create bodies,
// issues reported with the path "[i].field".
func ParseBulk(body []byte) ([]*Input, error) {
	raw, err := input.Raw(body)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if input.Kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		return nil, apierr.Validation("invalid_type", "", "Invalid input: expected array, received "+input.Kind(raw))
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
	d, err := input.Decode(body)
	if err != nil {
		return nil, err
	}
	b := &BulkUpdate{}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{{"linkIds", &b.LinkIDs}, {"externalIds", &b.ExternalIDs}} {
		v := d.Strings(f.name, MaxBulk, false)
		if v.Has() {
			*f.dst = v.Value
		}
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	data, ok := d.Get("data")
	if !ok {
		return nil, apierr.Validation("invalid_type", "data", "Invalid input: expected object, received undefined")
	}
	b.Data, err = parseItem(data, SchemaBulkUpdate, "data")
	return b, err
}

func parseItem(raw json.RawMessage, schema Schema, prefix string) (*Input, error) {
	d, err := input.At(raw, prefix)
	if err != nil {
		return nil, err
	}
	in := &Input{Raw: raw}
	// Fields in the upstream schema's order: the first issue wins.
	if schema == SchemaCreate {
		in.URL = d.Str("url", input.Str{Required: true, Max: maxURL, Transform: urlify})
	} else {
		in.URL = d.Str("url", input.Str{Max: maxURL, Transform: urlify})
	}
	if schema != SchemaBulkUpdate {
		in.Domain = d.Str("domain", input.Str{Max: 190})
		in.Key = d.Str("key", input.Str{Max: 190})
	}
	if schema == SchemaCreate {
		in.KeyLength = keyLength(d)
	}
	if schema != SchemaBulkUpdate {
		in.ExternalID = d.Str("externalId", input.Str{Nullable: true, Trim: true, Min: 1, Max: 255})
		if in.ExternalID.Has() {
			in.ExternalID.Value = strings.TrimPrefix(in.ExternalID.Value, "ext_")
		}
	}
	in.TenantID = d.Str("tenantId", input.Str{Nullable: true, Max: 255})
	in.ProgramID = d.Str("programId", input.Str{Nullable: true})
	in.PartnerID = d.Str("partnerId", input.Str{Nullable: true})
	if schema == SchemaCreate {
		in.Prefix = d.Str("prefix", input.Str{})
	}
	in.TrackConversion = d.Bool("trackConversion")
	in.Archived = d.Bool("archived")
	in.TagIDs = d.StringOrList("tagIds")
	in.TagNames = d.StringOrList("tagNames")
	in.FolderID = d.Str("folderId", input.Str{Nullable: true, EmptyNull: true})
	in.Comments = d.Str("comments", input.Str{Nullable: true})
	in.ExpiresAt = d.Str("expiresAt", input.Str{Nullable: true, EmptyNull: true})
	in.ExpiredURL = d.Str("expiredUrl", input.Str{Nullable: true, Max: maxURL, Transform: urlify, Check: validURLCheck})
	in.Password = d.Str("password", input.Str{Nullable: true, EmptyNull: true})
	in.Proxy = d.Bool("proxy")
	in.Title = d.Str("title", input.Str{Nullable: true})
	in.Description = d.Str("description", input.Str{Nullable: true})
	in.Image = image(d, "image")
	in.Video = d.Str("video", input.Str{Nullable: true})
	in.Rewrite = d.Bool("rewrite")
	in.IOS = d.Str("ios", input.Str{Nullable: true, Max: maxURL, Transform: urlify, Check: validURLCheck})
	in.Android = d.Str("android", input.Str{Nullable: true, Max: maxURL, Transform: urlify, Check: validURLCheck})
	in.Geo = geo(d, "geo")
	in.DoIndex = d.Bool("doIndex")
	for i, k := range UTMKeys {
		in.UTM[i] = d.Str(k, input.Str{Nullable: true, Trim: true, Max: 255, EmptyNull: true})
	}
	in.Ref = d.Str("ref", input.Str{Nullable: true, Trim: true, Max: 255, EmptyNull: true})
	in.TestVariants = testVariants(d, "testVariants")
	in.TestStartedAt = d.Str("testStartedAt", input.Str{Nullable: true, EmptyNull: true})
	in.TestCompletedAt = d.Str("testCompletedAt", input.Str{Nullable: true, EmptyNull: true})
	in.PublicStats = d.Bool("publicStats")
	in.TagID = d.Str("tagId", input.Str{Nullable: true})
	in.WebhookIDs = d.Strings("webhookIds", 0, true)
	if d.Err() != nil {
		return nil, d.Err()
	}
	return in, nil
}

const maxURL = 32000

// urlify is the schema's URL transform: trimmed, then URLify.
func urlify(s string) string { return URLify(strings.TrimSpace(s)) }

// validURLCheck is the link schema's URL refinement.
var validURLCheck = &input.Check{OK: safeURL, Issue: "custom", Message: "Invalid URL"}

// safeURL is a valid URL whose scheme may be a link's target (no
// javascript:, data:, file: or vbscript:).
func safeURL(s string) bool { return ValidURL(s) && !UnsafeScheme(s) }

// keyLength is z.number().min(3).max(190) (a fraction is truncated).
func keyLength(d *input.Object) Field[int] {
	f := d.Num("keyLength", input.Num{Min: input.Bound(3), Max: input.Bound(190)})
	if !f.Has() {
		return Field[int]{}
	}
	return value(int(f.Value))
}

// image follows §3: a non-string or "" becomes null, a string that is
// neither http(s) nor a data:image URL is silently nulled.
func image(d *input.Object, name string) Field[string] {
	raw, ok := d.Get(name)
	if d.Err() != nil || !ok {
		return Field[string]{}
	}
	var s string
	if input.Kind(raw) != "string" || json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		return Field[string]{Set: true, Null: true}
	}
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	if !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") && !strings.HasPrefix(low, "data:image/") {
		return Field[string]{Set: true, Null: true}
	}
	return value(s)
}

func geo(d *input.Object, name string) Field[map[string]string] {
	raw, ok := d.Get(name)
	if d.Err() != nil || !ok {
		return Field[map[string]string]{}
	}
	if input.Kind(raw) == "null" {
		return Field[map[string]string]{Set: true, Null: true}
	}
	var m map[string]json.RawMessage
	if input.Kind(raw) != "object" || json.Unmarshal(raw, &m) != nil {
		d.TypeErr(name, "record", raw)
		return Field[map[string]string]{}
	}
	out := make(map[string]string, len(m))
	for _, cc := range sortedKeys(m) {
		v := m[cc]
		p := name + "." + cc
		if !isCountryCode(cc) {
			d.Fail("invalid_key", p, "Invalid key in record: expected an ISO 3166-1 alpha-2 country code such as \"US\"")
			return Field[map[string]string]{}
		}
		var s string
		if input.Kind(v) != "string" || json.Unmarshal(v, &s) != nil {
			d.TypeErr(p, "string", v)
			return Field[map[string]string]{}
		}
		s = URLify(strings.TrimSpace(s))
		if input.JSLen(s) > maxURL {
			d.Fail("too_big", p, fmt.Sprintf("Too big: expected string to have <=%d characters", maxURL))
			return Field[map[string]string]{}
		}
		if !safeURL(s) {
			d.Fail("custom", p, "Invalid URL")
			return Field[map[string]string]{}
		}
		out[cc] = s
	}
	return value(out)
}

func isCountryCode(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

func testVariants(d *input.Object, name string) Field[[]models.TestVariant] {
	raw, ok := d.Get(name)
	if d.Err() != nil || !ok {
		return Field[[]models.TestVariant]{}
	}
	if input.Kind(raw) == "null" {
		return Field[[]models.TestVariant]{Set: true, Null: true}
	}
	var items []json.RawMessage
	if input.Kind(raw) != "array" || json.Unmarshal(raw, &items) != nil {
		d.TypeErr(name, "array", raw)
		return Field[[]models.TestVariant]{}
	}
	out := make([]models.TestVariant, 0, len(items))
	for i, it := range items {
		sub, err := input.At(it, d.Path(name+"."+strconv.Itoa(i)))
		if err != nil {
			d.SetErr(err)
			return Field[[]models.TestVariant]{}
		}
		u := sub.Str("url", input.Str{Required: true, Max: maxURL, Transform: urlify, Check: validURLCheck})
		var pct float64
		if sub.Err() == nil {
			pr, ok := sub.Get("percentage")
			switch {
			case !ok || input.Kind(pr) != "number" || json.Unmarshal(pr, &pct) != nil:
				sub.TypeErr("percentage", "number", pr)
			case pct < 10:
				sub.Fail("too_small", "percentage", "Too small: expected number to be >=10")
			case pct > 90:
				sub.Fail("too_big", "percentage", "Too big: expected number to be <=90")
			}
		}
		if sub.Err() != nil {
			d.SetErr(sub.Err())
			return Field[[]models.TestVariant]{}
		}
		out = append(out, models.TestVariant{URL: u.Value, Percentage: pct})
	}
	if len(out) < 2 {
		d.Fail("too_small", name, "Too small: expected array to have >=2 items")
		return Field[[]models.TestVariant]{}
	}
	if len(out) > 4 {
		d.Fail("too_big", name, "Too big: expected array to have <=4 items")
		return Field[[]models.TestVariant]{}
	}
	return value(out)
}
