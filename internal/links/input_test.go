package links

import (
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
)

func TestParseInputErrors(t *testing.T) {
	long := strings.Repeat("a", 256)
	tests := []struct {
		name   string
		schema Schema
		body   string
		code   apierr.Code
		msg    string
	}{
		{"malformed JSON", SchemaCreate, `{"url":`, apierr.BadRequest, "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
		{"not an object", SchemaCreate, `[1]`, apierr.Unprocessable, "invalid_type: : Invalid input: expected object, received array"},
		{"missing url", SchemaCreate, `{}`, apierr.Unprocessable, "invalid_type: url: Invalid input: expected string, received undefined"},
		{"url number", SchemaCreate, `{"url":1}`, apierr.Unprocessable, "invalid_type: url: Invalid input: expected string, received number"},
		{"url null", SchemaCreate, `{"url":null}`, apierr.Unprocessable, "invalid_type: url: Invalid input: expected string, received null"},
		{"url too long", SchemaCreate, `{"url":"https://a.com/` + strings.Repeat("x", 32000) + `"}`, apierr.Unprocessable, "too_big: url: Too big: expected string to have <=32000 characters"},
		{"domain null", SchemaCreate, `{"url":"https://a.com","domain":null}`, apierr.Unprocessable, "invalid_type: domain: Invalid input: expected string, received null"},
		{"key too long", SchemaCreate, `{"url":"https://a.com","key":"` + strings.Repeat("k", 191) + `"}`, apierr.Unprocessable, "too_big: key: Too big: expected string to have <=190 characters"},
		{"keyLength small", SchemaCreate, `{"url":"https://a.com","keyLength":2}`, apierr.Unprocessable, "too_small: keyLength: Too small: expected number to be >=3"},
		{"keyLength big", SchemaCreate, `{"url":"https://a.com","keyLength":191}`, apierr.Unprocessable, "too_big: keyLength: Too big: expected number to be <=190"},
		{"keyLength string", SchemaCreate, `{"url":"https://a.com","keyLength":"7"}`, apierr.Unprocessable, "invalid_type: keyLength: Invalid input: expected number, received string"},
		{"externalId empty", SchemaCreate, `{"url":"https://a.com","externalId":"  "}`, apierr.Unprocessable, "too_small: externalId: Too small: expected string to have >=1 characters"},
		{"externalId long", SchemaCreate, `{"url":"https://a.com","externalId":"` + long + `"}`, apierr.Unprocessable, "too_big: externalId: Too big: expected string to have <=255 characters"},
		{"tenantId long", SchemaCreate, `{"url":"https://a.com","tenantId":"` + long + `"}`, apierr.Unprocessable, "too_big: tenantId: Too big: expected string to have <=255 characters"},
		{"archived string", SchemaCreate, `{"url":"https://a.com","archived":"yes"}`, apierr.Unprocessable, "invalid_type: archived: Invalid input: expected boolean, received string"},
		{"tagIds number", SchemaCreate, `{"url":"https://a.com","tagIds":5}`, apierr.Unprocessable, "invalid_union: tagIds: Invalid input"},
		{"tagNames mixed array", SchemaCreate, `{"url":"https://a.com","tagNames":["a",1]}`, apierr.Unprocessable, "invalid_union: tagNames: Invalid input"},
		{"expiredUrl invalid", SchemaCreate, `{"url":"https://a.com","expiredUrl":"not a url"}`, apierr.Unprocessable, "custom: expiredUrl: Invalid URL"},
		{"ios invalid", SchemaCreate, `{"url":"https://a.com","ios":"nope"}`, apierr.Unprocessable, "custom: ios: Invalid URL"},
		{"android invalid", SchemaCreate, `{"url":"https://a.com","android":"a b"}`, apierr.Unprocessable, "custom: android: Invalid URL"},
		{"geo ftp-ish", SchemaCreate, `{"url":"https://a.com","geo":{"US":"ftp"}}`, apierr.Unprocessable, "custom: geo.US: Invalid URL"},
		{"geo value number", SchemaCreate, `{"url":"https://a.com","geo":{"US":1}}`, apierr.Unprocessable, "invalid_type: geo.US: Invalid input: expected string, received number"},
		{"geo bad country", SchemaCreate, `{"url":"https://a.com","geo":{"usa":"https://a.com"}}`, apierr.Unprocessable, `invalid_key: geo.usa: Invalid key in record: expected an ISO 3166-1 alpha-2 country code such as "US"`},
		{"geo array", SchemaCreate, `{"url":"https://a.com","geo":[]}`, apierr.Unprocessable, "invalid_type: geo: Invalid input: expected record, received array"},
		{"utm_source too long", SchemaCreate, `{"url":"https://a.com","utm_source":"` + long + `"}`, apierr.Unprocessable, "too_big: utm_source: Too big: expected string to have <=255 characters"},
		{"ref too long", SchemaCreate, `{"url":"https://a.com","ref":"` + long + `"}`, apierr.Unprocessable, "too_big: ref: Too big: expected string to have <=255 characters"},
		{"testVariants one", SchemaCreate, `{"url":"https://a.com","testVariants":[{"url":"https://b.com","percentage":50}]}`, apierr.Unprocessable, "too_small: testVariants: Too small: expected array to have >=2 items"},
		{"testVariants pct", SchemaCreate, `{"url":"https://a.com","testVariants":[{"url":"https://b.com","percentage":5},{"url":"https://c.com","percentage":95}]}`, apierr.Unprocessable, "too_small: testVariants.0.percentage: Too small: expected number to be >=10"},
		{"testVariants url", SchemaCreate, `{"url":"https://a.com","testVariants":[{"url":"x","percentage":50},{"url":"https://c.com","percentage":50}]}`, apierr.Unprocessable, "custom: testVariants.0.url: Invalid URL"},
		{"webhookIds string", SchemaCreate, `{"url":"https://a.com","webhookIds":"a"}`, apierr.Unprocessable, "invalid_type: webhookIds: Invalid input: expected array, received string"},
		{"update url number", SchemaUpdate, `{"url":false}`, apierr.Unprocessable, "invalid_type: url: Invalid input: expected string, received boolean"},
		{"first issue wins", SchemaCreate, `{"url":1,"key":2}`, apierr.Unprocessable, "invalid_type: url: Invalid input: expected string, received number"},
		{"title number", SchemaCreate, `{"url":"https://a.com","title":3}`, apierr.Unprocessable, "invalid_type: title: Invalid input: expected string, received number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseInput([]byte(tc.body), tc.schema)
			e := apierr.As(err)
			if err == nil || e.Code != tc.code || e.Message != tc.msg {
				t.Fatalf("got %v, want %s %q", err, tc.code, tc.msg)
			}
		})
	}
}

