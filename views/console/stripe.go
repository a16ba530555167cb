package console

// StripeView is the Stripe settings page (issue 32): the endpoint to add in
// Stripe, the events to select, each mode's signing secret (masked) with a
// form to connect or replace it, and the latest events received.
type StripeView struct {
	CSRF        string
	Upgrade     bool // below the Business plan: nothing can be connected
	CanEdit     bool // owners connect and disconnect
	EndpointURL string
	Events      []string
	Modes       []StripeMode
	Recent      []StripeEvent
	Saved       string // "live" or "test" after a connect, "removed" after a disconnect, "trials"
	// FreeTrials and TrackQuantity are Dub's free-trial settings.
	FreeTrials, TrackQuantity bool
	Error                     string // the refused secret's message
	ErrorMode                 string // which mode's form it belongs to
}

// StripeMode is one mode's endpoint: live or test.
type StripeMode struct {
	Mode, Label string
	Connected   bool
	Secret      string // masked
	LastEvent   string // when its last event arrived, or ""
	UpdatedAt   string
}

// StripeEvent is one received event.
type StripeEvent struct {
	ID, Type, Mode, Response, At string
}
