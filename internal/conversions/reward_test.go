package conversions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/relinkhq/relink/models"
)

func TestEarnings(t *testing.T) {
	pct := func(bp int64) Reward { return Reward{Type: models.RewardPercentage, PercentageBP: bp} }
	flat := func(c int64) Reward { return Reward{Type: models.RewardFlat, AmountInCents: c} }
	for _, tc := range []struct {
		name           string
		r              Reward
		qty, saleCents int64
		want           int64
	}{
		{"spec: 7¢ × 20% rounds down to 1", pct(2000), 1, 7, 1},
		{"spec: 2¢ × 20% is 0", pct(2000), 1, 2, 0},
		{"half rounds up", pct(1000), 1, 5, 1},              // 0.5 → 1
		{"just under half rounds down", pct(1000), 1, 4, 0}, // 0.4 → 0
		{"two-decimal percentage", pct(1050), 1, 250, 26},   // 26.25 → 26
		{"2.5% of 1.00 → 2.5 → 3", pct(250), 1, 100, 3},
		{"100% is the sale", pct(10000), 1, 4999, 4999},
		{"percentage ignores quantity", pct(1000), 5, 1000, 100},
		{"flat times quantity", flat(500), 3, 0, 1500},
		{"flat sale ignores amount", flat(500), 1, 99999, 500},
		{"zero quantity counts once", flat(500), 0, 0, 500},
		{"large sale no overflow", pct(3333), 1, 9_000_000_000_000, 2_999_700_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Earnings(tc.r, tc.qty, tc.saleCents); got != tc.want {
				t.Errorf("Earnings = %d, want %d", got, tc.want)
			}
		})
	}
	if models.PercentageBP(10.5) != 1050 || models.PercentageBP(0.07) != 7 || models.PercentageBP(33.33) != 3333 {
		t.Error("PercentageBP loses precision")
	}
}

