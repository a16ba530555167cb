package referrals

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/models"
)

// MaskEmail hides a customer's email (§6.7): the first character of the
// local part, 4–7 stars, "@", the first character of the domain name, 4–7
// stars, then the TLD as is ("j*****@g******.com"). Each star count is
// 4 + ((code of the first character + length) mod 4) of its part, so one
// email always gives one mask. A value without "@" (a name) is masked like a
// local part alone.
func MaskEmail(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok {
		return maskPart(email)
	}
	name, tld, _ := strings.Cut(domain, ".")
	out := maskPart(local) + "@" + maskPart(name)
	if tld != "" {
		out += "." + tld
	}
	return out
}

func maskPart(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return strings.Repeat("*", 4)
	}
	return string(r[0]) + strings.Repeat("*", 4+(int(r[0])+len(r))%4)
}

var (
	adjectives = []string{"Agile", "Bold", "Brave", "Bright", "Calm", "Clever", "Cosmic", "Daring", "Eager", "Fancy",
		"Gentle", "Happy", "Jolly", "Keen", "Lively", "Lucky", "Mellow", "Nimble", "Noble", "Proud", "Quick", "Quiet",
		"Rapid", "Shiny", "Swift", "Witty"}
	colours = []string{"Amber", "Azure", "Coral", "Crimson", "Cyan", "Golden", "Green", "Indigo", "Ivory", "Jade",
		"Lime", "Magenta", "Olive", "Orange", "Pink", "Purple", "Ruby", "Scarlet", "Silver", "Teal", "Violet", "White"}
	animals = []string{"Badger", "Bear", "Beaver", "Crane", "Dolphin", "Eagle", "Falcon", "Fox", "Gecko", "Heron",
		"Koala", "Lemur", "Lynx", "Otter", "Owl", "Panda", "Parrot", "Penguin", "Rabbit", "Raven", "Seal", "Tiger",
		"Turtle", "Walrus", "Whale", "Wolf"}
)

// AnonymousName is the deterministic "Adjective Colour Animal" name shown
// for a leaderboard row (seeded by the row id, §6.5): the same id always
// gets the same name, and nothing of the partner is in it.
func AnonymousName(seed string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(seed))
	n := h.Sum64()
	a := adjectives[n%uint64(len(adjectives))]
	n /= uint64(len(adjectives))
	c := colours[n%uint64(len(colours))]
	n /= uint64(len(colours))
	return a + " " + c + " " + animals[n%uint64(len(animals))]
}

// Money formats cents as "$1,234.56".
func Money(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	s := "$" + Thousands(cents/100) + fmt.Sprintf(".%02d", cents%100)
	if neg {
		return "-" + s
	}
	return s
}

// Thousands writes n with comma separators.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// shortMoney is "$X" without a trailing ".00".
func shortMoney(cents int64) string {
	return strings.TrimSuffix(Money(cents), ".00")
}

// rewardAmount is "N%" or "$X", or "Up to <max>" when modifiers of the same
// type and duration pay different amounts (§6.4).
func rewardAmount(r *models.Reward) string {
	format := func(typ string, cents *int64, bp *int64) string {
		if typ == models.RewardPercentage && bp != nil {
			return strings.TrimSuffix(strings.TrimSuffix(strconv.FormatFloat(float64(*bp)/100, 'f', 2, 64), "0"), ".0") + "%"
		}
		if cents != nil {
			return shortMoney(*cents)
		}
		return "$0"
	}
	base := format(r.Type, r.AmountInCents, r.AmountInPercentageBP)
	if !r.Modifiers.Valid || len(r.Modifiers.V) == 0 {
		return base
	}
	var best float64
	if r.Type == models.RewardPercentage && r.AmountInPercentageBP != nil {
		best = float64(*r.AmountInPercentageBP) / 100
	} else if r.AmountInCents != nil {
		best = float64(*r.AmountInCents)
	}
	differ := false
	for _, m := range r.Modifiers.V {
		if m.Type != nil && *m.Type != r.Type {
			return base
		}
		var v float64
		switch {
		case r.Type == models.RewardPercentage && m.AmountInPercentage != nil:
			v = *m.AmountInPercentage
		case r.Type == models.RewardFlat && m.AmountInCents != nil:
			v = float64(*m.AmountInCents)
		default:
			continue
		}
		if v != best {
			differ = true
		}
		best = max(best, v)
	}
	if !differ {
		return base
	}
	if r.Type == models.RewardPercentage {
		return "up to " + strconv.FormatFloat(best, 'f', -1, 64) + "%"
	}
	return "up to " + shortMoney(int64(best))
}

