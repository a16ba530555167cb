package console

import (
	"fmt"
	"strconv"
	"strings"
)

// AnalyticsView is the analytics dashboard (and the per-link panel).
type AnalyticsView struct {
	Base        string // the page's path; filters and intervals link to it
	Query       string // the current query string (without "?")
	Intervals   []Option
	Event       string // which series the bar lists count: clicks | leads | sales
	Events      []Option
	Filters     []ActiveFilter
	ShowFilters bool // the filter chips and event picker (the dashboard; not the link panel)
	Totals      Totals
	Chart       ChartView
	Bars        []BarList
	EventRows   []EventRow
	Error       string // a bad query: shown above the charts
	// The filter form: the parameters it keeps (Value=name, Label=value)
	// and the inputs it shows.
	Hidden        []Option
	FilterInputs  []FilterInput
	FilterSelects []SelectProps
	// The downloads (dashboard only): analytics as a zip of CSVs, the
	// chosen event's events as CSV.
	ExportAnalytics ExportForm
	ExportEvents    ExportForm
}

// FilterInput is one text filter of the dashboard.
type FilterInput struct {
	Name, Label, Value, Placeholder string
}

// Totals are the headline numbers of the window.
type Totals struct {
	Clicks, Leads, Sales, SaleAmount string
}

// ActiveFilter is one applied filter with a link that removes it.
type ActiveFilter struct {
	Label, Value, RemoveURL string
}

// BarList is a top-N list drawn as horizontal bars.
type BarList struct {
	Title, TestID string
	Rows          []BarRow
}

// BarRow is one bar: label, value, share of the largest, and a link that
// filters by it.
type BarRow struct {
	Label, Value, Href string
	Pct                int // 0-100, of the list's largest value
}

// EventRow is one row of the events table.
type EventRow struct {
	Time, Event, Link, Country, Device, Browser, Referer, Amount string
}

// ChartView is a timeseries chart drawn as inline SVG: one line per series,
// the first also filled.
type ChartView struct {
	Labels []string // one per bucket (x axis)
	Series []Series
}

// Series is one line of the chart.
type Series struct {
	Name   string
	Total  string
	Points []int64
	Color  int // index into seriesStyles
}

// Chart geometry (SVG user units).
const (
	chartW, chartH         = 800.0, 240.0
	padL, padR, padT, padB = 44.0, 8.0, 12.0, 28.0
)

// Class names written out whole for Tailwind.
var seriesStyles = []struct{ stroke, fill, dot string }{
	{"stroke-indigo-500", "fill-indigo-500/10", "bg-indigo-500"},
	{"stroke-amber-500", "fill-amber-500/10", "bg-amber-500"},
	{"stroke-emerald-500", "fill-emerald-500/10", "bg-emerald-500"},
}

func (s Series) strokeClass() string { return seriesStyles[s.Color%len(seriesStyles)].stroke }
func (s Series) fillClass() string   { return seriesStyles[s.Color%len(seriesStyles)].fill }
func (s Series) dotClass() string    { return seriesStyles[s.Color%len(seriesStyles)].dot }

// max is the y axis top: the largest point rounded up to a "nice" number.
func (c ChartView) max() int64 {
	var m int64
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p > m {
				m = p
			}
		}
	}
	if m <= 4 {
		return 4
	}
	step := int64(1)
	for step*10 < m {
		step *= 10
	}
	for _, f := range []int64{1, 2, 5, 10} {
		if f*step >= m {
			return f * step
		}
	}
	return m
}

func (c ChartView) x(i int) float64 {
	n := len(c.Labels)
	if n <= 1 {
		return padL + (chartW-padL-padR)/2
	}
	return padL + float64(i)*(chartW-padL-padR)/float64(n-1)
}

