package wire

import "encoding/json"

// Webhook is the webhook object of the management API (spec/webhooks.md
// §1.7): every key always present. internal/webhooks fills it
// ((*webhooks.Webhook).Object), whose model this package cannot import.
type Webhook struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	URL            string   `json:"url"`
	Secret         string   `json:"secret"`
	Triggers       []string `json:"triggers"`
	LinkScope      *string  `json:"linkScope"`
	DisabledAt     *string  `json:"disabledAt"`
	InstallationID *string  `json:"installationId"`
}

// WebhookEvent is a delivery log record (spec/webhooks.md §2.7), keys in
// order.
type WebhookEvent struct {
	EventID      string          `json:"event_id"`
	WebhookID    string          `json:"webhook_id"`
	MessageID    string          `json:"message_id"`
	Event        string          `json:"event"`
	URL          string          `json:"url"`
	HTTPStatus   int             `json:"http_status"`
	RequestBody  json.RawMessage `json:"request_body"`
	ResponseBody string          `json:"response_body"`
	Timestamp    string          `json:"timestamp"`
}

// WebhookEventBody is a logged request body as a delivery log record
// carries it: the JSON itself, or a JSON string when it is not JSON.
func WebhookEventBody(body string) json.RawMessage {
	raw := json.RawMessage(body)
	if !json.Valid(raw) {
		b, _ := json.Marshal(body)
		raw = b
	}
	return raw
}
