package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// wordingCase is one request and the error Dub answers it with (spec/parity.md
// §1): schema failures "code: path: message", handler errors plain.
type wordingCase struct {
	method, path, body string
	status             int
	msg                string
}

// wordingCases walks the API's validation errors, endpoint by endpoint.
var wordingCases = []wordingCase{
	// Body parsing (§0.2).
	{"POST", "/links", `{"url":`, 400, "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
	{"POST", "/customers", `[1`, 400, "Invalid JSON format in request body. Please ensure the request body is a valid JSON object."},
	// Links (spec/links.md §1.5, §4, §5).
	{"POST", "/links", `{}`, 422, "invalid_type: url: Invalid input: expected string, received undefined"},
	{"POST", "/links", `{"url":1}`, 422, "invalid_type: url: Invalid input: expected string, received number"},
	{"POST", "/links", `{"url":"https://x.com","utm_source":"` + strings.Repeat("a", 256) + `"}`, 422, "too_big: utm_source: Too big: expected string to have <=255 characters"},
	{"POST", "/links", `{"url":"https://x.com","keyLength":2}`, 422, "too_small: keyLength: Too small: expected number to be >=3"},
	{"POST", "/links", `{"url":"https://x.com","geo":{"US":"ftp"}}`, 422, "custom: geo.US: Invalid URL"},
	{"POST", "/links/bulk", `[]`, 422, "too_small: : No links created – you must provide at least one link."},
	{"POST", "/links/bulk", `[` + strings.TrimSuffix(strings.Repeat(`{"url":"https://x.com"},`, 101), ",") + `]`, 422, "too_big: : You can only create up to 100 links at a time."},
	{"GET", "/links?page=0", "", 422, "too_small: page: Page must be greater than 0."},
	{"GET", "/links?page=abc", "", 422, "invalid_type: page: Page must be a number."},
	{"GET", "/links?pageSize=101", "", 422, "too_big: pageSize: Max page size is 100."},
	{"GET", "/links?page=1001", "", 422, "Page is too big (cannot be more than 1000), recommend using cursor-based pagination instead."},
	{"GET", "/links?startingAfter=a&endingBefore=b", "", 422, "You cannot use both startingAfter and endingBefore at the same time."},
	{"GET", "/links?startingAfter=a&sortBy=clicks", "", 422, "Cursor-based pagination only supports sorting by `createdAt`. Use offset-based pagination (page/pageSize) for other sort fields."},
	{"GET", "/links?startingAfter=a&page=2", "", 422, "You cannot use both page and startingAfter/endingBefore at the same time. Please use one pagination method."},
	{"GET", "/links?startingAfter=link_nope", "", 422, "Invalid cursor: the provided ID does not exist."},
	{"GET", "/links/count?groupBy=x", "", 422, "invalid_union: groupBy: Invalid input"},
	{"GET", "/links/count?withTags=1", "", 422, `invalid_value: withTags: Invalid option: expected one of "true"|"false"`},
	{"GET", "/links/info", "", 400, "You must provide a domain and a key or a linkId or an externalId to retrieve a link."},
	{"GET", "/links/info?domain=not_a_domain&key=x", "", 422, "custom: domain: Invalid domain format"},
	{"GET", "/links/info?externalId=nope", "", 400, "Invalid externalId. Did you forget to prefix it with `ext_`?"},
	{"DELETE", "/links/bulk", "", 400, "Please provide linkIds to delete. You may use `linkId` or `externalId` prefixed with `ext_` as comma separated values."},
	{"GET", "/links/export?columns=nonsense", "", 422, "Select at least one column to export."},
	{"GET", "/links/export?start=2025-02-01&end=2025-01-01", "", 422, "The end date must be after the start date."},
	// Domains, tags, folders (spec/links.md §6-8, spec/parity.md §11).
	{"POST", "/domains", `{}`, 422, "invalid_type: slug: slug is required"},
	{"POST", "/domains", `{"slug":"not a domain"}`, 422, "Invalid domain"},
	{"POST", "/domains", `{"slug":"www.acme.net"}`, 422, "Custom domain cannot start with www."},
	{"POST", "/domains", `{"slug":"x.acme.net","assetLinks":"{"}`, 422, "Invalid Asset Links"},
	{"POST", "/domains", `{"slug":"x.acme.net","appleAppSiteAssociation":"nope"}`, 422, "Invalid Apple App Site Association"},
	{"POST", "/domains", `{"slug":"x.acme.net","deepviewData":"{"}`, 422, "Invalid Deep View data"},
	{"GET", "/domains/status", "", 422, "invalid_union: domains: Invalid input"},
	{"GET", "/domains/status?domains=acme.com", "", 400, "You must provide at least one domain to check. We only support .link domains for now."},
	{"POST", "/domains/register", `{"domain":""}`, 422, "too_small: domain: Domain to register is required."},
	{"POST", "/domains/register", `{"domain":"acme.com"}`, 422, `invalid_format: domain: Invalid string: must end with ".link"`},
	{"POST", "/tags", `{}`, 422, "custom: name: Name is required."},
	{"POST", "/tags", `{"name":"x","color":"teal"}`, 422, "invalid_value: color: Invalid color. Must be one of: red, yellow, green, blue, purple, brown, gray, pink"},
	{"POST", "/folders", `{"name":"x","accessLevel":"admin"}`, 422, `invalid_value: accessLevel: Invalid option: expected one of "write"|"read"`},
	// QR (spec/links.md §9).
	{"GET", "/qr", "", 422, "invalid_type: url: Invalid input: expected string, received undefined"},
	{"GET", "/qr?url=not%20a%20url", "", 422, "custom: url: Invalid URL"},
	{"GET", "/qr?url=https://x.com&level=Z", "", 422, `invalid_value: level: Invalid option: expected one of "L"|"M"|"Q"|"H"`},
	// Metatags (spec/parity.md §12).
	{"GET", "/links/metatags", "", 422, "invalid_type: url: Invalid input: expected string, received null"},
	{"GET", "/links/metatags?url=nope", "", 422, "custom: url: Invalid URL"},
	// Analytics and events (spec/analytics.md §1).
	{"GET", "/analytics?event=views", "", 422, "invalid_value: event: Invalid event type. Valid event types are: clicks, leads, sales"},
	{"GET", "/analytics?interval=2d", "", 422, `invalid_value: interval: Invalid option: expected one of "24h"|"7d"|"30d"|"90d"|"1y"|"mtd"|"qtd"|"ytd"|"all"`},
	{"GET", "/analytics?start=yesterdayish", "", 422, "custom: start: Invalid date"},
	{"GET", "/analytics?start=2020-01-01", "", 422, "custom: start: The start date cannot be earlier than September 22, 2022."},
	{"GET", "/analytics?saleType=old", "", 422, `invalid_value: saleType: Invalid option: expected one of "new"|"recurring"`},
	{"GET", "/events?limit=1001", "", 422, "too_big: limit: Max page size is 1000."},
	// Tracking (spec/partners-and-embed.md §1, spec/parity.md §9).
	{"POST", "/track/lead", `{"clickId":"x","eventName":"Sign up"}`, 400, "customerExternalId is required"},
	{"POST", "/track/click", `{"key":"x"}`, 422, "invalid_type: domain: domain is required."},
	{"POST", "/track/visit", `{"domain":"acme.link"}`, 400, "Missing domain or url"},
	{"POST", "/track/visit", `{"domain":"acme.link","url":"/pricing"}`, 400, "Invalid url: expected an absolute URL such as https://example.com/pricing."},
	{"POST", "/track/open", `{}`, 422, "custom: : You need to provide either `deepLink` or `dubDomain` for deferred deep linking."},
	{"POST", "/track/open", `{"deepLink":"not a url"}`, 422, "custom: deepLink: Invalid URL"},
	// Customers (spec/parity.md §10).
	{"POST", "/customers", `{"country":"DE"}`, 422, "invalid_type: externalId: External ID is required"},
	{"POST", "/customers", `{"externalId":"x"}`, 422, "invalid_type: country: Invalid input: expected string, received undefined"},
	{"POST", "/customers", `{"externalId":"x","country":"DE","email":"nope"}`, 422, "invalid_format: email: Invalid email address"},
	{"GET", "/customers?page=1001", "", 422, "Page is too big (cannot be more than 1000), recommend using cursor-based pagination instead."},
	{"GET", "/customers?startingAfter=a&endingBefore=b", "", 422, "You cannot use both startingAfter and endingBefore at the same time."},
	{"GET", "/customers?startingAfter=a&page=2", "", 422, "You cannot use both page and startingAfter/endingBefore at the same time. Please use one pagination method."},
	{"GET", "/customers?startingAfter=cus_nope", "", 422, "Invalid cursor: the provided ID does not exist."},
	{"GET", "/customers?includeExpandedFields=yes", "", 422, `invalid_value: includeExpandedFields: Invalid option: expected one of "true"|"false"`},
	// Partners, commissions, embed tokens (spec/partners-and-embed.md §3-5, spec/parity.md §2-6).
	{"POST", "/partners", `{"name":"x"}`, 422, "invalid_type: email: Invalid input: expected string, received undefined"},
	{"POST", "/partners", `{"email":"a@b.co","username":"no spaces"}`, 422, "custom: username: Invalid username. Must be a URL-friendly string."},
	{"POST", "/partners/links", `{}`, 400, "Either `partnerId` or `tenantId` must be provided."},
	{"GET", "/commissions?page=1001", "", 422, "Page is too big (cannot be more than 1000), recommend using cursor-based pagination instead."},
	{"GET", "/commissions?startingAfter=cm_nope", "", 422, "Invalid cursor: the provided ID does not exist."},
	{"POST", "/commissions", `{"partnerId":"pn_x","amount":500}`, 422, "invalid_union: type: Invalid input"},
	{"POST", "/commissions", `{"type":"custom","amount":-500,"description":"fraud"}`, 422, "invalid_type: partnerId: Invalid input: expected string, received undefined"},
	{"POST", "/commissions", `{"type":"custom","partnerId":"pn_x","amount":-500}`, 422, "custom: description: `description` is required when creating a clawback (negative amount)."},
	{"POST", "/partners/ban", `{"partnerId":"pn_x"}`, 422, `invalid_value: reason: Invalid option: expected one of "tos_violation"|"inappropriate_content"|"fake_traffic"|"fraud"|"spam"|"brand_abuse"`},
	{"POST", "/partners/ban", `{"reason":"spam"}`, 400, "Either `partnerId` or `tenantId` must be provided."},
	{"PATCH", "/commissions/bulk", `{"commissionIds":[],"status":"pending"}`, 422, "too_small: commissionIds: At least one commission ID is required."},
	{"POST", "/tokens/embed/referrals", `{}`, 422, "custom: : You must provide either partnerId, tenantId, or partner."},
	{"POST", "/partners", `{"email":"a@b.co","country":"DEU"}`, 422, "invalid_format: country: Invalid country code: use an ISO 3166-1 alpha-2 code."},
	{"POST", "/commissions", `{"type":"sale","partnerId":"pn_x","customerId":"cus_x","saleAmount":-1}`, 422, "too_small: saleAmount: Too small: expected number to be >=0"},
	// Legacy analytics paths (spec/analytics.md §8).
	{"GET", "/analytics/clicks/nonsense", "", 422, "invalid_value: groupBy: Invalid type value. Valid values are: count, timeseries, countries, cities, devices, browsers, os, triggers, referers, top_links, top_urls."},
	// URL lengths (upstream's parseUrlSchema: DESTINATION_URL_MAX_LENGTH).
	{"GET", "/links/metatags?url=https://x.com/" + strings.Repeat("a", 32000), "", 422, "too_big: url: Must be 32000 or fewer characters long."},
	{"POST", "/track/open", `{"deepLink":"https://x.com/` + strings.Repeat("a", 32000) + `"}`, 422, "too_big: deepLink: Must be 32000 or fewer characters long."},
	// A/B test variants (spec/links.md §1.5).
	{"POST", "/links", `{"url":"https://x.com","testVariants":[{"url":"https://a.com","percentage":95},{"url":"https://b.com","percentage":5}]}`, 422, "too_big: testVariants.0.percentage: Too big: expected number to be <=90"},
	{"POST", "/links", `{"url":"https://x.com","testVariants":[` + strings.TrimSuffix(strings.Repeat(`{"url":"https://a.com","percentage":20},`, 5), ",") + `]}`, 422, "too_big: testVariants: Too big: expected array to have <=4 items"},
	// Webhooks (spec/webhooks.md §2; upstream's createWebhookSchema).
	{"POST", "/webhooks", `{"name":"` + strings.Repeat("n", 41) + `","url":"https://x.com/h","triggers":["link.created"]}`, 422, "too_big: name: Too big: expected string to have <=40 characters"},
	{"POST", "/webhooks", `{"name":"n","url":"https://x.com/` + strings.Repeat("a", 32000) + `","triggers":["link.created"]}`, 422, "too_big: url: Must be 32000 or fewer characters long."},
	{"POST", "/webhooks", `{"name":"n","url":"https://x.com/h","triggers":["link.clicked"],"linkScope":"links","linkIds":[]}`, 422, "custom: linkIds: Select at least one link"},
	{"POST", "/webhooks", `{"name":"n","url":"https://x.com/h","triggers":["link.clicked"],"linkScope":"folders","folderIds":[]}`, 422, "custom: folderIds: Select at least one folder."},
	// Workspaces (upstream's createWorkspaceSchema, extended for PATCH).
	{"PATCH", "/workspaces/acme", `{"name":""}`, 422, "too_small: name: Too small: expected string to have >=1 characters"},
	{"PATCH", "/workspaces/acme", `{"name":"` + strings.Repeat("n", 33) + `"}`, 422, "too_big: name: Too big: expected string to have <=32 characters"},
	{"PATCH", "/workspaces/acme", `{"slug":"ab"}`, 422, "too_small: slug: Slug must be at least 3 characters"},
	{"PATCH", "/workspaces/acme", `{"slug":"` + strings.Repeat("s", 49) + `"}`, 422, "too_big: slug: Slug must be less than 48 characters"},
	{"PATCH", "/workspaces/acme", `{"slug":"!!!"}`, 422, "custom: slug: Invalid slug format"},
	{"PATCH", "/workspaces/acme", `{"publishableKey":"dub_pk_x"}`, 422, "custom: publishableKey: The publishable key cannot be set: rotate it in the console's workspace settings."},
}

// TestErrorWording sends every case and wants Dub's status, code and
// message: 422s with the schema prefix only where upstream's zod raised
// them (spec/parity.md §1.1), plain text where its handler did (§1.2).
func TestErrorWording(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		e := newLinkEnv(t, db)
		e.workspace("acme", models.PlanEnterprise)
		for _, tc := range wordingCases {
			r := e.do("acme", tc.method, tc.path, tc.body)
			code := map[int]string{400: "bad_request", 422: "unprocessable_entity"}[tc.status]
			gotCode, gotMsg := r.errMsg(t)
			if r.status != tc.status || gotCode != code || gotMsg != tc.msg {
				t.Errorf("%s %s %.60s: %d %s %q, want %d %s %q", tc.method, tc.path, tc.body, r.status, gotCode, gotMsg, tc.status, code, tc.msg)
			}
		}
	})
}

