package conversions

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
)

var trackSeeds = []string{
	``, `{}`, `[]`, `null`, `"x"`, `{"eventName":`, `{"eventName":"Sign up","customerExternalId":"u_1","clickId":"abc"}`,
	`{"eventName":" a ","externalId":"x","customerId":"y","mode":"deferred","eventQuantity":100,"metadata":{"a":[1,{"b":null}]}}`,
	`{"eventName":"a","customerExternalId":"u","customerEmail":"a@b.co","customerAvatar":"https://x.y/a.png","customerName":null}`,
	`{"eventName":"a","customerExternalId":"u","eventQuantity":1e308}`, `{"eventName":"a","customerExternalId":"u","eventQuantity":-0}`,
	`{"customerExternalId":"u","amount":100,"currency":"JPY","invoiceId":"inv","paymentProcessor":"stripe","leadEventName":"x"}`,
	`{"customerExternalId":"u","amount":9007199254740993}`, `{"customerExternalId":"u","amount":"1"}`, `{"amount":1,"clickId":"c"}`,
	`{"eventName":"\u0000","customerExternalId":"\ud800"}`, `{"metadata":"x","eventName":"a","customerExternalId":"u"}`,
}

// checkParseResult asserts what every parse outcome must satisfy: either a
// 400/422 API error with a non-empty message, or a valid input.
func checkParseResult(t *testing.T, body []byte, err error, ok func()) {
	t.Helper()
	if err != nil {
		e, isAPI := err.(*apierr.Error)
		if !isAPI || (e.Code != apierr.BadRequest && e.Code != apierr.Unprocessable) || e.Message == "" {
			t.Fatalf("parse %q: unexpected error %#v", body, err)
		}
		if e.Code == apierr.Unprocessable && strings.Count(e.Message, ": ") < 2 {
			t.Fatalf("parse %q: 422 message %q is not issue: path: message", body, e.Message)
		}
		return
	}
	if !json.Valid(body) && len(strings.TrimSpace(string(body))) > 0 {
		t.Fatalf("parse %q: accepted invalid JSON", body)
	}
	ok()
}

func FuzzParseTrackLead(f *testing.F) {
	for _, s := range trackSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseTrackLead(body)
		checkParseResult(t, body, err, func() {
			switch {
			case in.CustomerExternalID == "":
				t.Fatalf("parse %q: accepted without a customer id", body)
			case in.EventName == "" || utf8.RuneCountInString(in.EventName) > 255 || in.EventName != strings.TrimSpace(in.EventName):
				t.Fatalf("parse %q: event name %q", body, in.EventName)
			case in.EventQuantity < 1 || in.EventQuantity > 100:
				t.Fatalf("parse %q: quantity %d", body, in.EventQuantity)
			case in.Mode != "async" && in.Mode != "wait" && in.Mode != "deferred":
				t.Fatalf("parse %q: mode %q", body, in.Mode)
			case in.CustomerEmail != nil && !input.ValidEmail(*in.CustomerEmail):
				t.Fatalf("parse %q: email %q", body, *in.CustomerEmail)
			}
			if in.Metadata != nil {
				b, _ := json.Marshal(in.Metadata)
				if utf8.RuneCount(b) > input.MaxMetadata {
					t.Fatalf("parse %q: metadata of %d characters", body, len(b))
				}
			}
		})
	})
}

func FuzzParseTrackSale(f *testing.F) {
	for _, s := range trackSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseTrackSale(body)
		checkParseResult(t, body, err, func() {
			switch {
			case in.CustomerExternalID == "":
				t.Fatalf("parse %q: accepted without a customer id", body)
			case in.Amount < 0:
				t.Fatalf("parse %q: negative amount %d", body, in.Amount)
			case in.Currency == "" || in.Currency != strings.ToLower(in.Currency):
				t.Fatalf("parse %q: currency %q", body, in.Currency)
			case in.EventName == "":
				t.Fatalf("parse %q: empty event name", body)
			case !slices.Contains(PaymentProcessors, in.PaymentProcessor):
				t.Fatalf("parse %q: processor %q", body, in.PaymentProcessor)
			case in.InvoiceID != nil && *in.InvoiceID == "":
				t.Fatalf("parse %q: empty invoice id kept", body)
			}
		})
	})
}
