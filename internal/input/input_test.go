package input

import (
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
)

// TestMessages: each reader's issue in zod's "issue: path: message" form,
// and the strict/nullish null semantics.
func TestMessages(t *testing.T) {
	tests := []struct {
		name, body string
		nullish    bool
		read       func(o *Object)
		want       string // "" = no issue
	}{
		{"required absent", `{}`, false, func(o *Object) { o.Str("url", Str{Required: true}) }, "invalid_type: url: Invalid input: expected string, received undefined"},
		{"required null, custom message", `{"key":null}`, true, func(o *Object) { o.Str("key", Str{Required: true, ReqMsg: "key is required."}) }, "invalid_type: key: key is required."},
		{"required null, nullish", `{"eventName":null}`, true, func(o *Object) { o.Str("eventName", Str{Required: true}) }, "invalid_type: eventName: Invalid input: expected string, received null"},
		{"null on a strict object", `{"title":null}`, false, func(o *Object) { o.Str("title", Str{}) }, "invalid_type: title: Invalid input: expected string, received null"},
		{"null where nullable", `{"title":null}`, false, func(o *Object) { o.Str("title", Str{Nullable: true}) }, ""},
		{"null on a nullish object", `{"name":null}`, true, func(o *Object) { o.Str("name", Str{Max: 3}) }, ""},
		{"wrong type", `{"url":1}`, false, func(o *Object) { o.Str("url", Str{}) }, "invalid_type: url: Invalid input: expected string, received number"},
		{"too long in UTF-16 units", `{"k":"😀😀"}`, false, func(o *Object) { o.Str("k", Str{Max: 3}) }, "too_big: k: Too big: expected string to have <=3 characters"},
		{"too short after trim", `{"k":"  "}`, false, func(o *Object) { o.Str("k", Str{Trim: true, Min: 1}) }, "too_small: k: Too small: expected string to have >=1 characters"},
		{"email", `{"e":"nope"}`, true, func(o *Object) { o.Str("e", Str{Check: Email}) }, "invalid_format: e: Invalid email address"},
		{"enum", `{"mode":"x"}`, true, func(o *Object) { o.Enum("mode", []string{"a", "b"}, "a") }, `invalid_value: mode: Invalid option: expected one of "a"|"b"`},
		{"int", `{"n":1.5}`, true, func(o *Object) { o.Int("n", Num{}) }, "invalid_type: n: Invalid input: expected int, received number"},
		{"int bound", `{"n":0}`, true, func(o *Object) { o.Int("n", Num{Min: Bound(1)}) }, "too_small: n: Too small: expected number to be >=1"},
		{"number bound, custom", `{"amount":-1}`, true, func(o *Object) { o.Int("amount", Num{Min: Bound(0), MinMsg: "amount cannot be negative"}) }, "too_small: amount: amount cannot be negative"},
		{"bool", `{"b":"true"}`, false, func(o *Object) { o.Bool("b") }, "invalid_type: b: Invalid input: expected boolean, received string"},
		{"first issue wins", `{"a":1,"b":2}`, false, func(o *Object) { o.Str("a", Str{}); o.Str("b", Str{}) }, "invalid_type: a: Invalid input: expected string, received number"},
		{"nested path", `{"p":{"x":1}}`, true, func(o *Object) { c := o.Child("p"); c.Str("x", Str{}); o.SetErr(c.Err()) }, "invalid_type: p.x: Invalid input: expected string, received number"},
		{"array item", `{"ids":["a",2]}`, false, func(o *Object) { o.Strings("ids", 0, false) }, "invalid_type: ids.1: Invalid input: expected string, received number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decode := Decode
			if tt.nullish {
				decode = DecodeNullish
			}
			o, err := decode([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			tt.read(o)
			got := ""
			if o.Err() != nil {
				got = apierr.As(o.Err()).Message
			}
			if got != tt.want {
				t.Fatalf("issue %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	if _, err := Decode([]byte(`{"a":`)); !apierr.Is(err, apierr.BadRequest) || apierr.As(err).Message != MsgBadJSON {
		t.Fatalf("bad JSON: %v", err)
	}
	if _, err := Decode([]byte(`[]`)); !apierr.Is(err, apierr.Unprocessable) || apierr.As(err).Message != "invalid_type: : Invalid input: expected object, received array" {
		t.Fatalf("array body: %v", err)
	}
	if o, err := Decode(nil); err != nil || o.Err() != nil {
		t.Fatalf("empty body is {}: %v", err)
	}
}