func TestMonthsBetween(t *testing.T) {
	d := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2026-01-15T10:00:00Z", "2026-01-20T10:00:00Z", 0},
		{"2026-01-15T10:00:00Z", "2026-02-15T09:59:59Z", 0},
		{"2026-01-15T10:00:00Z", "2026-02-15T10:00:00Z", 1},
		{"2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", 1}, // clamped to February's last day
		{"2026-01-31T00:00:00Z", "2026-02-27T23:00:00Z", 0},
		{"2025-11-10T00:00:00Z", "2026-11-10T00:00:00Z", 12},
		{"2026-03-01T00:00:00Z", "2026-02-01T00:00:00Z", 0}, // b before a
	} {
		if got := MonthsBetween(d(tc.a), d(tc.b)); got != tc.want {
			t.Errorf("MonthsBetween(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSaleAllowed(t *testing.T) {
	first := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	zero, three := 0, 3
	r := func(md *int) Reward {
		return Reward{ID: "rw_1", Type: models.RewardFlat, AmountInCents: 100, MaxDuration: md}
	}
	for _, tc := range []struct {
		name      string
		r         Reward
		different bool
		firstMax  *int
		at        time.Time
		want      bool
	}{
		{"lifetime pays years later", r(nil), false, nil, first.AddDate(5, 0, 0), true},
		{"first sale only: later sales never", r(&zero), false, nil, first.Add(time.Minute), false},
		{"3 months: inside", r(&three), false, nil, first.AddDate(0, 2, 27), true},
		{"3 months: at the boundary", r(&three), false, nil, first.AddDate(0, 3, 0), false},
		{"first under a one-time reward blocks a new reward", r(nil), true, &zero, first.AddDate(0, 1, 0), false},
		{"first under another recurring reward does not block", r(nil), true, &three, first.AddDate(1, 0, 0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SaleAllowed(tc.r, tc.different, tc.firstMax, first, tc.at); got != tc.want {
				t.Errorf("SaleAllowed = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestResolveModifiers(t *testing.T) {
	var mods []models.RewardModifier
	if err := json.Unmarshal([]byte(`[
		{"conditions":[{"entity":"customer","attribute":"country","operator":"in","value":["US","CA"]}],"amountInCents":800},
		{"operator":"OR","conditions":[
			{"entity":"sale","attribute":"amount","operator":"greater_than_or_equal","value":10000},
			{"entity":"sale","attribute":"metadata","metadataField":"plan","operator":"equals_to","value":"enterprise"}],
		 "type":"percentage","amountInPercentage":25,"maxDuration":null},
		{"conditions":[{"entity":"sale","attribute":"metadata","metadataField":"seats","operator":"greater_than","value":10}],
		 "amountInCents":1500,"maxDuration":6},
		{"conditions":[{"entity":"partner","attribute":"totalSales","operator":"less_than","value":1}],"amountInCents":0}
	]`), &mods); err != nil {
		t.Fatal(err)
	}
	twelve := 12
	base := &models.Reward{ID: "rw_1", Event: "sale", Type: models.RewardFlat, AmountInCents: func() *int64 { v := int64(500); return &v }(),
		MaxDuration: &twelve, Modifiers: models.Some(mods)}
	for _, tc := range []struct {
		name    string
		ctx     RewardContext
		typ     string
		cents   int64
		bp      int64
		maxDur  *int
		lifeNil bool
	}{
		{"no match keeps the base", RewardContext{"customer": {"country": "FR"}, "sale": {"amount": 100.0}}, "flat", 500, 0, &twelve, false},
		{"country in list", RewardContext{"customer": {"country": "CA"}}, "flat", 800, 0, &twelve, false},
		{"OR group by amount: percentage, lifetime", RewardContext{"sale": {"amount": 20000.0}}, "percentage", 0, 2500, nil, true},
		{"metadata string equality", RewardContext{"sale": {"amount": 1.0, "metadata": map[string]any{"plan": "enterprise"}}}, "percentage", 0, 2500, nil, true},
		{"metadata number from a string", RewardContext{"sale": {"metadata": map[string]any{"seats": "12"}}}, "flat", 1500, 0, intp6(), false},
		{"unparseable number fails", RewardContext{"sale": {"metadata": map[string]any{"seats": "many"}}}, "flat", 500, 0, &twelve, false},
		// Both the 800¢ and 1500¢ groups match: the highest amount wins.
		{"highest amount wins", RewardContext{"customer": {"country": "US"}, "sale": {"metadata": map[string]any{"seats": 20.0}}}, "flat", 1500, 0, intp6(), false},
		{"missing attribute is false", RewardContext{"customer": {}}, "flat", 500, 0, &twelve, false},
		{"strict types: string 10000 is not the number", RewardContext{"sale": {"amount": "10000"}}, "flat", 500, 0, &twelve, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Resolve(base, tc.ctx)
			if got.Type != tc.typ || got.AmountInCents != tc.cents || got.PercentageBP != tc.bp {
				t.Errorf("Resolve = %+v, want %s %d¢ %dbp", got, tc.typ, tc.cents, tc.bp)
			}
			if (got.MaxDuration == nil) != tc.lifeNil || (got.MaxDuration != nil && tc.maxDur != nil && *got.MaxDuration != *tc.maxDur) {
				t.Errorf("maxDuration = %v, want %v", got.MaxDuration, tc.maxDur)
			}
		})
	}
	// A matching group with amount 0 wins only when nothing pays more, and
	// then the reward pays nothing.
	zero := Resolve(base, RewardContext{"partner": {"totalSales": 0.0}})
	if !zero.IsZero() {
		t.Errorf("zero-amount modifier: %+v", zero)
	}
}

func intp6() *int { v := 6; return &v }

func TestFX(t *testing.T) {
	fx, err := NewFX("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for code := range zeroDecimal {
		if _, ok := fx.Rate(code); !ok {
			t.Errorf("built-in table has no rate for zero-decimal %s", code)
		}
	}
	for _, tc := range []struct {
		amount   int64
		currency string
		rate     float64
		want     int64
	}{
		{1580, "jpy", 158, 1000},      // spec: 1580 JPY ≈ 1000 USD cents
		{1000, "eur", 0.8, 1250},      // two decimals: 10.00 EUR = 12.50 USD
		{999, "gbp", 0.75, 1332},      // 13.32
		{1000, "kwd", 0.307, 326},     // three decimals: 1.000 KWD = 3.2573 USD → 326¢
		{5, "krw", 1380, 0},           // 5 won is a fraction of a cent
		{1000000, "vnd", 25000, 4000}, // 1,000,000 VND = 40 USD
	} {
		if got := convert(tc.amount, tc.currency, tc.rate); got != tc.want {
			t.Errorf("convert(%d %s @%v) = %d, want %d", tc.amount, tc.currency, tc.rate, got, tc.want)
		}
	}
	if got, ok := fx.ToUSDCents(123, "USD"); !ok || got != 123 {
		t.Errorf("usd passthrough = %d %v", got, ok)
	}
	if got, ok := fx.ToUSDCents(123, "zzz"); ok || got != 123 {
		t.Errorf("unknown currency = %d %v, want kept", got, ok)
	}

	// A rates file overrides the built-in table; both file shapes parse.
	dir := t.TempDir()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	path := filepath.Join(dir, "rates.json")
	if err := os.WriteFile(path, []byte(`{"base":"USD","rates":{"EUR":0.5,"ABC":2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fx, err = NewFX(path, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := fx.ToUSDCents(100, "eur"); got != 200 {
		t.Errorf("file rate not used: %d", got)
	}
	if got, ok := fx.ToUSDCents(100, "abc"); !ok || got != 50 {
		t.Errorf("file-only currency: %d %v", got, ok)
	}
	if _, ok := fx.Rate("jpy"); !ok {
		t.Error("built-in rates lost when a file is given")
	}
	// Rewritten file: picked up after the minute check.
	if err := os.WriteFile(path, []byte(`{"eur":0.25}`), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(path, later, later)
	now = now.Add(2 * time.Minute)
	if got, _ := fx.ToUSDCents(100, "eur"); got != 400 {
		t.Errorf("rewritten file not reloaded: %d", got)
	}
	for _, bad := range []string{`{"eur":-1}`, `{"euro":1}`, `{"eur":"x"}`, `{"base":"EUR","rates":{"usd":1}}`, `[`} {
		if _, err := ParseRates([]byte(bad)); err == nil {
			t.Errorf("ParseRates(%s) accepted", bad)
		}
	}
	if _, err := NewFX(filepath.Join(dir, "missing.json"), nil); err == nil {
		t.Error("missing rates file accepted")
	}
}
