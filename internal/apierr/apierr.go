// Package apierr is Relink's one error type for the API: a Dub error code, a
// message safe to show the caller, and an optional wrapped cause that is only
// ever logged. Handlers return *Error values; the single ErrorHandler renders
// them as {"error":{"code","message","doc_url"}}.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Code is one of Dub's error codes.
type Code string

// The error codes of the Dub API (spec/links.md §1.4).
const (
	BadRequest          Code = "bad_request"
	Unauthorized        Code = "unauthorized"
	Forbidden           Code = "forbidden"
	ExceededLimit       Code = "exceeded_limit"
	NotFound            Code = "not_found"
	Conflict            Code = "conflict"
	InvitePending       Code = "invite_pending"
	InviteExpired       Code = "invite_expired"
	Unprocessable       Code = "unprocessable_entity"
	RateLimitExceeded   Code = "rate_limit_exceeded"
	InternalServerError Code = "internal_server_error"
	// Unavailable is Relink's own: the database did not answer within
	// RELINK_DB_TIMEOUT (sent with Retry-After). Dub has no 503 code; the
	// SDKs retry 503s.
	Unavailable Code = "service_unavailable"
)

var statuses = map[Code]int{
	BadRequest:          http.StatusBadRequest,
	Unauthorized:        http.StatusUnauthorized,
	Forbidden:           http.StatusForbidden,
	ExceededLimit:       http.StatusForbidden,
	NotFound:            http.StatusNotFound,
	Conflict:            http.StatusConflict,
	InvitePending:       http.StatusConflict,
	InviteExpired:       http.StatusGone,
	Unprocessable:       http.StatusUnprocessableEntity,
	RateLimitExceeded:   http.StatusTooManyRequests,
	InternalServerError: http.StatusInternalServerError,
	Unavailable:         http.StatusServiceUnavailable,
}

// Status is the HTTP status for the code (500 for an unknown code).
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// InternalMessage is the only text a 500 ever shows.
const InternalMessage = "An internal server error occurred. Please contact our support if the problem persists."

const docBase = "https://dub.co/docs/api-reference/errors#"

// Error is an API error.
type Error struct {
	Code    Code
	Message string
	DocURL  string // overrides the default doc URL when set
	Cause   error  // logged, never shown
	// Field is the input path a validation error is about (Validation's
	// path), for forms that show it beside its field; never on the wire.
	Field string
	// detail is a validation error's message without its issue and path.
	detail string
}

// FieldMessage is what a form shows beside Field: a validation error's
// message without the issue and path the wire format prefixes.
func (e *Error) FieldMessage() string {
	if e.detail != "" {
		return e.detail
	}
	return e.Message
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// Status is the HTTP status of the error.
func (e *Error) Status() int { return e.Code.Status() }

// Doc is the doc_url sent with the error.
func (e *Error) Doc() string {
	if e.DocURL != "" {
		return e.DocURL
	}
	return DocURL(e.Code)
}

// DocURL follows upstream: only the first underscore becomes a hyphen.
func DocURL(c Code) string {
	return docBase + strings.Replace(string(c), "_", "-", 1)
}

// New builds an error with a fixed message.
func New(c Code, msg string) *Error { return &Error{Code: c, Message: msg} }

// Newf builds an error with a formatted message.
func Newf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Wrap attaches a cause to a caller-facing error.
func Wrap(c Code, cause error, msg string) *Error {
	return &Error{Code: c, Message: msg, Cause: cause}
}

// Internal hides cause behind the generic 500 message.
func Internal(cause error) *Error {
	return &Error{Code: InternalServerError, Message: InternalMessage, DocURL: docBase + "internal-server-error", Cause: cause}
}

// Validation is a 422 in the zod-style format "<issue>: <path>: <message>".
// Schema-validation errors always point at #unprocessable-entity.
func Validation(issue, path, message string) *Error {
	return &Error{Code: Unprocessable, Message: issue + ": " + path + ": " + message, DocURL: docBase + "unprocessable-entity", Field: path, detail: message}
}

// As extracts an *Error from err, converting anything else into a 500.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// Is reports whether err carries the given code.
func Is(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}
