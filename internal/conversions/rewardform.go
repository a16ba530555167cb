package conversions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// RewardForm is a reward as a person types it, in the console's reward form
// and in `relink program reward set`: one mapping to models.Reward for both.
type RewardForm struct {
	Event, Type string
	// Amount is, for a percentage reward, the percent with at most two
	// decimals ("12.5" is 1250 basis points); for a flat reward, dollars
	// with at most two decimals ("2.5" is 250 cents), or whole cents when
	// FlatInCents is set (the CLI's unit).
	Amount      string
	FlatInCents bool
	// MaxDuration is the months a sale reward pays for after the first
	// sale; "", "lifetime" or "null" is forever.
	MaxDuration string
}

// Reward maps the form to a reward. Amounts are read as exact decimals, so
// nothing is rounded: more than two decimals (or a fraction of a cent) is a
// 422 on "amount" (spec/partners-and-embed.md §4: percentages carry two
// decimals, flat amounts whole cents). The reward's own rules (event, type,
// ranges) are checked when it is stored (models.Reward.Validate).
func (f RewardForm) Reward() (*models.Reward, error) {
	r := &models.Reward{Event: f.Event, Type: f.Type}
	amount := strings.TrimSpace(f.Amount)
	switch {
	case f.Type == models.RewardPercentage:
		bp, err := Hundredths(amount)
		if err != nil {
			return nil, err
		}
		r.AmountInPercentageBP = &bp
	case f.FlatInCents:
		cents, err := strconv.ParseInt(amount, 10, 64)
		if err != nil || cents < 0 {
			if _, ferr := strconv.ParseFloat(amount, 64); ferr == nil && !strings.HasPrefix(amount, "-") {
				return nil, apierr.Validation("invalid_type", "amount", "Flat rewards are whole cents.")
			}
			return nil, apierr.Validation("invalid_type", "amount", "Enter a non-negative amount.")
		}
		r.AmountInCents = &cents
	default:
		cents, err := Hundredths(amount)
		if err != nil {
			return nil, err
		}
		r.AmountInCents = &cents
	}
	switch md := strings.TrimSpace(f.MaxDuration); md {
	case "", "lifetime", "null":
	default:
		n, err := strconv.Atoi(md)
		if err != nil {
			return nil, apierr.Validation("invalid_type", "maxDuration", "Enter a number of months.")
		}
		r.MaxDuration = &n
	}
	return r, nil
}

// Hundredths reads a non-negative decimal with at most two decimals
// exactly: "12.5" is 1250, "0.07" is 7, "3" is 300. Anything else is a 422
// on "amount".
func Hundredths(s string) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if (whole == "" && (!dot || frac == "")) || !digits(whole) || !digits(frac) {
		return 0, apierr.Validation("invalid_type", "amount", "Enter a non-negative amount.")
	}
	if len(frac) > 2 {
		return 0, apierr.Validation("invalid_type", "amount", "Enter an amount with at most two decimals.")
	}
	frac += strings.Repeat("0", 2-len(frac))
	if whole == "" {
		whole = "0"
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, apierr.Validation("invalid_type", "amount", fmt.Sprintf("Amount %s is too large.", s))
	}
	return n, nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