// TestErrorWordingCoversEveryMessage reads the sources of every package the
// API face runs (handlers, handlers/api, handlers/request, models,
// internal/...) and collects each fixed-text 400/422 it can raise:
// apierr.New(BadRequest|Unprocessable, "…"), apierr.Validation(code, path,
// "…") and input's Fail(code, path, "…"). Each must be walked by
// wordingCases, asserted by another test (its text appears in a Go or SDK
// test file), or be listed in notAPI with the reason the API cannot raise
// it. A new message without one of the three fails here.
func TestErrorWordingCoversEveryMessage(t *testing.T) {
	var walked []string
	for _, c := range wordingCases {
		walked = append(walked, c.msg)
	}
	tests := testSources(t, "../..")
	dirs := []string{".", "..", "../request", "../../models"}
	internal, _ := filepath.Glob("../../internal/*")
	dirs = append(dirs, internal...)
	seen, missing := 0, []string{}
	for _, dir := range dirs {
		for _, m := range validationMessages(t, dir) {
			seen++
			switch {
			case notAPI[m.text] != "":
			case anyHasSuffix(walked, m.text):
			case strings.Contains(tests, m.text) || strings.Contains(tests, strings.ReplaceAll(m.text, `"`, `\"`)):
			default:
				missing = append(missing, m.where+": "+m.text)
			}
		}
	}
	if seen < 150 {
		t.Fatalf("found only %d messages: the source scan is broken", seen)
	}
	if len(missing) > 0 {
		t.Errorf("API errors no test asserts (add a wording case, or a reason in notAPI):\n%s", strings.Join(missing, "\n"))
	}
}

