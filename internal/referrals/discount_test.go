package referrals

import (
	"testing"

	"github.com/relinkhq/relink/models"
)

func TestDiscountSentence(t *testing.T) {
	i := func(n int) *int { return &n }
	desc := "Half off, once"
	for _, tc := range []struct {
		d    models.Discount
		want string
	}{
		{models.Discount{Amount: 20, Type: models.DiscountPercentage, MaxDuration: i(12)}, "New users get 20% off for 12 months"},
		{models.Discount{Amount: 20, Type: models.DiscountPercentage}, "New users get 20% off for their lifetime"},
		{models.Discount{Amount: 500, Type: models.DiscountFlat, MaxDuration: i(0)}, "New users get $5 off for their first purchase"},
		{models.Discount{Amount: 1250, Type: models.DiscountFlat, MaxDuration: i(1)}, "New users get $12.50 off for their first month"},
		{models.Discount{Amount: 50, Type: models.DiscountPercentage, Description: &desc}, "Half off, once"},
	} {
		if got := DiscountSentence(&tc.d); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}
