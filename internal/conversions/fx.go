package conversions

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"
)

// Rates files hold units of each currency per 1 USD, keyed by ISO-4217 code
// (any case): either a flat object {"eur": 0.92, "jpy": 145} or the common
// provider shape {"base": "USD", "rates": {"EUR": 0.92, …}}. Keys starting
// with "_" are comments. The built-in table below is the fallback; a file
// named by RELINK_FX_RATES overrides and extends it, and is re-read when it
// changes on disk (checked at most once a minute), so a daily cron that
// rewrites it is all a deployment needs.
//
//go:embed fxrates.json
var defaultRatesJSON []byte

// zeroDecimal currencies have no minor unit: an amount is whole units
// (spec/partners-and-embed.md §1.3).
var zeroDecimal = map[string]bool{
	"bif": true, "clp": true, "djf": true, "gnf": true, "jpy": true, "kmf": true, "krw": true, "mga": true,
	"pyg": true, "rwf": true, "ugx": true, "vnd": true, "vuv": true, "xaf": true, "xof": true, "xpf": true,
}

// threeDecimal currencies count thousandths: an amount is in 1/1000 units.
var threeDecimal = map[string]bool{
	"bhd": true, "iqd": true, "jod": true, "kwd": true, "lyd": true, "omr": true, "tnd": true,
}

// FX converts sale amounts to USD cents.
type FX struct {
	path string
	now  func() time.Time

	mu        sync.Mutex
	rates     map[string]float64
	checked   time.Time
	fileMtime time.Time
}

// ParseRates reads a rates document.
func ParseRates(b []byte) (map[string]float64, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("fx rates: %w", err)
	}
	if inner, ok := raw["rates"]; ok {
		if base, ok := raw["base"]; ok {
			var b string
			if err := json.Unmarshal(base, &b); err != nil || !strings.EqualFold(b, "usd") {
				return nil, fmt.Errorf("fx rates: base must be USD, got %s", base)
			}
		}
		raw = nil
		if err := json.Unmarshal(inner, &raw); err != nil {
			return nil, fmt.Errorf("fx rates: rates: %w", err)
		}
	}
	out := make(map[string]float64, len(raw))
	for k, v := range raw {
		if strings.HasPrefix(k, "_") || k == "base" || k == "timestamp" || k == "date" {
			continue
		}
		code := strings.ToLower(strings.TrimSpace(k))
		if len(code) != 3 {
			return nil, fmt.Errorf("fx rates: %q is not an ISO-4217 code", k)
		}
		var r float64
		if err := json.Unmarshal(v, &r); err != nil {
			return nil, fmt.Errorf("fx rates: %s: want a number, got %s", k, v)
		}
		if r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, fmt.Errorf("fx rates: %s: rate must be positive, got %v", k, r)
		}
		out[code] = r
	}
	return out, nil
}

// NewFX builds the converter from the built-in table and, when path is not
// empty, the rates file, which must exist and parse (fail fast at start-up).
func NewFX(path string, now func() time.Time) (*FX, error) {
	if now == nil {
		now = time.Now
	}
	f := &FX{path: path, now: now}
	base, err := ParseRates(defaultRatesJSON)
	if err != nil {
		return nil, fmt.Errorf("built-in %w", err)
	}
	f.rates = base
	if path != "" {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("RELINK_FX_RATES: %w", err)
		}
		if err := f.load(st.ModTime()); err != nil {
			return nil, err
		}
	}
	f.checked = now()
	return f, nil
}

// load merges the file over the built-in table.
func (f *FX) load(mtime time.Time) error {
	b, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("RELINK_FX_RATES: %w", err)
	}
	fileRates, err := ParseRates(b)
	if err != nil {
		return fmt.Errorf("RELINK_FX_RATES %s: %w", f.path, err)
	}
	merged, _ := ParseRates(defaultRatesJSON)
	for k, v := range fileRates {
		merged[k] = v
	}
	f.rates, f.fileMtime = merged, mtime
	return nil
}

// Rate is the number of currency units per USD, and whether it is known.
func (f *FX) Rate(currency string) (float64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.path != "" && f.now().Sub(f.checked) >= time.Minute {
		f.checked = f.now()
		if st, err := os.Stat(f.path); err == nil && !st.ModTime().Equal(f.fileMtime) {
			// A bad rewrite keeps the previous rates rather than failing sales.
			_ = f.load(st.ModTime())
		}
	}
	r, ok := f.rates[strings.ToLower(currency)]
	return r, ok
}

// ToUSDCents converts an amount in currency's minor units to USD cents.
// It reports false when no rate is known: the caller keeps the original
// amount and currency (§1.3 step 4).
func (f *FX) ToUSDCents(amount int64, currency string) (int64, bool) {
	currency = strings.ToLower(currency)
	if currency == "usd" {
		return amount, true
	}
	rate, ok := f.Rate(currency)
	if !ok {
		return amount, false
	}
	return convert(amount, currency, rate), true
}

// convert applies a rate: zero-decimal amounts are whole units (×100 to get
// cents), three-decimal amounts thousandths (÷10); rounding is half up.
func convert(amount int64, currency string, rate float64) int64 {
	v := float64(amount) / rate
	switch {
	case zeroDecimal[currency]:
		v *= 100
	case threeDecimal[currency]:
		v /= 10
	}
	return int64(math.Round(v))
}
