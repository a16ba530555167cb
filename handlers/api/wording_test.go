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

// wordingCase is one request and the error Dub answers it with (parity.md
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
	// Links (links.md §1.5, §4, §5).
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
	// Domains, tags, folders (links.md §6-8, parity.md §11).
	{"POST", "/domains", `{}`, 422, "invalid_type: slug: Invalid input: expected string, received undefined"},
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
	// QR (links.md §9).
	{"GET", "/qr", "", 422, "invalid_type: url: Invalid input: expected string, received undefined"},
	{"GET", "/qr?url=not%20a%20url", "", 422, "custom: url: Invalid URL"},
	{"GET", "/qr?url=https://x.com&level=Z", "", 422, `invalid_value: level: Invalid option: expected one of "L"|"M"|"Q"|"H"`},
	// Metatags (parity.md §12).
	{"GET", "/links/metatags", "", 422, "invalid_type: url: Invalid input: expected string, received null"},
	{"GET", "/links/metatags?url=nope", "", 422, "custom: url: Invalid URL"},
	// Analytics and events (analytics.md §1).
	{"GET", "/analytics?event=views", "", 422, "invalid_value: event: Invalid event type. Valid event types are: clicks, leads, sales"},
	{"GET", "/analytics?interval=2d", "", 422, `invalid_value: interval: Invalid option: expected one of "24h"|"7d"|"30d"|"90d"|"1y"|"mtd"|"qtd"|"ytd"|"all"`},
	{"GET", "/analytics?start=yesterdayish", "", 422, "custom: start: Invalid date"},
	{"GET", "/analytics?start=2020-01-01", "", 422, "custom: start: The start date cannot be earlier than September 22, 2022."},
	{"GET", "/analytics?saleType=old", "", 422, `invalid_value: saleType: Invalid option: expected one of "new"|"recurring"`},
	{"GET", "/events?limit=1001", "", 422, "too_big: limit: Max page size is 1000."},
	// Tracking (partners-and-embed.md §1, parity.md §9).
	{"POST", "/track/lead", `{"clickId":"x","eventName":"Sign up"}`, 400, "customerExternalId is required"},
	{"POST", "/track/click", `{"key":"x"}`, 422, "invalid_type: domain: domain is required."},
	{"POST", "/track/visit", `{"domain":"acme.link"}`, 400, "Missing domain or url"},
	{"POST", "/track/visit", `{"domain":"acme.link","url":"/pricing"}`, 400, "Invalid url: expected an absolute URL such as https://example.com/pricing."},
	{"POST", "/track/open", `{}`, 422, "custom: : You need to provide either `deepLink` or `dubDomain` for deferred deep linking."},
	{"POST", "/track/open", `{"deepLink":"not a url"}`, 422, "custom: deepLink: Invalid URL"},
	// Customers (parity.md §10).
	{"POST", "/customers", `{"country":"DE"}`, 422, "invalid_type: externalId: External ID is required"},
	{"POST", "/customers", `{"externalId":"x"}`, 422, "invalid_type: country: Invalid input: expected string, received undefined"},
	{"POST", "/customers", `{"externalId":"x","country":"DE","email":"nope"}`, 422, "invalid_format: email: Invalid email address"},
	{"GET", "/customers?page=1001", "", 422, "Page is too big (cannot be more than 1000), recommend using cursor-based pagination instead."},
	{"GET", "/customers?startingAfter=a&endingBefore=b", "", 422, "You cannot use both startingAfter and endingBefore at the same time."},
	{"GET", "/customers?startingAfter=a&page=2", "", 422, "You cannot use both page and startingAfter/endingBefore at the same time. Please use one pagination method."},
	{"GET", "/customers?startingAfter=cus_nope", "", 422, "Invalid cursor: the provided ID does not exist."},
	{"GET", "/customers?includeExpandedFields=yes", "", 422, `invalid_value: includeExpandedFields: Invalid option: expected one of "true"|"false"`},
	// Partners, commissions, embed tokens (partners-and-embed.md §3-5, parity.md §2-6).
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
}

// TestErrorWording sends every case and wants Dub's status, code and
// message: 422s with the schema prefix only where upstream's zod raised
// them (parity.md §1.1), plain text where its handler did (§1.2).
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

// TestErrorWordingCoversPlainMessages reads the API's sources and lists the
// fixed-text handler errors (apierr.New with a 400 or 422 code, and
// paging's messages) that no wording case walks. Messages in
// notWalked are known gaps, each with why; anything else must get a case.
func TestErrorWordingCoversPlainMessages(t *testing.T) {
	walked := map[string]bool{}
	for _, c := range wordingCases {
		walked[c.msg] = true
	}
	var missing []string
	for _, dir := range []string{".", "../../internal/links", "../../internal/paging", "../../internal/qr", "../../internal/analytics"} {
		for _, m := range plainMessages(t, dir) {
			if !walked[m] && !notWalked[m] && !strings.HasSuffix(m, "…") {
				missing = append(missing, m)
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("handler errors no wording case walks (add a case or a reason in notWalked):\n%s", strings.Join(missing, "\n"))
	}
}

// notWalked are plain messages this table does not reach, with the reason.
var notWalked = map[string]bool{
	"You cannot upload custom link preview images with bulk link creation.":            true, // bulk image rules: links_bulk_test.go
	"Uploading images is not supported: host the image and send its public https URL.": true, // links_create_test.go
	"Invalid image URL: use a public http(s) URL (no localhost or IP address).":        true, // links_create_test.go
	"The URL is too long to fit in a QR code.":                                         true, // internal/qr tests
	"Invalid externalId. Did you forget to prefix it with `ext_`?":                     true, // analytics' resolve: handlers/analytics_test.go
}

// plainMessages returns the literal messages of apierr.New(apierr.BadRequest
// or apierr.Unprocessable, "…") and of paging's Msg… variables in dir.
func plainMessages(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_templ.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || len(c.Args) != 2 {
				return true
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			code, ok2 := c.Args[0].(*ast.SelectorExpr)
			lit, ok3 := c.Args[1].(*ast.BasicLit)
			if !ok || !ok2 || !ok3 || sel.Sel.Name != "New" || (code.Sel.Name != "BadRequest" && code.Sel.Name != "Unprocessable") {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
			return true
		})
	}
	return out
}
