package importer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/importer"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// yourlsDump is the shape mysqldump writes for a YOURLS 1.9 database.
const yourlsDump = "-- MySQL dump 10.13\n" +
	"DROP TABLE IF EXISTS `yourls_url`;\n" +
	"CREATE TABLE `yourls_url` (\n  `keyword` varchar(100) NOT NULL,\n  `url` text NOT NULL,\n  `title` text,\n" +
	"  `timestamp` timestamp NOT NULL DEFAULT current_timestamp(),\n  `ip` varchar(41) NOT NULL,\n  `clicks` int(10) unsigned NOT NULL,\n" +
	"  PRIMARY KEY (`keyword`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;\n" +
	"INSERT INTO `yourls_url` VALUES ('ozh','https://ozh.org/','Ozh\\'s \"blog\"','2019-09-17 20:04:04','127.0.0.1',2)," +
	"('yourls','https://yourls.org/',NULL,'2020-01-02 03:04:05','127.0.0.1',0),('its','https://example.com/a,b)','it''s'," +
	"'2021-05-06 07:08:09','::1',0);\n" +
	"CREATE TABLE `yourls_log` (\n  `click_id` int(11) NOT NULL AUTO_INCREMENT,\n  `click_time` datetime NOT NULL,\n" +
	"  `shorturl` varchar(100) NOT NULL,\n  `referrer` varchar(200) NOT NULL,\n  `user_agent` varchar(255) NOT NULL,\n" +
	"  `ip_address` varchar(41) NOT NULL,\n  `country_code` char(2) NOT NULL,\n  PRIMARY KEY (`click_id`)\n) ENGINE=InnoDB;\n" +
	"INSERT INTO `yourls_log` VALUES (1,'2019-10-01 10:00:00','ozh','direct','Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0 Safari/537.36','1.2.3.4','de')," +
	"(2,'2019-11-15 11:00:00','OZH','https://twitter.com/x','curl/8.0','5.6.7.8','');\n"

func TestYOURLSDump(t *testing.T) {
	if _, err := importer.NewYOURLSDump([]byte(yourlsDump), ""); err == nil {
		t.Fatal("no domain accepted")
	}
	if _, err := importer.NewYOURLSDump([]byte("INSERT INTO `x` VALUES (1);"), "y.test"); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Fatalf("dump without links: %v", err)
	}
	if _, err := importer.NewYOURLSDump([]byte("INSERT INTO `yourls_url` VALUES ('a','b"), "y.test"); err == nil {
		t.Fatal("truncated dump accepted")
	}
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		svc, ws := setup(t, db, "yo")
		src, err := importer.NewYOURLSDump([]byte(yourlsDump), "y.acme.test")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := (&importer.Runner{Links: svc, Workspace: ws}).Run(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Created != 3 || rep.Clicks != 2 || rep.Failed != 0 {
			t.Fatalf("report %+v", rep)
		}
		l := mustLink(t, db, ws, "y.acme.test", "ozh")
		if *l.Title != `Ozh's "blog"` || l.Clicks != 2 || !l.CreatedAt.Equal(time.Date(2019, 9, 17, 20, 4, 4, 0, time.UTC)) {
			t.Fatalf("ozh %+v", l)
		}
		cs, _ := db.ClicksOfLink(ctx, ws.ID, l.ID, 10)
		if len(cs) != 2 || !cs[0].Timestamp.Equal(time.Date(2019, 10, 1, 10, 0, 0, 0, time.UTC)) || cs[0].Country != "DE" ||
			cs[0].Referer != "(direct)" || cs[0].Browser != "Chrome" || cs[1].Referer != "twitter.com" {
			t.Fatalf("clicks %+v", cs)
		}
		if q := mustLink(t, db, ws, "y.acme.test", "its"); q.URL != "https://example.com/a,b)" || *q.Title != "it's" {
			t.Fatalf("quoted %+v", q)
		}
	})
}
