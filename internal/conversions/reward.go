package conversions

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/models"
)

// Reward is a reward after its modifiers were applied to one event
// (spec/partners-and-embed.md §4.1).
type Reward struct {
	ID            string
	Event         string
	Type          string // flat | percentage
	AmountInCents int64
	PercentageBP  int64 // hundredths of a percent
	MaxDuration   *int  // months; nil = lifetime, 0 = first sale only
}

// RewardContext holds the attributes modifier conditions look at, by entity
// ("customer", "partner", "lead", "sale") and attribute. Numbers are
// float64, dates epoch milliseconds, metadata a map.
type RewardContext map[string]map[string]any

// dateAttributes are compared as epoch milliseconds.
var dateAttributes = map[string]bool{"subscriptionStartDate": true, "signupDate": true}

// Resolve applies the reward's modifiers to ctx: among the condition groups
// that match, the one with the highest amount wins and replaces the type (if
// set), both amounts (unset becomes zero) and maxDuration (if the key is
// present; null makes the reward lifetime).
func Resolve(r *models.Reward, ctx RewardContext) Reward {
	out := Reward{ID: r.ID, Event: r.Event, Type: r.Type, MaxDuration: r.MaxDuration}
	if r.AmountInCents != nil {
		out.AmountInCents = *r.AmountInCents
	}
	if r.AmountInPercentageBP != nil {
		out.PercentageBP = *r.AmountInPercentageBP
	}
	if !r.Modifiers.Valid {
		return out
	}
	var best *models.RewardModifier
	bestAmount := math.Inf(-1)
	for i := range r.Modifiers.V {
		m := &r.Modifiers.V[i]
		if !groupMatches(m, ctx) {
			continue
		}
		typ := r.Type
		if m.Type != nil {
			typ = *m.Type
		}
		amount := 0.0
		if typ == models.RewardPercentage {
			if m.AmountInPercentage != nil {
				amount = *m.AmountInPercentage
			}
		} else if m.AmountInCents != nil {
			amount = float64(*m.AmountInCents)
		}
		if amount > bestAmount {
			best, bestAmount = m, amount
		}
	}
	if best == nil {
		return out
	}
	if best.Type != nil {
		out.Type = *best.Type
	}
	out.AmountInCents, out.PercentageBP = 0, 0
	if best.AmountInCents != nil {
		out.AmountInCents = *best.AmountInCents
	}
	if best.AmountInPercentage != nil {
		out.PercentageBP = models.PercentageBP(*best.AmountInPercentage)
	}
	if len(best.MaxDuration) > 0 {
		var d *int
		if err := json.Unmarshal(best.MaxDuration, &d); err == nil {
			out.MaxDuration = d
		}
	}
	return out
}

func groupMatches(m *models.RewardModifier, ctx RewardContext) bool {
	if len(m.Conditions) == 0 {
		return false
	}
	or := strings.EqualFold(m.Operator, "OR")
	for _, c := range m.Conditions {
		ok := conditionTrue(c, ctx)
		if or && ok {
			return true
		}
		if !or && !ok {
			return false
		}
	}
	return !or
}

// conditionTrue evaluates one condition. A missing attribute is false.
func conditionTrue(c models.RewardCondition, ctx RewardContext) bool {
	attrs, ok := ctx[c.Entity]
	if !ok {
		return false
	}
	v, ok := attrs[c.Attribute]
	if !ok || v == nil {
		return false
	}
	want := c.Value
	if c.Attribute == "metadata" {
		md, ok := v.(map[string]any)
		if !ok || c.MetadataField == nil {
			return false
		}
		if v, ok = lookupPath(md, *c.MetadataField); !ok || v == nil {
			return false
		}
		v = coerceMetadata(v, c.Operator, want)
		if v == nil {
			return false
		}
	}
	if dateAttributes[c.Attribute] {
		want = dateMillis(want)
	}
	return compare(v, c.Operator, want)
}

