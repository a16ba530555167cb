package conversions_test

import (
	"fmt"
	"testing"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// BenchmarkTrack measures a lead and a sale on a partner link with lead and
// sale rewards (events, counters, customer, commission, all committed), per
// dialect.
func BenchmarkTrack(b *testing.B) {
	for _, dialect := range testdb.Dialects() {
		b.Run(dialect, func(b *testing.B) {
			db := testdb.Open(b, dialect)
			f := newFixture(b, db, "bench")
			pn := f.partner("bench@example.com")
			f.reward(&models.Reward{Event: models.EventLead, Type: models.RewardFlat, AmountInCents: i64(100)})
			f.reward(&models.Reward{Event: models.EventSale, Type: models.RewardPercentage, AmountInPercentageBP: i64(1000)})
			c := f.click(f.link(pn.Partner.ID), "US")
			f.lead(c.ClickID, "buyer", "Sign up")
			b.Run("lead", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					_, err := f.svc.TrackLead(f.ctx, f.ws, conversions.LeadInput{ClickID: c.ClickID, EventName: "Sign up",
						CustomerExternalID: fmt.Sprintf("u_%d", i), Mode: conversions.ModeAsync, EventQuantity: 1})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("sale", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					inv := fmt.Sprintf("inv_%d", i)
					_, err := f.svc.TrackSale(f.ctx, f.ws, conversions.SaleInput{CustomerExternalID: "buyer", Amount: 1000,
						Currency: "usd", EventName: "Purchase", PaymentProcessor: "custom", InvoiceID: &inv})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
