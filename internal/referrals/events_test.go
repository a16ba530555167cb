package referrals

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
)

// TestRedact: a partner's copy of an event keeps the click's place and
// device, masks the customer, and has nowhere to put the visitor's IP.
func TestRedact(t *testing.T) {
	for _, f := range reflect.VisibleFields(reflect.TypeOf(PartnerEvent{})) {
		if strings.Contains(strings.ToLower(f.Name), "ip") {
			t.Fatalf("PartnerEvent has a field %s", f.Name)
		}
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(PartnerClick{})) {
		if f.Name == "IP" {
			t.Fatal("PartnerClick has an IP field")
		}
	}
	ev := analytics.EventRecord{Kind: analytics.Sales, Timestamp: time.Unix(1e9, 0), ID: "evt_1", EventName: "Purchase",
		Click:    analytics.Click{ID: "c1", Country: "DE", City: "Berlin", Device: "Mobile", IP: "203.0.113.9", QR: true},
		Customer: analytics.Customer{ID: "cus_1", Name: "Jane Roe", Email: "jane@gmail.com"},
		Sale:     analytics.Sale{Amount: 4999, InvoiceID: "inv_1"}}
	pe := redact(&ev)
	if pe.Click.Country != "DE" || pe.Click.City != "Berlin" || pe.Click.Device != "Mobile" || !pe.Click.QR || pe.Click.ID != "c1" ||
		pe.ID != "evt_1" || pe.EventName != "Purchase" || pe.Sale.Amount != 4999 || !pe.Timestamp.Equal(ev.Timestamp) {
		t.Fatalf("redacted %+v", pe)
	}
	if pe.Customer != (PartnerCustomer{ID: "cus_1", Email: MaskEmail("jane@gmail.com"), Name: MaskEmail("Jane Roe")}) || pe.Customer.Email == "jane@gmail.com" {
		t.Fatalf("customer %+v", pe.Customer)
	}
	// No email: the masked name stands in; a click has no customer.
	ev.Customer.Email = ""
	if pe := redact(&ev); pe.Customer.Email != MaskEmail("Jane Roe") {
		t.Fatalf("customer without email %+v", pe.Customer)
	}
	ev.Kind = analytics.Clicks
	if pe := redact(&ev); pe.Customer != (PartnerCustomer{}) {
		t.Fatalf("click with a customer %+v", pe.Customer)
	}
}
