package api_test

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func readCSV(t *testing.T, r linkResp) [][]string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/csv" {
		t.Fatalf("Content-Type %q: %s", ct, r.body)
	}
	if cd := r.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") {
		t.Errorf("Content-Disposition %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil {
		t.Fatalf("csv %s: %v", r.body, err)
	}
	return rows
}

func TestExportLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		ids := map[string]string{}
		mk := func(key, extra string) {
			body := `{"url":"https://dest.example.com/` + key + `","domain":"acme.link","key":"` + key + `"` + extra + `}`
			ids[key] = e.ok(200, "acme", "POST", "/links", body).json(t)["id"].(string)
		}
		mk("a", `,"tagIds":["`+f.tagRed+`","`+f.tagBlue+`"]`)
		mk("b", `,"folderId":"`+f.folder+`"`)
		mk("c", `,"archived":true`)
		mk("d", `,"url":"https://dest.example.com/?q=x","title":"=HYPERLINK(1)"`)
		e.ok(200, "other", "POST", "/links", `{"url":"https://theirs.example.com/","domain":"other.link","key":"x"}`)
		db.Model(&models.Link{}).Where("id = ?", ids["a"]).Updates(map[string]any{"clicks": 7, "leads": 2, "sale_amount": 123456})
		old := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		db.Model(&models.Link{}).Where("id = ?", ids["d"]).Update("created_at", old)

		rows := readCSV(t, e.ok(200, "acme", "GET", "/links/export", ""))
		if got := strings.Join(rows[0], "|"); got != "Short link|Destination URL|Clicks|Created at" {
			t.Errorf("default header %q", got)
		}
		var keys []string
		for _, r := range rows[1:] {
			keys = append(keys, r[0][strings.LastIndex(r[0], "/")+1:])
		}
		// Newest first; the foldered link is in, the archived one and the
		// other workspace's are not; the domain's root link is there too.
		if got := strings.Join(keys, ","); got != "d,b,a,acme.link" {
			t.Errorf("exported %q, want d,b,a,acme.link", got)
		}
		if rows[3][0] != "https://acme.link/a" || rows[3][1] != "https://dest.example.com/a" || rows[3][2] != "7" {
			t.Errorf("row a = %q", rows[3])
		}

		rows = readCSV(t, e.ok(200, "acme", "GET", "/links/export?columns=tags,saleAmount,id,leads,nope&showArchived=true&search=acme.link/", ""))
		if got := strings.Join(rows[0], "|"); got != "Leads|Revenue|Link ID|Tags" {
			t.Errorf("chosen columns in upstream's order: %q", got)
		}
		byID := map[string][]string{}
		for _, r := range rows[1:] {
			byID[r[2]] = r
		}
		if r := byID[ids["a"]]; r == nil || r[0] != "2" || r[1] != "$1,234.56" || (r[3] != "Red, Blue" && r[3] != "Blue, Red") {
			t.Errorf("row a = %q", r)
		}
		if byID[ids["c"]] == nil {
			t.Error("showArchived=true left the archived link out")
		}

		rows = readCSV(t, e.ok(200, "acme", "GET", "/links/export?columns=id,createdAt&start=2024-03-01&end=2024-03-01", ""))
		if len(rows) != 2 || rows[1][1] != ids["d"] || rows[1][0] != "2024-03-01T12:00:00.000Z" {
			t.Errorf("created on 2024-03-01: %q", rows)
		}
		rows = readCSV(t, e.ok(200, "acme", "GET", "/links/export?columns=url&folderId="+f.folder, ""))
		if len(rows) != 2 || rows[1][0] != "https://dest.example.com/b" {
			t.Errorf("folder: %q", rows)
		}

		e.expectErr(e.do("acme", "GET", "/links/export?domain=other.link", ""), 403, "forbidden", "Domain other.link does not belong to workspace "+e.ws["acme"].PublicID()+".")
		e.expectErr(e.do("acme", "GET", "/links/export?columns=nope", ""), 422, "unprocessable_entity", "Select at least one column to export.")
		e.expectErr(e.do("acme", "GET", "/links/export?start=2024-03-02&end=2024-03-01", ""), 422, "unprocessable_entity", "The end date must be after the start date.")
		if r := e.do("", "GET", "/links/export", ""); r.status != 401 {
			t.Errorf("no key: %d", r.status)
		}
	})
}

// A spreadsheet must not run a cell as a formula.
func TestExportNeutralizesFormulas(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		red := e.ok(201, "acme", "POST", "/tags", `{"name":"=cmd()","color":"red"}`).json(t)["id"].(string)
		e.ok(200, "acme", "POST", "/links", `{"url":"https://dest.example.com/f","domain":"acme.link","key":"f","tagIds":["`+red+`"]}`)
		rows := readCSV(t, e.ok(200, "acme", "GET", "/links/export?columns=tags&search=acme.link/f", ""))
		if len(rows) != 2 || rows[1][0] != "'=cmd()" {
			t.Errorf("rows %q", rows)
		}
	})
}

func TestEachLinkBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		e := f.linkEnv
		for _, k := range []string{"k1", "k2", "k3", "k4", "k5"} {
			e.ok(200, "acme", "POST", "/links", `{"url":"https://dest.example.com/","domain":"acme.link","key":"`+k+`"}`)
		}
		ws := e.ws["acme"]
		var sizes []int
		var keys []string
		err := db.EachLink(t.Context(), ws.ID, models.LinkFilter{AllFolders: true, Domain: "acme.link"}, models.LinkCreated{}, 2, func(b []*models.Link) error {
			sizes = append(sizes, len(b))
			for _, l := range b {
				keys = append(keys, l.Key)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(keys, ","); got != "k5,k4,k3,k2,k1,_root" || len(sizes) != 3 {
			t.Errorf("keys %s in batches %v", got, sizes)
		}
	})
}
