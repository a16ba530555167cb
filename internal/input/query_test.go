package input

import (
	"net/url"
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
)

func TestQuery(t *testing.T) {
	q := Query{Vals: url.Values{"a": {"1", "2"}, "b": {"TRUE"}, "c": {"yes"}, "e": {"x"}}}
	if v, ok := q.Get("a"); !ok || v != "2" {
		t.Errorf("last value wins: %q %v", v, ok)
	}
	if _, ok := q.Get("z"); ok || q.Str("z") != "" {
		t.Error("absent key reported")
	}
	if b, err := q.Bool("b"); err != nil || b == nil || !*b {
		t.Errorf("Bool(TRUE) = %v, %v", b, err)
	}
	if _, err := q.Bool("c"); apierr.As(err).Message != `invalid_value: c: Invalid option: expected one of "true"|"false"` {
		t.Errorf("Bool(yes): %v", err)
	}
	if _, err := q.Enum("e", []string{"new", "recurring"}); apierr.As(err).Message != `invalid_value: e: Invalid option: expected one of "new"|"recurring"` {
		t.Errorf("Enum: %v", err)
	}
	for in, want := range map[string]string{
		"abc": "invalid_type: page: Page must be a number.", "1.5": "invalid_type: page: Page must be an integer.",
		"0": "too_small: page: Page must be greater than 0.", "": "too_small: page: Page must be greater than 0.",
		"2e9": "too_big: page: Page is too large.", "0x10": "invalid_type: page: Page must be a number.",
	} {
		if _, err := PositiveInt(in, "page", "Page"); err == nil || apierr.As(err).Message != want {
			t.Errorf("PositiveInt(%q): %v, want %q", in, err, want)
		}
	}
	if n, err := PositiveInt(" 7 ", "page", "Page"); err != nil || n != 7 {
		t.Errorf("PositiveInt( 7 ) = %d, %v", n, err)
	}
}
