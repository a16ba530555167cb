package analytics

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/interval"
)

// FoundingDate is the earliest instant a window may start at (spec 3.1).
var FoundingDate = interval.Founding

var (
	isoRe    = regexp.MustCompile(`(?i)(?:^|[^0-9])(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?)?(?:$|[^0-9])`)
	slashRe  = regexp.MustCompile(`(?:^|[^0-9])(\d{1,4})/(\d{1,2})/(\d{1,4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?(?:$|[^0-9])`)
	monthRe  = regexp.MustCompile(`(?i)(?:^|[^a-z])(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?)?`)
	dayMonRe = regexp.MustCompile(`(?i)(?:^|[^0-9])(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(Z|UTC|GMT|[+-]\d{2}:?\d{2})?)?`)
	agoRe    = regexp.MustCompile(`(?i)^(\d{1,4}|an?|one)\s+(minute|hour|day|week|month|year)s?\s+ago$`)
)

var months = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

// ParseDate reads a start/end value the way upstream's natural-language
// parser does for the forms people send (spec 3.1): ISO dates (noon UTC),
// date-times with or without an offset (none = UTC), "YYYY-MM-DD HH:MM",
// slashed dates, month names, RFC 1123, and a few relative words. Bare
// numbers and impossible dates are rejected.
func ParseDate(s string, now time.Time) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 200 {
		return time.Time{}, false
	}
	now = now.UTC()
	switch strings.ToLower(strings.Join(strings.Fields(s), " ")) {
	case "now", "today":
		return now, true
	case "yesterday":
		return now.AddDate(0, 0, -1), true
	case "tomorrow":
		return now.AddDate(0, 0, 1), true
	case "last week":
		return now.AddDate(0, 0, -7), true
	case "last month":
		return now.AddDate(0, -1, 0), true
	case "last year":
		return now.AddDate(-1, 0, 0), true
	}
	if m := agoRe.FindStringSubmatch(strings.Join(strings.Fields(s), " ")); m != nil {
		n := 1
		if v, err := strconv.Atoi(m[1]); err == nil {
			n = v
		}
		switch strings.ToLower(m[2]) {
		case "minute":
			return now.Add(-time.Duration(n) * time.Minute), true
		case "hour":
			return now.Add(-time.Duration(n) * time.Hour), true
		case "day":
			return now.AddDate(0, 0, -n), true
		case "week":
			return now.AddDate(0, 0, -7*n), true
		case "month":
			return now.AddDate(0, -n, 0), true
		default:
			return now.AddDate(-n, 0, 0), true
		}
	}
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, time.RFC850, time.ANSIC, "Mon, 2 Jan 2006 15:04:05 MST"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	if m := isoRe.FindStringSubmatch(s); m != nil {
		return build(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
	}
	if m := monthRe.FindStringSubmatch(s); m != nil {
		return buildMonth(months[strings.ToLower(m[1])], m[2], m[3], m[4], m[5], m[6], m[7])
	}
	if m := dayMonRe.FindStringSubmatch(s); m != nil {
		return buildMonth(months[strings.ToLower(m[2])], m[1], m[3], m[4], m[5], m[6], m[7])
	}
	if m := slashRe.FindStringSubmatch(s); m != nil {
		a, b, c := m[1], m[2], m[3]
		switch {
		case len(a) == 4: // YYYY/MM/DD
			return build(a, b, c, m[4], m[5], m[6], "", "")
		case len(c) == 4:
			ai, _ := strconv.Atoi(a)
			if ai > 12 { // DD/MM/YYYY
				return build(c, b, a, m[4], m[5], m[6], "", "")
			}
			return build(c, a, b, m[4], m[5], m[6], "", "") // MM/DD/YYYY
		}
	}
	return time.Time{}, false
}

func buildMonth(mon time.Month, day, year, hh, mm, ss, zone string) (time.Time, bool) {
	return build(year, strconv.Itoa(int(mon)), day, hh, mm, ss, "", zone)
}

// build assembles a validated instant; a date without a time is noon UTC.
func build(year, month, day, hh, mm, ss, frac, zone string) (time.Time, bool) {
	y, _ := strconv.Atoi(year)
	mo, _ := strconv.Atoi(month)
	d, _ := strconv.Atoi(day)
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(time.Month(mo), y) {
		return time.Time{}, false
	}
	if hh == "" {
		return time.Date(y, time.Month(mo), d, 12, 0, 0, 0, time.UTC), true
	}
	h, _ := strconv.Atoi(hh)
	mi, _ := strconv.Atoi(mm)
	se := 0
	if ss != "" {
		se, _ = strconv.Atoi(ss)
	}
	if h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	ns := 0
	if frac != "" {
		f := (frac + "000000000")[:9]
		ns, _ = strconv.Atoi(f)
	}
	off := 0
	switch z := strings.ToUpper(zone); {
	case z == "" || z == "Z" || z == "UTC" || z == "GMT":
	default:
		sign := 1
		if z[0] == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(z[1:], ":", "")
		oh, _ := strconv.Atoi(digits[:2])
		om := 0
		if len(digits) == 4 {
			om, _ = strconv.Atoi(digits[2:])
		}
		if oh > 14 || om > 59 {
			return time.Time{}, false
		}
		off = sign * (oh*3600 + om*60)
	}
	t := time.Date(y, time.Month(mo), d, h, mi, se, ns, time.FixedZone("", off))
	return t.UTC(), true
}

func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
