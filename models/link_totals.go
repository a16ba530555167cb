package models

import "context"

// LinkTotals are the counters summed over a workspace's links.
type LinkTotals struct {
	Clicks, Leads, Sales, SaleAmount int64
}

// LinkTotals sums the link counters the click pipeline and conversions keep.
func (db *DB) LinkTotals(ctx context.Context, workspaceID string) (LinkTotals, error) {
	var t LinkTotals
	err := db.WithContext(ctx).Table("links").
		Select("COALESCE(SUM(clicks), 0) AS clicks, COALESCE(SUM(leads), 0) AS leads, COALESCE(SUM(sales), 0) AS sales, COALESCE(SUM(sale_amount), 0) AS sale_amount").
		Where("workspace_id = ?", workspaceID).Scan(&t).Error
	return t, dbErr(err, "sum link counters", "", "")
}

// CountKeyedLinks counts a workspace's links other than its domains' root
// links (a domain comes with one): the links someone made.
func (db *DB) CountKeyedLinks(ctx context.Context, workspaceID string) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Model(&Link{}).Where("workspace_id = ? AND key <> ?", workspaceID, RootKey).Count(&n).Error
	return n, dbErr(err, "count links", "", "")
}