func (c ChartView) y(v int64) float64 {
	return padT + (chartH-padT-padB)*(1-float64(v)/float64(c.max()))
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// line is the series' polyline path.
func (c ChartView) line(s Series) string {
	var b strings.Builder
	for i, p := range s.Points {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString(" L")
		}
		b.WriteString(f1(c.x(i)) + " " + f1(c.y(p)))
	}
	return b.String()
}

// area is the line closed down to the x axis.
func (c ChartView) area(s Series) string {
	if len(s.Points) == 0 {
		return ""
	}
	base := f1(chartH - padB)
	return c.line(s) + " L" + f1(c.x(len(s.Points)-1)) + " " + base + " L" + f1(c.x(0)) + " " + base + " Z"
}

// gridLine is a horizontal rule at a fraction of the max.
type gridLine struct {
	Y     string
	Label string
}

func (c ChartView) grid() []gridLine {
	m := c.max()
	out := make([]gridLine, 0, 5)
	for i := int64(0); i <= 4; i++ {
		v := m * i / 4
		out = append(out, gridLine{Y: f1(c.y(v)), Label: compact(v)})
	}
	return out
}

// tick is an x axis label.
type tick struct {
	X, Label, Anchor string
}

// drawOrder draws the first series (clicks) last, so it stays on top.
func (c ChartView) drawOrder() []Series {
	out := make([]Series, 0, len(c.Series))
	for i := len(c.Series) - 1; i >= 0; i-- {
		out = append(out, c.Series[i])
	}
	return out
}

// dots marks each bucket when there are few enough to tell apart.
func (c ChartView) dots() bool { return len(c.Labels) <= 48 }

// ticks labels about six evenly spaced buckets.
func (c ChartView) ticks() []tick {
	n := len(c.Labels)
	if n == 0 {
		return nil
	}
	step := (n + 5) / 6
	var out []tick
	for i := 0; i < n; i += step {
		anchor := "middle"
		if n > 1 && i >= n-step/2-1 {
			anchor = "end"
		}
		out = append(out, tick{X: f1(c.x(i)), Label: c.Labels[i], Anchor: anchor})
	}
	return out
}

// points are hover targets with a tooltip per bucket.
type point struct {
	X, Y, Title string
}

func (c ChartView) points(s Series) []point {
	out := make([]point, len(s.Points))
	for i, p := range s.Points {
		out[i] = point{X: f1(c.x(i)), Y: f1(c.y(p)), Title: fmt.Sprintf("%s: %d %s", c.Labels[i], p, strings.ToLower(s.Name))}
	}
	return out
}

func (c ChartView) viewBox() string { return "0 0 " + f1(chartW) + " " + f1(chartH) }
func (c ChartView) labelY() string  { return f1(chartH - 8) }
func (c ChartView) left() string    { return f1(padL) }
func (c ChartView) right() string   { return f1(chartW - padR) }
func (c ChartView) gridX() string   { return f1(padL - 6) }

// compact formats 1234 as 1.2K.
func compact(v int64) string {
	switch {
	case v >= 1_000_000:
		return strconv.FormatFloat(float64(v)/1e6, 'f', 1, 64) + "M"
	case v >= 10_000:
		return strconv.FormatInt(v/1000, 10) + "K"
	case v >= 1000:
		return strconv.FormatFloat(float64(v)/1e3, 'f', 1, 64) + "K"
	}
	return strconv.FormatInt(v, 10)
}

func barWidth(pct int) string { return "width: " + strconv.Itoa(pct) + "%" }

// advancedOpen opens the advanced part of the link form when it has values
// or errors.
func (f LinkForm) advancedOpen() bool {
	if f.ExpiresAt+f.ExpiredURL+f.Password+f.UTMSource+f.UTMMedium+f.UTMCampaign != "" {
		return true
	}
	for _, k := range []string{"expiresAt", "expiredUrl", "password", "utm_source", "utm_medium", "utm_campaign"} {
		if f.Errors[k] != "" {
			return true
		}
	}
	return false
}
