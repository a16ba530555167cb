package input_test

import (
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
)

type bindTarget struct {
	URL       *string  `json:"url"`
	KeyLength int      `json:"keyLength"`
	Archived  bool     `json:"archived"`
	TagIDs    []string `json:"tagIds"`
	Geo       struct {
		US string `json:"US"`
	} `json:"geo"`
}

func TestBindJSON(t *testing.T) {
	const invalid = "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."
	cases := []struct {
		name, body string
		status     int // 0 = success
		msg        string
	}{
		{"empty body is {}", "", 0, ""},
		{"unknown fields ignored", `{"projectId":"x","url":"https://a.b"}`, 0, ""},
		{"malformed", `{"url":`, 400, invalid},
		{"two values", `{} {}`, 400, invalid},
		{"string for pointer string", `{"url":1}`, 422, "invalid_type: url: Invalid input: expected string, received number"},
		{"fraction for int", `{"keyLength":1.5}`, 422, "invalid_type: keyLength: Invalid input: expected int, received number"},
		{"string for int", `{"keyLength":"7"}`, 422, "invalid_type: keyLength: Invalid input: expected number, received string"},
		{"number for bool", `{"archived":1}`, 422, "invalid_type: archived: Invalid input: expected boolean, received number"},
		{"bool for string", `{"url":true}`, 422, "invalid_type: url: Invalid input: expected string, received boolean"},
		{"string for array", `{"tagIds":"a"}`, 422, "invalid_type: tagIds: Invalid input: expected array, received string"},
		{"nested path", `{"geo":{"US":5}}`, 422, "invalid_type: geo.US: Invalid input: expected string, received number"},
		{"first issue wins", `{"url":1,"keyLength":"x"}`, 422, "invalid_type: url: Invalid input: expected string, received number"},
		{"array body", `[{}]`, 422, "invalid_type: : Invalid input: expected object, received array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v bindTarget
			bindErr := input.BindJSON([]byte(c.body), &v)
			if c.status == 0 {
				if bindErr != nil {
					t.Fatalf("unexpected error %v", bindErr)
				}
				return
			}
			e, ok := bindErr.(*apierr.Error)
			if !ok || e.Status() != c.status || e.Message != c.msg {
				t.Fatalf("got %v, want %d %q", bindErr, c.status, c.msg)
			}
			if c.status == 400 && e.Cause == nil {
				t.Fatal("the decoder's error is not kept as the (logged) cause")
			}
		})
	}
}