// notAPI are messages the JSON API cannot produce, with where they come
// from instead; each is still checked where it is raised.
var notAPI = map[string]string{
	"This partner is not deactivated.":                                                              "the console partner page's Reactivate (conversions.ReactivatePartner; internal/conversions TestReactivateAndUnbanOnlyTheirStatus): not the JSON API",
	"This partner is not banned.":                                                                   "the console partner page's Unban (conversions.UnbanPartner; internal/conversions TestReactivateAndUnbanOnlyTheirStatus): not the JSON API",
	"Brand color must be a hex color such as #2563eb.":                                              "group branding: the console's Program page and relink program group set only (no API sets it, as in Dub); handlers/embed and tests/e2e TestGroupBranding",
	"Must be an http(s) URL.":                                                                       "group branding's logo and wordmark: console and CLI only; TestGroupBranding",
	"The mode must be live or test.":                                                                "relink stripe connect: command line only",
	"The signing secret must be the endpoint's whsec_… value from Stripe.":                          "relink stripe connect and the console's Stripe page (tests/browser/stripe.test.mjs): not the JSON API",
	"Stripe is not connected to this workspace.":                                                    "relink stripe disconnect/status: command line only",
	"Missing Stripe-Signature header.":                                                              "POST /stripe/webhook (Stripe's own requests, not Dub's API): cmd/relink TestStripeWebhook's unsigned request",
	"You cannot upload custom link preview images with bulk link creation.":                         "bulk image rules: links_bulk_test.go",
	"Uploading images is not supported: host the image and send its public https URL.":              "links_create_test.go",
	"The URL is too long to fit in a QR code.":                                                      "internal/qr tests",
	"The request took too long to arrive.":                                                          "slow-body deadline (RELINK_BODY_TIMEOUT): a timing path, not a validation",
	"Colors are hex values like #2563eb.":                                                           "program resources: console only",
	"Size cannot be negative.":                                                                      "program resources: console only",
	"Links are http, https or mailto URLs.":                                                         "program resources: console only",
	`Invalid option: expected one of "performance"|"submission"`:                                    "bounty editor: console only (Dub has no bounty-create API)",
	"The reward must be more than 0.":                                                               "bounty editor: console only",
	"The end must be after the start.":                                                              "bounty editor: console only",
	"Only pending payouts can be confirmed.":                                                        "payout confirmation: console and CLI",
	"There are no payouts ready to be confirmed.":                                                   "payout confirmation: console and CLI",
	"Slug must be 1-48 lowercase letters, digits or hyphens, not starting or ending with a hyphen.": "console and CLI (the API checks upstream's slug rules first)",
	`Invalid option: expected one of "free"|"pro"|"business"|"advanced"|"enterprise"`:               "plan: CLI only",
	`Invalid option: expected one of "owner"|"member"`:                                              "invites: console only",
	"Invalid email address.":                                                                        "invites: console only",
	"Name must be 1 to 190 characters.":                                                             "partner groups: console only",
	"A percentage discount is between 0 and 100.":                                                   "group discounts: console only",
	"A flat discount is between 0 and 99999999 cents.":                                              "group discounts: console only",
	`Invalid option: expected one of "percentage"|"flat"`:                                           "group discounts: console only",
	"maxDuration must be between 0 and 600 months.":                                                 "rewards and discounts: console and CLI",
	`Invalid option: expected one of "click"|"lead"|"sale"|"referral"`:                              "rewards: console and CLI",
	"A flat reward needs amountInCents between 0 and 99999999.":                                     "rewards: console and CLI",
	"Click and lead rewards are always flat.":                                                       "rewards: console and CLI",
	"A percentage reward needs amountInPercentage between 0 and 100.":                               "rewards: console and CLI",
	`Invalid option: expected one of "flat"|"percentage"`:                                           "rewards: console and CLI",
	"Holding period must be one of 0, 7, 14, 30, 60 or 90 days.":                                    "groups: console",
	"A group has at most 5 default links.":                                                          "groups: console",
	`Invalid option: expected one of "owner"|"editor"|"viewer"`:                                     "folder roles: console (Dub's API has no folder-role route)",
	"You need to set a domain and url for this program before creating a link.":                     "a program without a domain: relink program create always sets one",
	"This webhook's secret is set by its integration.":                                              "integration webhooks (Slack, Segment) are created in the console only",
	"Flat rewards are whole cents.":                                                                 "reward form: console",
	"Enter a non-negative amount.":                                                                  "reward form: console",
	"Enter a number of months.":                                                                     "reward form: console",
	"Enter an amount with at most two decimals.":                                                    "reward form: console",
}