func TestParseInputValues(t *testing.T) {
	in, err := ParseInput([]byte(`{"url":"google.com","externalId":" ext_abc ","tagIds":"a, b,a,","tagNames":["X"],
		"folderId":"","password":"","utm_source":"  ","utm_medium":" email ","image":"ftp://x","geo":{"US":"us.example.com"},
		"unknown":{"ignored":true},"id":"link_x","projectId":"p"}`), SchemaCreate)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"url URLified with slash", in.URL.Value == "https://google.com/"},
		{"externalId trimmed and ext_ stripped", in.ExternalID.Value == "abc"},
		{"tagIds split, deduped", strings.Join(in.TagIDs.Value, "|") == "a|b"},
		{"tagNames array", len(in.TagNames.Value) == 1 && in.TagNames.Value[0] == "X"},
		{"folderId empty is null", in.FolderID.Set && in.FolderID.Null},
		{"password empty is null", in.Password.Set && in.Password.Null},
		{"utm blank is null", in.UTM[0].Set && in.UTM[0].Null},
		{"utm trimmed", in.UTM[1].Value == "email"},
		{"image not http is nulled", in.Image.Set && in.Image.Null},
		{"geo URLified", in.Geo.Value["US"] == "https://us.example.com/"},
		{"absent field not set", !in.Title.Set && !in.Key.Set},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: %+v", c.name, in)
		}
	}
}

func TestParseBulk(t *testing.T) {
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"url":"https://a.com"},`, 101), ",") + "]"
	tests := []struct {
		name, body, msg string
	}{
		{"empty", `[]`, "too_small: : No links created – you must provide at least one link."},
		{"too many", many, "too_big: : You can only create up to 100 links at a time."},
		{"object", `{}`, "invalid_type: : Invalid input: expected array, received object"},
		{"item path", `[{"url":"https://a.com"},{"url":2}]`, "invalid_type: [1].url: Invalid input: expected string, received number"},
		{"item not object", `[{"url":"https://a.com"},"x"]`, "invalid_type: [1]: Invalid input: expected object, received string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBulk([]byte(tc.body))
			if e := apierr.As(err); err == nil || e.Message != tc.msg {
				t.Fatalf("got %v, want %q", err, tc.msg)
			}
		})
	}
	items, err := ParseBulk([]byte(`[{"url":"https://a.com","key":"x"},{"url":"b.com"}]`))
	if err != nil || len(items) != 2 || items[1].URL.Value != "https://b.com/" || string(items[0].Raw) != `{"url":"https://a.com","key":"x"}` {
		t.Fatalf("items %+v err %v", items, err)
	}
}

func TestParseBulkUpdate(t *testing.T) {
	b, err := ParseBulkUpdate([]byte(`{"linkIds":["a","b"],"data":{"archived":true,"domain":"ignored.com"}}`))
	if err != nil || len(b.LinkIDs) != 2 || !b.Data.Archived.Value || b.Data.Domain.Set {
		t.Fatalf("%+v %v", b, err)
	}
	for body, msg := range map[string]string{
		`{"linkIds":[]}`:                       "invalid_type: data: Invalid input: expected object, received undefined",
		`{"linkIds":[1],"data":{}}`:            "invalid_type: linkIds.0: Invalid input: expected string, received number",
		`{"linkIds":[],"data":{"url":3}}`:      "invalid_type: data.url: Invalid input: expected string, received number",
		`{"externalIds":"x","data":{}}`:        "invalid_type: externalIds: Invalid input: expected array, received string",
		`{"linkIds":[],"data":{"proxy":"x"}}`:  "invalid_type: data.proxy: Invalid input: expected boolean, received string",
	} {
		if _, err := ParseBulkUpdate([]byte(body)); err == nil || apierr.As(err).Message != msg {
			t.Errorf("%s: got %v, want %q", body, err, msg)
		}
	}
}
