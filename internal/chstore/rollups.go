package chstore

import (
	"fmt"
	"time"

	"github.com/relinkhq/relink/models"
)

// clickIngest is the Null table clicks go in through (migration 01570): its
// views route the raw rows (dim empty) to clicks and the rollup rows to
// event_aggregates.
const clickIngest = "clicks_ingest"

// rollupRow is one event_aggregates row of clicks as clicks_ingest takes
// it (event "click", amount 0).
type rollupRow struct {
	WorkspaceID string `json:"workspace_id"`
	Dim         string `json:"dim"`
	Hour        string `json:"hour"`
	Value       string `json:"value"`
	Count       int64  `json:"count"`
}

// clickRollups sums click rows (clickRow values) into their rollup rows:
// models.AggregateFolder's dimensions, values and grains (hourly rows, UTC
// days, ISO weeks), which migration 01550's view computed in ClickHouse
// and `relink clickhouse rebuild-rollups` still computes from the raw rows.
// A batch's clicks repeat few values, so it sums to far fewer rows than the
// 40 per click the view expanded before grouping.
func clickRollups(rows []any) ([]any, error) {
	cs := make([]models.Click, 0, len(rows))
	for _, r := range rows {
		k, ok := r.(clickRow)
		if !ok {
			return nil, fmt.Errorf("clickhouse: insert into clicks: row %T is not a ClickRow", r)
		}
		cs = append(cs, models.Click{WorkspaceID: k.WorkspaceID, LinkID: k.LinkID, Timestamp: time.UnixMicro(k.TS).UTC(),
			Continent: k.Continent, Country: k.Country, Region: k.Region, City: k.City, Device: k.Device,
			Browser: k.Browser, OS: k.OS, Trigger: k.Trigger, Referer: k.Referer, RefererURL: k.RefererURL, URL: k.URL})
	}
	f := models.NewAggregateFolder()
	f.AddClicks(cs)
	aggs := f.TakeAll()
	out := make([]any, len(aggs))
	for i, a := range aggs {
		out[i] = rollupRow{WorkspaceID: a.WorkspaceID, Dim: a.Dim, Hour: a.Hour.UTC().Format(time.DateTime), Value: a.Value, Count: a.Count}
	}
	return out, nil
}