// RewardSentence is the generated line of a reward without a description:
// "Earn $5 per lead", "Earn 20% per sale for 12 months", … (§6.4).
func RewardSentence(r *models.Reward) string {
	if r.Description != nil && strings.TrimSpace(*r.Description) != "" {
		return *r.Description
	}
	s := "Earn " + rewardAmount(r)
	if r.Event == models.EventReferral {
		if r.Type == models.RewardPercentage {
			return s + " of the commissions of each partner you refer"
		}
		return s + " for each partner you refer"
	}
	switch {
	case r.Event == models.EventSale && r.MaxDuration != nil && *r.MaxDuration == 0:
		s += " for the first sale"
	default:
		s += " per " + r.Event
	}
	if r.Event == models.EventSale {
		switch {
		case r.MaxDuration == nil:
			s += " for the customer's lifetime"
		case *r.MaxDuration > 1 && *r.MaxDuration%12 == 0:
			y := *r.MaxDuration / 12
			s += fmt.Sprintf(" for %d year%s", y, plural(y))
		case *r.MaxDuration > 1:
			s += fmt.Sprintf(" for %d months", *r.MaxDuration)
		}
	}
	if r.SpendLimitAmount != nil && *r.SpendLimitAmount > 0 {
		per := "in total"
		if r.SpendLimitInterval != nil && *r.SpendLimitInterval != "allTime" {
			per = "per " + *r.SpendLimitInterval
		}
		s += fmt.Sprintf(" (up to %s %s)", shortMoney(*r.SpendLimitAmount), per)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// DefaultFAQ is the four default FAQ items built from the program name and
// its first reward (§6.5).
func DefaultFAQ(programName string, first *models.Reward) []FAQItem {
	pay := "a commission"
	if first != nil {
		pay = "a commission of " + rewardAmount(first)
		switch {
		case first.Event != models.EventSale:
			pay += " per " + first.Event
		case first.MaxDuration == nil:
			pay += " for their lifetime"
		case *first.MaxDuration == 0:
			pay += " on their first sale"
		default:
			pay += fmt.Sprintf(" for up to %d months", *first.MaxDuration)
		}
	}
	return []FAQItem{
		{ID: "what", Title: "What is the " + programName + " affiliate program?",
			Content: "The " + programName + " affiliate program pays you for referring new customers. You earn " + pay +
				" for every customer you refer. There is no limit to how much you can earn."},
		{ID: "conversion", Title: "What counts as a conversion?",
			Content: "A conversion is a new customer who signs up and starts a paid plan within 90 days of clicking your link. Attribution is last-click."},
		{ID: "promote", Title: "How do I promote the program?",
			Content: "Share your referral link wherever your audience is. Always disclose that you may earn a commission, as the FTC's endorsement guides require (https://www.ftc.gov/business-guidance/resources/disclosures-101-social-media-influencers)."},
		{ID: "self", Title: "Can I refer myself?",
			Content: "No. Self-referrals are not allowed and their commissions are canceled."},
	}
}

// DiscountSentence is the embed's line for the enrollment's discount
// (spec/partners-and-embed.md §6.5): its description, else "New users get 20%
// off for 12 months" and the like.
func DiscountSentence(d *models.Discount) string {
	if d.Description != nil && strings.TrimSpace(*d.Description) != "" {
		return *d.Description
	}
	amount := fmt.Sprintf("%d%%", d.Amount)
	if d.Type == models.DiscountFlat {
		amount = "$" + strconv.FormatFloat(float64(d.Amount)/100, 'f', -1, 64)
		if d.Amount%100 != 0 {
			amount = fmt.Sprintf("$%.2f", float64(d.Amount)/100)
		}
	}
	s := "New users get " + amount + " off"
	switch {
	case d.MaxDuration == nil:
		return s + " for their lifetime"
	case *d.MaxDuration == 0:
		return s + " for their first purchase"
	case *d.MaxDuration == 1:
		return s + " for their first month"
	}
	return s + fmt.Sprintf(" for %d months", *d.MaxDuration)
}