// lookupPath reads a dotted path from metadata.
func lookupPath(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// coerceMetadata converts a metadata value to what the operator compares:
// strings for text operators, numbers for ordering operators (nil when not a
// number), and the condition value's type for equality.
func coerceMetadata(v any, op string, want any) any {
	switch op {
	case "starts_with", "ends_with", "contains", "not_contains", "in", "not_in":
		return toString(v)
	case "greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal":
		f, ok := toNumber(v)
		if !ok {
			return nil
		}
		return f
	case "equals_to", "not_equals":
		switch want.(type) {
		case float64, int, int64:
			if f, ok := toNumber(v); ok {
				return f
			}
			return nil
		case bool:
			if b, ok := v.(bool); ok {
				return b
			}
			b, err := strconv.ParseBool(toString(v))
			if err != nil {
				return nil
			}
			return b
		}
		return toString(v)
	}
	return v
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func toNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

func dateMillis(v any) any {
	if s, ok := v.(string); ok {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return float64(t.UnixMilli())
			}
		}
	}
	return v
}

// normalize turns Go integers into float64 so strict equality works on the
// JSON-decoded condition values.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

func compare(v any, op string, want any) bool {
	v, want = normalize(v), normalize(want)
	switch op {
	case "equals_to":
		return v == want
	case "not_equals":
		return v != want
	case "starts_with", "ends_with", "contains", "not_contains":
		s, ok1 := v.(string)
		w, ok2 := want.(string)
		if !ok1 || !ok2 {
			return false
		}
		switch op {
		case "starts_with":
			return strings.HasPrefix(s, w)
		case "ends_with":
			return strings.HasSuffix(s, w)
		case "contains":
			return strings.Contains(s, w)
		}
		return !strings.Contains(s, w)
	case "in", "not_in":
		list, ok := want.([]any)
		if !ok {
			return false
		}
		found := false
		for _, x := range list {
			if normalize(x) == v {
				found = true
				break
			}
		}
		return found == (op == "in")
	case "greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal":
		a, ok1 := v.(float64)
		b, ok2 := want.(float64)
		if !ok1 || !ok2 {
			return false
		}
		switch op {
		case "greater_than":
			return a > b
		case "greater_than_or_equal":
			return a >= b
		case "less_than":
			return a < b
		}
		return a <= b
	}
	return false
}

// Earnings is what one event earns under r (§4.2): flat amounts times the
// quantity; percentages of the sale amount, rounded half up.
func Earnings(r Reward, quantity, saleAmount int64) int64 {
	if r.Type == models.RewardPercentage {
		if saleAmount <= 0 || r.PercentageBP <= 0 {
			return 0
		}
		return (saleAmount*r.PercentageBP + 5000) / 10000
	}
	if quantity < 1 {
		quantity = 1
	}
	return r.AmountInCents * quantity
}

// IsZero reports a reward that pays nothing (no commission is created).
func (r Reward) IsZero() bool {
	if r.Type == models.RewardPercentage {
		return r.PercentageBP == 0
	}
	return r.AmountInCents == 0
}

// MonthsBetween counts whole months from a to b: the largest n such that a
// plus n months (clamped to the month's last day) is not after b.
func MonthsBetween(a, b time.Time) int {
	if b.Before(a) {
		return 0
	}
	a, b = a.UTC(), b.UTC()
	n := (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
	for n > 0 && addMonthsClamped(a, n).After(b) {
		n--
	}
	return n
}

func addMonthsClamped(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	if d > last {
		d = last
	}
	return time.Date(first.Year(), first.Month(), d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// SaleAllowed applies maxDuration to a sale for a customer whose first sale
// commission (under firstRewardMaxDuration's reward, when that was a
// different reward) was created at firstAt (§4.3 step 4): 0 pays the first
// sale only, N pays sales within N months of the first, nil pays for life.
func SaleAllowed(r Reward, firstRewardDifferent bool, firstRewardMaxDuration *int, firstAt, now time.Time) bool {
	if firstRewardDifferent && firstRewardMaxDuration != nil && *firstRewardMaxDuration == 0 {
		return false
	}
	if r.MaxDuration == nil {
		return true
	}
	if *r.MaxDuration == 0 {
		return false
	}
	return MonthsBetween(firstAt, now) < *r.MaxDuration
}

// SpendWindowStart is where a spend-limit interval starts at now (UTC):
// allTime, day, week (Monday) or month.
func SpendWindowStart(interval string, now time.Time) time.Time {
	now = now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	switch interval {
	case "day":
		return day
	case "week":
		wd := (int(day.Weekday()) + 6) % 7
		return day.AddDate(0, 0, -wd)
	case "month":
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Time{}
}