type sourceMessage struct{ where, text string }

// validationMessages returns the literal 400/422 messages raised in dir's
// non-test sources (see TestErrorWordingCoversEveryMessage).
func validationMessages(t *testing.T, dir string) []sourceMessage {
	t.Helper()
	var out []sourceMessage
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_templ.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if msg, ok := raisedMessage(c); ok {
					out = append(out, sourceMessage{fset.Position(c.Pos()).String(), msg})
				}
			}
			return true
		})
	}
	return out
}

// raisedMessage recognises apierr.New(apierr.BadRequest|Unprocessable, lit),
// apierr.Validation(lit, path, lit) and x.Fail(lit, path, lit).
func raisedMessage(c *ast.CallExpr) (string, bool) {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	lit := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	switch {
	case sel.Sel.Name == "New" && len(c.Args) == 2:
		code, ok := c.Args[0].(*ast.SelectorExpr)
		if !ok || (code.Sel.Name != "BadRequest" && code.Sel.Name != "Unprocessable") {
			return "", false
		}
		return lit(c.Args[1])
	case (sel.Sel.Name == "Validation" || sel.Sel.Name == "Fail") && len(c.Args) == 3:
		if _, ok := lit(c.Args[0]); !ok {
			return "", false
		}
		return lit(c.Args[2])
	}
	return "", false
}

// testSources concatenates every Go test file and SDK test under root
// except this one.
func testSources(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		name := d.Name()
		if d.IsDir() || name == "wording_test.go" || !(strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".test.mjs")) {
			return nil
		}
		src, err := os.ReadFile(p)
		b.Write(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func anyHasSuffix(list []string, s string) bool {
	for _, x := range list {
		if x == s || strings.HasSuffix(x, ": "+s) {
			return true
		}
	}
	return false
}
