package export

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/relinkhq/relink/internal/analytics"
	"github.com/relinkhq/relink/internal/wire/dubjson"
	"github.com/relinkhq/relink/models"
)

// analyticsExportGroupBys are the groupings GET /analytics/export writes, one
// CSV each, in upstream's order (VALID_ANALYTICS_ENDPOINTS without count and
// the deprecated trigger).
func analyticsExportGroupBys(singleLink bool) []analytics.GroupBy {
	var out []analytics.GroupBy
	for _, g := range analytics.AllGroupBys {
		// trigger is the deprecated name of triggers (the same rows): one
		// file of them, not two.
		if g == analytics.Count || g == analytics.Trigger || (singleLink && g == analytics.TopLinks) {
			continue
		}
		out = append(out, g)
	}
	return out
}

// Analytics is the analytics export as upstream's (analytics_export.zip):
// one {groupBy}.csv per grouping that has rows, over the filters and window
// GET /analytics takes in vals; the composite event (clicks, leads, sales
// and revenue in one row) on plans that track conversions, the requested
// event otherwise. The first grouping is read before it returns, so that
// bad input is an error here rather than a cut zip; the others are read and
// written in turn (at most analytics.RowLimit rows each), so only one
// grouping's rows are in memory, and the zip is streamed as it is written.
func Analytics(ctx context.Context, eng analytics.Engine, ws *models.Workspace, vals url.Values, now time.Time) (Download, error) {
	vals = withGroupBy(vals, analytics.Timeseries)
	if ws.Plan.AtLeast(models.PlanBusiness) {
		vals.Set("event", string(analytics.Composite))
	}
	q, err := analytics.Parse(vals, analytics.EndpointAnalytics, now)
	if err != nil {
		return Download{}, err
	}
	singleLink := len(q.LinkID.Values) == 1 && !q.LinkID.Negate
	first, err := eng.Analytics(ctx, ws, q)
	if err != nil {
		return Download{}, err
	}
	return Download{Filename: "analytics_export.zip", ContentType: "application/zip", Write: func(ctx context.Context, w *bufio.Writer) {
		zw := zip.NewWriter(w)
		for _, g := range analyticsExportGroupBys(singleLink) {
			res := first
			if g != analytics.Timeseries {
				q, err := analytics.Parse(withGroupBy(vals, g), analytics.EndpointAnalytics, now)
				if err == nil {
					res, err = eng.Analytics(ctx, ws, q)
				}
				if err != nil {
					slog.Error("analytics export stopped early", "groupBy", g, "err", err)
					writeZipNote(zw, now, "export_incomplete.txt", fmt.Sprintf("export incomplete: %s: %v\n", g, err))
					break
				}
			}
			first = nil
			if err := writeAnalyticsCSV(zw, now, string(g)+".csv", dubjson.Analytics(res)); err != nil {
				slog.Error("analytics export stopped early", "groupBy", g, "err", err)
				break
			}
			if err := w.Flush(); err != nil {
				slog.Info("analytics export: client went away", "err", err)
				return
			}
		}
		_ = zw.Close()
		_ = w.Flush()
	}}, nil
}

func withGroupBy(vals url.Values, g analytics.GroupBy) url.Values {
	out := make(url.Values, len(vals)+1)
	for k, v := range vals {
		out[k] = v
	}
	out.Set("groupBy", string(g))
	return out
}

func writeZipNote(zw *zip.Writer, now time.Time, name, text string) {
	f, err := createInZip(zw, name, now)
	if err == nil {
		_, _ = f.Write([]byte(text))
	}
}

// writeAnalyticsCSV writes one grouping's rows as upstream's convertToCSV
// (json-2-csv) does: nested objects flattened to dotted columns, null as an
// empty cell, formulas neutralised. Rows are the API's own JSON rows; the
// grouping's keys come first (sorted), then the counters. A grouping without
// rows writes no file, as upstream.
func writeAnalyticsCSV(zw *zip.Writer, now time.Time, name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil || len(rows) == 0 {
		return nil // empty groupings have no file, as upstream
	}
	flat := make([]map[string]string, len(rows))
	seen := map[string]bool{}
	var keys []string
	for i, r := range rows {
		flat[i] = map[string]string{}
		flatten("", r, flat[i])
		for k := range flat[i] {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ci, cj := counterRank(keys[i]), counterRank(keys[j])
		if ci != cj {
			return ci < cj
		}
		return keys[i] < keys[j]
	})
	f, err := createInZip(zw, name, now)
	if err != nil {
		return fmt.Errorf("zip %s: %w", name, err)
	}
	cw := csv.NewWriter(f)
	_ = cw.Write(keys)
	for _, r := range flat {
		rec := make([]string, len(keys))
		for i, k := range keys {
			rec[i] = NeutralizeFormula(r[k])
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	cw.Flush()
	return cw.Error()
}

// counterRank puts the four counters last, in upstream's order.
func counterRank(k string) int {
	switch k {
	case "clicks":
		return 1
	case "leads":
		return 2
	case "sales":
		return 3
	case "saleAmount":
		return 4
	}
	return 0
}

// flatten writes v's leaves under dotted keys (json-2-csv's
// expandNestedObjects); arrays are written as JSON.
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, e, out)
		}
	case nil:
		out[prefix] = ""
	case string:
		out[prefix] = x
	case bool:
		out[prefix] = strconv.FormatBool(x)
	case float64:
		out[prefix] = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		b, _ := json.Marshal(x)
		out[prefix] = string(b)
	}
}

// createInZip adds a compressed file dated now (zip.Writer.Create leaves the
// date zero, which unzip shows as 1980).
func createInZip(zw *zip.Writer, name string, now time.Time) (io.Writer, error) {
	return zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: now})
}
