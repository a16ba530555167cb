package conversions

import (
	"testing"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// TestHundredths: exact decimals, never float rounding ("0.29" is 29 and
// "1.005" is refused, where float64 arithmetic gives 28.999… and 100.49…).
func TestHundredths(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "3": 300, "12.5": 1250, "0.07": 7, "0.29": 29, ".5": 50, "7.": 700, "100": 10000, "19.99": 1999} {
		if got, err := Hundredths(in); err != nil || got != want {
			t.Errorf("Hundredths(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", ".", "-1", "1.005", "12.345", "abc", "1e3", "1,5", " 1", "99999999999999999999"} {
		if got, err := Hundredths(in); !apierr.Is(err, apierr.Unprocessable) {
			t.Errorf("Hundredths(%q) = %d, %v; want a 422", in, got, err)
		}
	}
}

// TestRewardForm: the console's form (flat in dollars) and the CLI (flat
// in cents) map to the same reward; percentages are basis points in both.
func TestRewardForm(t *testing.T) {
	i64 := func(r *models.Reward) (cents, bp int64) {
		if r.AmountInCents != nil {
			cents = *r.AmountInCents
		}
		if r.AmountInPercentageBP != nil {
			bp = *r.AmountInPercentageBP
		}
		return
	}
	console, err := RewardForm{Event: "lead", Type: models.RewardFlat, Amount: "2.5"}.Reward()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := RewardForm{Event: "lead", Type: models.RewardFlat, Amount: "250", FlatInCents: true}.Reward()
	if err != nil {
		t.Fatal(err)
	}
	if c1, _ := i64(console); c1 != 250 {
		t.Fatalf("console 2.5 dollars = %d cents", c1)
	}
	if c2, _ := i64(cli); c2 != 250 {
		t.Fatalf("CLI 250 cents = %d cents", c2)
	}
	for _, inCents := range []bool{false, true} {
		r, err := RewardForm{Event: "sale", Type: models.RewardPercentage, Amount: "12.55", FlatInCents: inCents, MaxDuration: "12"}.Reward()
		if err != nil {
			t.Fatal(err)
		}
		if _, bp := i64(r); bp != 1255 || r.AmountInCents != nil || r.MaxDuration == nil || *r.MaxDuration != 12 {
			t.Fatalf("percentage 12.55 (inCents=%v) = %+v", inCents, r)
		}
	}
	for _, md := range []string{"", "lifetime", "null"} {
		if r, err := (RewardForm{Event: "sale", Type: models.RewardFlat, Amount: "1", MaxDuration: md}).Reward(); err != nil || r.MaxDuration != nil {
			t.Fatalf("maxDuration %q = %v, %v; want forever", md, r.MaxDuration, err)
		}
	}
	bad := []struct {
		f    RewardForm
		path string
		msg  string
	}{
		{RewardForm{Type: models.RewardFlat, Amount: "1.5", FlatInCents: true}, "amount", "Flat rewards are whole cents."},
		{RewardForm{Type: models.RewardFlat, Amount: "-3", FlatInCents: true}, "amount", "Enter a non-negative amount."},
		{RewardForm{Type: models.RewardFlat, Amount: "2.555"}, "amount", "Enter an amount with at most two decimals."},
		{RewardForm{Type: models.RewardFlat, Amount: ""}, "amount", "Enter a non-negative amount."},
		{RewardForm{Type: models.RewardFlat, Amount: "1", MaxDuration: "soon"}, "maxDuration", "Enter a number of months."},
	}
	for _, b := range bad {
		_, err := b.f.Reward()
		e := apierr.As(err)
		if err == nil || e.Code != apierr.Unprocessable || e.Message != "invalid_type: "+b.path+": "+b.msg {
			t.Errorf("%+v: %v; want %s: %s", b.f, err, b.path, b.msg)
		}
	}
}
