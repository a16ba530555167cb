package chstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/relinkhq/relink/models"
)

// clickIngest is the Null table clicks go in through (migration 01570): its
// views route the raw rows (dim empty) to clicks and the rollup rows to
// event_aggregates.
const clickIngest = "clicks_ingest"

// clickIngestColumns are the columns insertClicks writes, in its order.
const clickIngestColumns = "workspace_id, ts, identity_hash, click_id, link_id, domain, key, url, ip, continent, country, region, city, " +
	"latitude, longitude, device, device_vendor, device_model, browser, browser_version, engine, engine_version, os, os_version, " +
	"cpu_architecture, ua, bot, qr, trigger, referer, referer_url, utm_source, utm_medium, utm_campaign, utm_term, utm_content, " +
	"dim, hour, value, count"

// clickRollups sums clicks into their rollup rows: models.AggregateFolder's
// dimensions, values and grains (hourly rows, UTC days, ISO weeks), which
// migration 01550's view computed in ClickHouse and `relink clickhouse
// rebuild-rollups` still computes from the raw rows. A batch's clicks
// repeat few values, so it sums to far fewer rows than the 40 per click
// the view expanded before grouping.
//
// With them the four-week rows of the link and URL dimensions
// (models.FourWeekSuffix, migration 01580), which the SQL store does not
// have: the analytics engine reads them for long windows once it has
// checked them against the hourly totals, so they are summed from the same
// clicks and sent in the same insert.
func clickRollups(batch []models.Click) []models.EventAggregate {
	f := models.NewAggregateFolder()
	f.AddClicks(batch)
	return append(f.TakeUnsorted(), fourWeekRollups(batch)...)
}

// fourWeekRollups sums clicks into their link@4week and url@4week rows.
func fourWeekRollups(batch []models.Click) []models.EventAggregate {
	type key struct {
		ws, dim, value string
		block          int64
	}
	sums := make(map[key]int64, 16)
	var order []key
	for i := range batch {
		c := &batch[i]
		b := models.FourWeekStart(c.Timestamp).Unix()
		for _, k := range [2]key{{c.WorkspaceID, models.DimLink + models.FourWeekSuffix, c.LinkID, b}, {c.WorkspaceID, "url" + models.FourWeekSuffix, c.URL, b}} {
			if _, ok := sums[k]; !ok {
				order = append(order, k)
			}
			sums[k]++
		}
	}
	out := make([]models.EventAggregate, 0, len(order))
	for _, k := range order {
		out = append(out, models.EventAggregate{WorkspaceID: k.ws, Event: models.AggClick, Dim: k.dim, Hour: time.Unix(k.block, 0).UTC(), Value: k.value, Count: sums[k]})
	}
	return out
}

// insertClicks sends clicks and their rollups in one INSERT into
// clicks_ingest, as TabSeparated written straight from the clicks: cheaper
// to write here and to parse for ClickHouse than JSONEachRow
// (bench/README.md, issue 34 item 2).
func (c *Client) insertClicks(ctx context.Context, batch []models.Click, rolled []models.EventAggregate, params url.Values) error {
	// Sized once, not grown by doubling. Not pooled: after an answer the
	// HTTP transport's writer may still hold the body without an ordering
	// the next batch could rely on (models.copyBufs pools COPY's buffer,
	// whose pgx call waits for its reader on success).
	b := append(make([]byte, 0, len(batch)*insertRowBytes+len(rolled)*80), "INSERT INTO "+clickIngest+" ("+clickIngestColumns+") FORMAT TabSeparated\n"...)
	for i := range batch {
		k := &batch[i]
		b = appendTSV(b, k.WorkspaceID)
		b = append(b, '\t')
		b = strconv.AppendInt(b, Micros(k.Timestamp), 10)
		for _, s := range [...]string{k.IdentityHash, k.ClickID, k.LinkID, k.Domain, k.Key, k.URL, k.IP, k.Continent, k.Country,
			k.Region, k.City, k.Latitude, k.Longitude, k.Device, k.DeviceVendor, k.DeviceModel, k.Browser, k.BrowserVersion,
			k.Engine, k.EngineVersion, k.OS, k.OSVersion, k.CPUArchitecture, k.UA} {
			b = append(b, '\t')
			b = appendTSV(b, s)
		}
		b = append(b, '\t', '0'+b2u(k.Bot), '\t', '0'+b2u(k.QR))
		for _, s := range [...]string{k.Trigger, k.Referer, k.RefererURL, k.UTMSource, k.UTMMedium, k.UTMCampaign, k.UTMTerm, k.UTMContent} {
			b = append(b, '\t')
			b = appendTSV(b, s)
		}
		// No dim: a raw row (clicks_ingest_1_raw).
		b = append(b, "\t\t1970-01-01 00:00:00\t\t0\n"...)
	}
	// A rollup row: the click columns empty but the workspace.
	const noClick = "\t0" + "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t" + "\t0\t0" + "\t\t\t\t\t\t\t\t"
	hours := map[int64]string{} // a batch's rows have few distinct hours
	for i := range rolled {
		a := &rolled[i]
		b = appendTSV(b, a.WorkspaceID)
		b = append(b, noClick...)
		b = append(b, '\t')
		b = appendTSV(b, a.Dim)
		b = append(b, '\t')
		h, ok := hours[a.Hour.Unix()]
		if !ok {
			h = a.Hour.UTC().Format(time.DateTime)
			hours[a.Hour.Unix()] = h
		}
		b = append(b, h...)
		b = append(b, '\t')
		b = appendTSV(b, a.Value)
		b = append(b, '\t')
		b = strconv.AppendInt(b, a.Count, 10)
		b = append(b, '\n')
	}
	body, err := c.do(ctx, params, bytes.NewReader(b), true)
	if err != nil {
		return fmt.Errorf("insert %d clicks and %d rollup rows into %s: %w", len(batch), len(rolled), clickIngest, err)
	}
	_, _ = io.Copy(io.Discard, body)
	return body.Close()
}

// tsvEscaped marks the bytes appendTSV escapes.
var tsvEscaped = [256]bool{'\\': true, '\t': true, '\n': true, '\r': true, 0: true, '\b': true, '\f': true}

// insertRowBytes is the room insertClicks makes per click, more than a
// typical row.
const insertRowBytes = 512

// appendTSV appends s escaped as a TabSeparated field (unescapeTSV's
// inverse).
func appendTSV(b []byte, s string) []byte {
	i := 0
	for i < len(s) && !tsvEscaped[s[i]] {
		i++
	}
	b = append(b, s[:i]...) // most values have nothing to escape
	for ; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\':
			b = append(b, '\\', '\\')
		case '\t':
			b = append(b, '\\', 't')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case 0:
			b = append(b, '\\', '0')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, ch)
		}
	}
	return b
}
