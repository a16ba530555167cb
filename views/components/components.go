// Package components holds the shared widgets pages are built from: cards,
// buttons, empty states, stat cards and the error page. Each takes a small
// view model (never a models struct) and marks itself with a data-testid that
// callers can override.
package components

import "github.com/a-h/templ"

// testID returns id, or def when id is empty.
func testID(id, def string) string {
	if id == "" {
		return def
	}
	return id
}

// CardProps is a card's header and test id; its content is the children.
type CardProps struct {
	Title    string // empty: no header
	Subtitle string
	TestID   string // default "card"
}

// ButtonVariant is a button's look.
type ButtonVariant string

// Button variants.
const (
	ButtonPrimary   ButtonVariant = "primary" // default
	ButtonSecondary ButtonVariant = "secondary"
	ButtonDanger    ButtonVariant = "danger"
	ButtonGhost     ButtonVariant = "ghost"
)

// ButtonProps describes a button, or a link styled as one when Href is set.
type ButtonProps struct {
	Label    string
	Href     string // non-empty: render <a href>
	Type     string // button (default) | submit | reset; ignored for links
	Variant  ButtonVariant
	Disabled bool
	TestID   string           // default "button"
	Attrs    templ.Attributes // extra attributes, e.g. {"hx-post": "/x", "hx-target": "#y"}
}

func (b ButtonProps) buttonType() string {
	switch b.Type {
	case "submit", "reset":
		return b.Type
	}
	return "button"
}

// Class names are written out whole so Tailwind's scanner finds them.
const buttonBase = "inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-medium shadow-sm transition-colors focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2 disabled:cursor-not-allowed disabled:opacity-50 dark:focus-visible:ring-offset-gray-900"

func (b ButtonProps) class() string {
	switch b.Variant {
	case ButtonSecondary:
		return buttonBase + " border border-gray-300 bg-white text-gray-900 hover:bg-gray-50 dark:border-gray-700 dark:bg-gray-800 dark:text-gray-100 dark:hover:bg-gray-700"
	case ButtonDanger:
		return buttonBase + " bg-red-600 text-white hover:bg-red-500"
	case ButtonGhost:
		return buttonBase + " bg-transparent text-gray-700 shadow-none hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800"
	}
	return buttonBase + " bg-indigo-600 text-white hover:bg-indigo-500"
}

// EmptyStateProps is shown where a list or chart has nothing yet.
type EmptyStateProps struct {
	Title   string
	Message string
	Action  *ButtonProps // optional call to action
	TestID  string       // default "empty-state"
}

// Trend is the direction of a stat's change.
type Trend string

// Trends.
const (
	TrendNone Trend = ""
	TrendUp   Trend = "up"
	TrendDown Trend = "down"
)

// StatProps is one headline number. Values come formatted (the handler or
// view model decides "1,204", "$3.2k", "12.5%").
type StatProps struct {
	Label  string
	Value  string
	Change string // e.g. "+12%"; empty: none
	Trend  Trend  // colours Change
	Hint   string // small print under the value
	TestID string // default "stat"
}

func (s StatProps) changeClass() string {
	switch s.Trend {
	case TrendUp:
		return "text-sm font-medium text-emerald-600 dark:text-emerald-400"
	case TrendDown:
		return "text-sm font-medium text-red-600 dark:text-red-400"
	}
	return "text-sm font-medium text-gray-500 dark:text-gray-400"
}

// ErrorView is what the error page shows.
type ErrorView struct {
	Status    int
	Title     string
	Message   string
	HomeURL   string // the "back home" link
	RequestID string // shown small, for support; empty: hidden
}
