// Package paging holds upstream's pagination rules for the lists that take
// both offset (page) and cursor (startingAfter/endingBefore) paging: links,
// customers and commissions (Dub's buildPaginationQuery, spec/parity.md §1.2).
// Its errors are handler-raised, so their messages are plain (no
// "code: path:" prefix), with code unprocessable_entity.
package paging

import (
	"fmt"

	"github.com/relinkhq/relink/internal/apierr"
)

// MaxPage is the deepest offset page.
const MaxPage = 1000

// The messages, exactly as upstream's.
var (
	MsgBothCursors   = "You cannot use both startingAfter and endingBefore at the same time."
	MsgCursorSort    = "Cursor-based pagination only supports sorting by `createdAt`. Use offset-based pagination (page/pageSize) for other sort fields."
	MsgCursorAndPage = "You cannot use both page and startingAfter/endingBefore at the same time. Please use one pagination method."
	MsgPageTooBig    = fmt.Sprintf("Page is too big (cannot be more than %d), recommend using cursor-based pagination instead.", MaxPage)
	MsgInvalidCursor = "Invalid cursor: the provided ID does not exist."
)

// Request is what the rules look at. PageSet is whether the query carried
// page at all (upstream tests the parsed value, and page is never 0).
type Request struct {
	PageSet         bool
	Page            int
	StartingAfter   string
	EndingBefore    string
	SortByCreatedAt bool
}

// Cursor reports cursor paging.
func (r Request) Cursor() bool { return r.StartingAfter != "" || r.EndingBefore != "" }

// Check applies the rules in upstream's order: both cursors, a cursor with
// another sort, a cursor with page, then (offset paging) page over MaxPage.
func Check(r Request) error {
	msg := ""
	switch {
	case r.StartingAfter != "" && r.EndingBefore != "":
		msg = MsgBothCursors
	case r.Cursor() && !r.SortByCreatedAt:
		msg = MsgCursorSort
	case r.Cursor() && r.PageSet:
		msg = MsgCursorAndPage
	case !r.Cursor() && r.Page > MaxPage:
		msg = MsgPageTooBig
	}
	if msg != "" {
		return apierr.New(apierr.Unprocessable, msg)
	}
	return nil
}

// InvalidCursor is the error for a cursor id that is not in the list.
func InvalidCursor() error { return apierr.New(apierr.Unprocessable, MsgInvalidCursor) }
