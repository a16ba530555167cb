package apierr

import (
	"errors"
	"fmt"
	"testing"
)

func TestStatusAndDocURL(t *testing.T) {
	cases := []struct {
		code   Code
		status int
		doc    string
	}{
		{BadRequest, 400, "bad-request"},
		{Unauthorized, 401, "unauthorized"},
		{Forbidden, 403, "forbidden"},
		{ExceededLimit, 403, "exceeded-limit"},
		{NotFound, 404, "not-found"},
		{Conflict, 409, "conflict"},
		{InvitePending, 409, "invite-pending"},
		{InviteExpired, 410, "invite-expired"},
		{Unprocessable, 422, "unprocessable-entity"},
		{RateLimitExceeded, 429, "rate-limit_exceeded"},
		{InternalServerError, 500, "internal-server_error"},
	}
	if len(cases) != len(Codes()) {
		t.Fatalf("table covers %d codes, package has %d", len(cases), len(Codes()))
	}
	for _, c := range cases {
		t.Run(string(c.code), func(t *testing.T) {
			if got := c.code.Status(); got != c.status {
				t.Errorf("status = %d, want %d", got, c.status)
			}
			if got := DocURL(c.code); got != docBase+c.doc {
				t.Errorf("doc = %q, want %q", got, docBase+c.doc)
			}
		})
	}
}

func TestInternalHidesCause(t *testing.T) {
	e := As(fmt.Errorf("query failed: %w", errors.New("pq: relation secret_table does not exist")))
	if e.Code != InternalServerError || e.Message != InternalMessage {
		t.Fatalf("got %+v", e)
	}
	if e.Doc() != docBase+"internal-server-error" {
		t.Errorf("doc = %s", e.Doc())
	}
}

func TestValidationFormat(t *testing.T) {
	e := Validation("too_small", "page", "Page must be greater than 0.")
	if e.Message != "too_small: page: Page must be greater than 0." || e.Status() != 422 {
		t.Fatalf("got %q %d", e.Message, e.Status())
	}
	wrapped := fmt.Errorf("list links: %w", e)
	if !Is(wrapped, Unprocessable) || As(wrapped) != e {
		t.Fatal("wrapped validation error not recovered")
	}
}

// Codes lists every Dub code (Relink's own Unavailable aside).
func Codes() []Code {
	return []Code{BadRequest, Unauthorized, Forbidden, ExceededLimit, NotFound, Conflict,
		InvitePending, InviteExpired, Unprocessable, RateLimitExceeded, InternalServerError}
}
