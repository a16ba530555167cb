package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"
)

// TestAnalyticsWindowBounds (issue 37 item 2): `relink serve` as built
// bounds analytics windows as Dub's getStartEndDates and
// validDateRangeForPlan do, plus Relink's upper bound: a far date is 422 in
// Dub's error format, a reversed range is swapped after the day rounding, the
// widest accepted range is monthly (928 buckets), a Pro workspace gets Dub's
// 403 past a year, and the console's dashboard and a link's page show the
// refusal as a message and answer the widest range inside the database
// deadline (RELINK_DB_TIMEOUT: past it a page is 503).
func TestAnalyticsWindowBounds(t *testing.T) {
	env, app, apiURL := origins(t, map[string]string{"RELINK_DEV": "true", "RELINK_DB_TIMEOUT": "5s",
		"RELINK_SESSION_KEYS": strings.Repeat("ab", 32) + ":" + strings.Repeat("cd", 32)})
	var created struct {
		APIKey string `json:"apiKey"`
	}
	out := run(t, env, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "enterprise",
		"--owner-email", "owner@acme.test", "--owner-password", "correct horse battery")
	if err := json.Unmarshal([]byte(out), &created); err != nil || created.APIKey == "" {
		t.Fatalf("workspace create: %q (%v)", out, err)
	}
	key := created.APIKey
	var pro struct {
		APIKey string `json:"apiKey"`
	}
	if err := json.Unmarshal([]byte(run(t, env, "workspace", "create", "--name", "Pro", "--slug", "pro", "--plan", "pro")), &pro); err != nil {
		t.Fatal(err)
	}
	start(t, "serve", env)

	// ask sends GET path with key and returns the status and body.
	ask := func(key, path string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", apiURL+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := noFollow.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	refused := func(key, path string, status int, code, msg string) {
		t.Helper()
		st, body := ask(key, path)
		var e struct {
			Error struct{ Code, Message string }
		}
		if err := json.Unmarshal(body, &e); err != nil || st != status || e.Error.Code != code || e.Error.Message != msg {
			t.Errorf("%s: %d %s, want %d %s %q", path, st, body, status, code, msg)
		}
	}
	refused(key, "/analytics?start=9999-12-31&groupBy=timeseries", 422, "unprocessable_entity",
		"custom: start: The start date cannot be later than December 31, 2099.")
	refused(key, "/events?start=2024-01-01&end=2100-01-01", 422, "unprocessable_entity",
		"custom: end: The end date cannot be later than December 31, 2099.")
	refused(key, "/analytics?start=2020-01-01", 422, "unprocessable_entity",
		"custom: start: The start date cannot be earlier than September 22, 2022.")
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
	refused(pro.APIKey, "/analytics?start="+day(-400), 403, "forbidden",
		"You can only get analytics for up to 1 year on a Pro plan. Upgrade to Business to get analytics for longer periods.")

	// Timeseries bucket counts: Dub's granularity by range (hour up to 2
	// calendar days, day up to 180, month beyond).
	for _, c := range []struct {
		query string
		n     int
		first string // the first bucket's start
	}{
		{"start=" + day(-3) + "&end=" + day(-1), 72, day(-3) + "T00:00:00.000+0000"},
		// reversed: swapped after rounding, the end's last millisecond to
		// the start's midnight (as Dub), hourly as the range is 2 days
		{"start=" + day(-1) + "&end=" + day(-3), 26, day(-3) + "T23:00:00.000+0000"},
		{"start=" + day(-100) + "&end=" + day(0), 101, day(-100) + "T00:00:00.000+0000"},
		// the widest accepted range, either way round: September 2022 to
		// December 2099 by month
		{"start=2022-09-22&end=2099-12-31", 928, "2022-09-01T00:00:00.000+0000"},
		{"start=2099-12-31&end=2022-09-22", 928, "2022-09-01T00:00:00.000+0000"},
	} {
		st, body := ask(key, "/analytics?groupBy=timeseries&"+c.query)
		var rows []struct{ Start string }
		if err := json.Unmarshal(body, &rows); err != nil || st != 200 || len(rows) != c.n || rows[0].Start != c.first {
			t.Errorf("timeseries %s: %d, %d buckets, want %d from %s: %.200s", c.query, st, len(rows), c.n, c.first, body)
		}
	}

	// The console: a refused range is a message above the charts; the
	// widest accepted one answers (inside the 5 s database deadline: a
	// console request past it is a 503 page).
	var link struct{ ID string }
	if st := api(t, apiURL, "POST", "/links", key, map[string]any{"url": "https://example.com/x", "key": "x", "domain": "s.relink.test"}, &link); st != 200 {
		t.Fatalf("POST /links: %d", st)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Timeout: 30 * time.Second, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if a := signIn(t, c, app, "correct horse battery"); a.Status != 303 {
		t.Fatalf("sign-in: %d", a.Status)
	}
	for _, page := range []string{"/console/analytics", "/console/links/" + link.ID} {
		a := get(t, c, app+page+"?start=9999-12-31", "", nil)
		if a.Status != 200 || !strings.Contains(a.Body, "The start date cannot be later than December 31, 2099.") {
			t.Errorf("%s?start=9999-12-31: %d, no message", page, a.Status)
		}
		for _, q := range []string{"start=2099-12-31&end=2022-09-22", "start=2022-09-22&end=2099-12-31&timezone=Pacific/Kiritimati"} {
			began := time.Now()
			a = get(t, c, app+page+"?"+q, "", nil)
			t.Logf("%s?%s: %d in %s", page, q, a.Status, time.Since(began).Round(time.Millisecond))
			if a.Status != 200 || strings.Contains(a.Body, `data-testid="alert-error"`) || !strings.Contains(a.Body, `data-testid="chart"`) {
				t.Errorf("%s?%s: %d %.300s", page, q, a.Status, a.Body)
			}
		}
	}
}
