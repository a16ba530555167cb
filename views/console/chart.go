package console

import (
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
	Chart       ChartView // clicks
	ConvChart   ChartView // leads and sales, on their own axis
	Bars        []BarList
	EventRows   []EventRow
	Error       string // a bad query: shown above the charts
	// The filter form: the parameters it keeps (Value=name, Label=value)
	// and the inputs it shows.
	Hidden        []Option
	FilterSelects []SelectProps
	// The downloads (dashboard only): analytics as a zip of CSVs, the
	// chosen event's events as CSV.
	ExportAnalytics ExportForm
	ExportEvents    ExportForm
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
// filters by it ("" for the Unknown row, which is not a filter).
type BarRow struct {
	Label, Value, Href string
	Icon               string // a country's flag
	Pct                int    // 0-100, of the list's largest value
	Unknown            bool   // the events without a value
}

// EventRow is one row of the events table.
type EventRow struct {
	Time, Event, Link, Country, Device, Browser, Referer, Amount string
	Customer                                                     string // leads and sales: the customer's name or email
}

// ChartView is a timeseries chart: the lines in an SVG that stretches to
// its box, the axis labels as HTML text beside it, so they keep their size
// (readable) at any width. Each chart has its own y axis: the dashboard
// draws clicks in one and leads and sales in a second, so conversions are
// not flat lines under the clicks.
type ChartView struct {
	TestID string   // "chart-clicks", "chart-conversions"
	Title  string   // shown above the chart
	Labels []string // one per bucket (x axis)
	Series []Series
	Small  bool // the shorter, second chart
}

// Series is one line of the chart.
type Series struct {
	Name   string
	Total  string
	Points []int64
	Color  int // index into seriesStyles
}

// The plot's coordinate system (stretched to the box: preserveAspectRatio
// none, strokes do not scale).
const plotW, plotH = 1000.0, 100.0

// Class names written out whole for Tailwind.
var seriesStyles = []struct{ stroke, fill, dot string }{
	{"stroke-indigo-500", "fill-indigo-500/10", "bg-indigo-500"},
	{"stroke-amber-500", "fill-amber-500/10", "bg-amber-500"},
	{"stroke-emerald-500", "fill-emerald-500/10", "bg-emerald-500"},
}

func (s Series) strokeClass() string { return seriesStyles[s.Color%len(seriesStyles)].stroke }
func (s Series) fillClass() string   { return seriesStyles[s.Color%len(seriesStyles)].fill }
func (s Series) dotClass() string    { return seriesStyles[s.Color%len(seriesStyles)].dot }

// NiceAxis is the y axis for values up to max: a step of 1, 2 or 5 times a
// power of ten giving at most five intervals, and the top (a multiple of
// the step at or above max). An empty chart gets 0–4 in steps of 1.
func NiceAxis(max int64) (step, top int64) {
	if max <= 0 {
		return 1, 4
	}
	for mag := int64(1); ; mag *= 10 {
		for _, f := range []int64{1, 2, 5} {
			step = f * mag
			if (max+step-1)/step <= 5 {
				return step, (max + step - 1) / step * step
			}
		}
	}
}

func (c ChartView) max() int64 {
	var m int64
	for _, s := range c.Series {
		for _, p := range s.Points {
			m = max(m, p)
		}
	}
	return m
}

func (c ChartView) top() int64 {
	_, top := NiceAxis(c.max())
	return top
}

// yTick is a y axis label and grid line: its value and height in percent.
type yTick struct {
	Label, Pct, Y string
}

// yTicks are the axis's round values from 0 to the top.
func (c ChartView) yTicks() []yTick {
	step, top := NiceAxis(c.max())
	var out []yTick
	for v := int64(0); v <= top; v += step {
		pct := float64(v) * 100 / float64(top)
		out = append(out, yTick{Label: compact(v), Pct: "bottom: " + f1(pct) + "%", Y: f1(plotH - pct)})
	}
	return out
}

func (c ChartView) x(i int) float64 {
	n := len(c.Labels)
	if n <= 1 {
		return plotW / 2
	}
	return float64(i) * plotW / float64(n-1)
}

func (c ChartView) y(v int64) float64 { return plotH * (1 - float64(v)/float64(c.top())) }

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

// dots are the buckets as zero-length subpaths, drawn as round caps (a
// circle would stretch with the plot).
func (c ChartView) dots(s Series) string {
	if len(c.Labels) > 48 {
		return ""
	}
	var b strings.Builder
	for i, p := range s.Points {
		b.WriteString("M" + f1(c.x(i)) + " " + f1(c.y(p)) + " h0 ")
	}
	return b.String()
}

// area is the line closed down to the x axis.
func (c ChartView) area(s Series) string {
	if len(s.Points) == 0 {
		return ""
	}
	base := f1(plotH)
	return c.line(s) + " L" + f1(c.x(len(s.Points)-1)) + " " + base + " L" + f1(c.x(0)) + " " + base + " Z"
}

// drawOrder draws the first series last, so it stays on top.
func (c ChartView) drawOrder() []Series {
	out := make([]Series, 0, len(c.Series))
	for i := len(c.Series) - 1; i >= 0; i-- {
		out = append(out, c.Series[i])
	}
	return out
}

// xTick is an x axis label: its position and how it is anchored there.
type xTick struct {
	Label, Style, Class string
}

// xTicks label evenly spread buckets, the first and the last always: up
// to seven from the sm breakpoint up, up to four on a phone (each set its
// own elements, the other hidden), so labels never crowd.
func (c ChartView) xTicks() []xTick {
	n := len(c.Labels)
	if n == 0 {
		return nil
	}
	var out []xTick
	for _, set := range []struct {
		count int
		class string
	}{{7, "hidden sm:block"}, {4, "sm:hidden"}} {
		idx := spread(n, set.count)
		for j, i := range idx {
			t := xTick{Label: c.Labels[i], Class: set.class,
				Style: "left: " + f1(c.x(i)/plotW*100) + "%; transform: translateX(-50%)"}
			switch {
			case n == 1:
			case j == 0:
				t.Style = "left: 0%"
			case j == len(idx)-1:
				t.Style = "right: 0%"
			}
			out = append(out, t)
		}
	}
	return out
}

// spread is up to count indices of [0, n) evenly apart, with 0 and n-1.
func spread(n, count int) []int {
	if n <= count {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, count)
	for k := range out {
		out[k] = (k*(n-1) + (count-1)/2) / (count - 1)
	}
	return out
}

// column is one bucket's hover target with its numbers as a tooltip.
type column struct {
	X, W, Title string
}

func (c ChartView) columns() []column {
	n := len(c.Labels)
	out := make([]column, n)
	w := plotW
	if n > 1 {
		w = plotW / float64(n-1)
	}
	for i := range out {
		parts := make([]string, 0, len(c.Series))
		for _, s := range c.Series {
			if i < len(s.Points) {
				parts = append(parts, strconv.FormatInt(s.Points[i], 10)+" "+strings.ToLower(s.Name))
			}
		}
		out[i] = column{X: f1(max(0, c.x(i)-w/2)), W: f1(w), Title: c.Labels[i] + ": " + strings.Join(parts, ", ")}
	}
	return out
}

func (c ChartView) viewBox() string { return "0 0 " + f1(plotW) + " " + f1(plotH) }

func (c ChartView) plotClass() string {
	if c.Small {
		return "relative h-28 min-w-0 flex-1"
	}
	return "relative h-44 min-w-0 flex-1 sm:h-56"
}

func (c ChartView) axisClass() string {
	if c.Small {
		return "relative h-28 w-9 shrink-0"
	}
	return "relative h-44 w-9 shrink-0 sm:h-56"
}

// compact formats 1234 as 1.2K.
func compact(v int64) string {
	switch {
	case v >= 1_000_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(v)/1e6, 'f', 1, 64), ".0") + "M"
	case v >= 10_000:
		return strconv.FormatInt(v/1000, 10) + "K"
	case v >= 1000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(v)/1e3, 'f', 1, 64), ".0") + "K"
	}
	return strconv.FormatInt(v, 10)
}

func barClass(unknown bool) string {
	c := "relative block min-w-0 flex-1 overflow-hidden rounded px-2 py-1 text-sm"
	if unknown {
		c += " italic text-gray-500 dark:text-gray-400"
	}
	return c
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
