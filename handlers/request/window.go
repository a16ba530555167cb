package request

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	ivl "github.com/relinkhq/relink/internal/interval"
)

// Timestamp formats a time as the API does: UTC, milliseconds, Z.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ParseTime reads an ISO date or date-time query value.
func ParseTime(name, v string, loc *time.Location) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return &t, nil
		}
	}
	return nil, apierr.Validation("invalid_format", name, "Invalid ISO datetime")
}

// ParseWindow reads the time window of an analytics-style query: interval
// (def when absent), start and end (ISO dates or date-times, in the time
// zone), timezone (IANA, default UTC). Bad values are 422 errors.
func ParseWindow(c *fiber.Ctx, def string) (interval string, start, end *time.Time, loc *time.Location, err error) {
	loc = time.UTC
	if tz := c.Query("timezone"); tz != "" {
		if loc, err = time.LoadLocation(tz); err != nil {
			return "", nil, nil, nil, apierr.Validation("invalid_value", "timezone", "Invalid timezone: "+tz)
		}
	}
	interval = c.Query("interval", def)
	if !slices.Contains(conversions.Intervals, interval) {
		return "", nil, nil, nil, apierr.Validation("invalid_value", "interval", "Invalid option: expected one of "+Options(conversions.Intervals))
	}
	if start, err = ParseTime("start", c.Query("start"), loc); err != nil {
		return
	}
	if end, err = ParseTime("end", c.Query("end"), loc); err != nil {
		return
	}
	// The analytics bounds: no window, so no timeseries, grows without bound.
	for name, t := range map[string]*time.Time{"start": start, "end": end} {
		if t == nil {
			continue
		}
		if msg := ivl.Bounds(name, *t); msg != "" {
			return "", nil, nil, nil, apierr.Validation("custom", name, msg)
		}
	}
	return interval, start, end, loc, nil
}

// Options lists the allowed values the way zod's "expected one of" message
// does: "a"|"b"|"c".
func Options(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, "|")
}
