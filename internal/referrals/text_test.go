package referrals

import (
	"testing"

	"github.com/relinkhq/relink/models"
)

func TestMaskEmail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// 'j' = 106, len 4: 4 + 110 % 4 = 6 stars; 'g' = 103, len 5: 4 + 108 % 4 = 4.
		{"jane@gmail.com", "j******@g****.com"},
		{"omar@example.org", "o*******@e****.org"},
		{"a@b.co.uk", "a******@b*******.co.uk"},
		{"Jane Doe", "J******"},
		{"", "****"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := MaskEmail(tc.in); got != tc.want {
				t.Errorf("MaskEmail(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestAnonymousName(t *testing.T) {
	a, b := AnonymousName("pge_1"), AnonymousName("pge_2")
	if a != AnonymousName("pge_1") {
		t.Error("not deterministic")
	}
	if a == b {
		t.Errorf("two ids, one name %q", a)
	}
	seen := map[string]bool{}
	for i := 0; i < 20; i++ {
		seen[AnonymousName(string(rune('a'+i)))] = true
	}
	if len(seen) < 18 {
		t.Errorf("only %d distinct names for 20 seeds", len(seen))
	}
}

func TestMoney(t *testing.T) {
	for in, want := range map[int64]string{0: "$0.00", 5: "$0.05", 123456: "$1,234.56", 100000000: "$1,000,000.00", -2500: "-$25.00"} {
		if got := Money(in); got != want {
			t.Errorf("Money(%d) = %q, want %q", in, got, want)
		}
	}
}

func TestRewardSentence(t *testing.T) {
	i := func(n int) *int { return &n }
	c := func(n int64) *int64 { return &n }
	desc := "Custom words"
	for _, tc := range []struct {
		name string
		r    models.Reward
		want string
	}{
		{"lead flat", models.Reward{Event: "lead", Type: "flat", AmountInCents: c(500), MaxDuration: i(0)}, "Earn $5 per lead"},
		{"click cents", models.Reward{Event: "click", Type: "flat", AmountInCents: c(25), MaxDuration: i(0)}, "Earn $0.25 per click"},
		{"sale lifetime", models.Reward{Event: "sale", Type: "percentage", AmountInPercentageBP: c(2000)}, "Earn 20% per sale for the customer's lifetime"},
		{"sale first only", models.Reward{Event: "sale", Type: "flat", AmountInCents: c(1000), MaxDuration: i(0)}, "Earn $10 for the first sale"},
		{"sale months", models.Reward{Event: "sale", Type: "percentage", AmountInPercentageBP: c(1250), MaxDuration: i(6)}, "Earn 12.5% per sale for 6 months"},
		{"sale years", models.Reward{Event: "sale", Type: "percentage", AmountInPercentageBP: c(1000), MaxDuration: i(24)}, "Earn 10% per sale for 2 years"},
		{"up to", models.Reward{Event: "sale", Type: "flat", AmountInCents: c(1000), MaxDuration: i(0),
			Modifiers: models.Some([]models.RewardModifier{{AmountInCents: c(3000)}})}, "Earn up to $30 for the first sale"},
		{"spend limit", models.Reward{Event: "lead", Type: "flat", AmountInCents: c(100), MaxDuration: i(0), SpendLimitAmount: c(5000)}, "Earn $1 per lead (up to $50 in total)"},
		{"description wins", models.Reward{Event: "lead", Type: "flat", AmountInCents: c(100), Description: &desc}, "Custom words"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RewardSentence(&tc.r); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
