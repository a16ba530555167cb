package links

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
)

var zodMessage = regexp.MustCompile(`^[a-z_]+: [^ ]*: .+$`)

// FuzzParseInput: any body gives a parsed input or a 400/422 with a message
// in the documented format, never a panic; parsed values respect the limits.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://example.com"}`, `{"url":"google.com","key":"abc","tagIds":"a,b"}`,
		`{"url":1}`, `[]`, `{"url":"x","geo":{"US":"us.com","FR":3}}`, `{"url":"https://a.com","externalId":"ext_x"}`,
		`{"url":"https://a.com","testVariants":[{"url":"b.com","percentage":50},{"url":"c.com","percentage":50}]}`,
		`{"url":"https://a.com","utm_source":"  a  ","image":"data:image/png;base64,AAAA"}`, `{"url":`, `null`, `"s"`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, body []byte, schema uint8) {
		in, err := ParseInput(body, Schema(schema%3))
		if err != nil {
			e, ok := err.(*apierr.Error)
			if !ok {
				t.Fatalf("non-API error %T: %v", err, err)
			}
			switch e.Code {
			case apierr.BadRequest:
			case apierr.Unprocessable:
				if !zodMessage.MatchString(e.Message) {
					t.Fatalf("422 message not in zod format: %q", e.Message)
				}
			default:
				t.Fatalf("unexpected code %s", e.Code)
			}
			return
		}
		if Schema(schema%3) == SchemaCreate && !in.URL.Set {
			t.Fatal("create without url accepted")
		}
		if input.JSLen(in.URL.Value) > maxURL || input.JSLen(in.ExternalID.Value) > 255 || strings.HasPrefix(in.ExternalID.Value, "ext_") && in.ExternalID.Value == "ext_" {
			t.Fatalf("limits not applied: %+v", in)
		}
		for _, f := range []Field[string]{in.ExpiredURL, in.IOS, in.Android} {
			if f.Has() && !ValidURL(f.Value) {
				t.Fatalf("invalid URL accepted: %q", f.Value)
			}
		}
		for cc, u := range in.Geo.Value {
			if !isCountryCode(cc) || !ValidURL(u) {
				t.Fatalf("bad geo entry %q: %q", cc, u)
			}
		}
		for i := range in.UTM {
			if in.UTM[i].Has() && (in.UTM[i].Value == "" || in.UTM[i].Value != strings.TrimSpace(in.UTM[i].Value)) {
				t.Fatalf("utm not trimmed/nulled: %q", in.UTM[i].Value)
			}
		}
	})
}

// FuzzApplyUTM: setting a UTM value on a valid URL yields a valid URL whose
// query carries exactly that value; deleting it removes it.
func FuzzApplyUTM(f *testing.F) {
	f.Add("https://example.com/?a=1&utm_source=x", "new value", true)
	f.Add("https://example.com", "a+b", true)
	f.Add("https://example.com/p?utm_source=x#f", "", false)
	f.Fuzz(func(t *testing.T, dest, val string, set bool) {
		if !ValidURL(dest) || !utf8.ValidString(val) {
			return
		}
		var v *string
		if set {
			v = &val
		}
		out := ApplyUTM(dest, []string{"utm_source"}, map[string]*string{"utm_source": v})
		if !ValidURL(out) {
			t.Fatalf("ApplyUTM(%q, %q) = invalid %q", dest, val, out)
		}
		got := UTMFromURL(out)["utm_source"]
		want := strings.Replace(val, "+", " ", 1)
		switch {
		case set && val != "" && (got == nil || *got != want):
			t.Fatalf("ApplyUTM(%q, %q) = %q: utm_source %v, want %q", dest, val, out, got, want)
		case (!set || val == "") && got != nil:
			t.Fatalf("ApplyUTM(%q, delete) = %q still has %q", dest, out, *got)
		}
	})
}
