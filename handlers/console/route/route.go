// Package route is the console's one route table: every page and action of
// the admin console (and the public application page) by name, with its
// method, pattern, who may call it and its rate limit. handlers registers the
// routes from Table (handlers/routes_console.go); the console's handlers and
// views build every URL with URL(name, params…), so a path is written once,
// here (TestConsoleURLsFromTable in internal/codecheck refuses a "/console…"
// literal anywhere else under handlers/console and views/console).
//
// A route's Name is the name of the console.Handlers method that serves it
// (Links is served by (*console.Handlers).Links); TestConsoleRouteTable in
// handlers checks that every name has its method and every entry is mounted.
package route

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Prefix is where the console lives on the app origin; the session cookie's
// path.
const Prefix = "/console"

// Access is who may call a route, and so the middleware in front of it.
type Access int

const (
	// Open: on the app origin outside the console, no console session
	// (the public application page).
	Open Access = iota
	// Public: under Prefix, behind the console session middleware (cookie,
	// CSRF on unsafe methods), no sign-in needed.
	Public
	// User: a signed-in user (console.Handlers.RequireUser).
	User
	// Owner: a signed-in owner of the workspace (RequireUser, then
	// console.Handlers.RequireOwner).
	Owner
)

// Limit is a per-client-IP rate limit in front of a route.
type Limit struct {
	Bucket  string
	Max     int
	Window  time.Duration
	Message string
}

// LoginAttempts slows password and invite-token guessing per client IP
// (bcrypt is slow as well); sign-in and accepting an invite share it.
var LoginAttempts = &Limit{Bucket: "console-login", Max: 10, Window: 5 * time.Minute,
	Message: "Too many sign-in attempts from this address. Wait a few minutes and try again."}

// ApplyAttempts limits the public application form per client IP.
var ApplyAttempts = &Limit{Bucket: "apply", Max: 3, Window: time.Minute, Message: "Too many requests. Please try again later."}

// Route is one entry of the table.
type Route struct {
	Name    Name
	Method  string
	Pattern string // Fiber's syntax: /console/links/:id
	Access  Access
	Limit   *Limit // nil: none
}

// Name names a route: the console.Handlers method that serves it.
type Name string

// The routes, one per handler.
const (
	LoginForm            Name = "LoginForm"
	Login                Name = "Login"
	Logout               Name = "Logout"
	Invite               Name = "Invite"
	AcceptInvite         Name = "AcceptInvite"
	Home                 Name = "Home"
	SwitchWorkspace      Name = "SwitchWorkspace"
	Settings             Name = "Settings"
	LogoutEverywhere     Name = "LogoutEverywhere"
	ChangePassword       Name = "ChangePassword"
	SaveSettings         Name = "SaveSettings"
	RotatePublishableKey Name = "RotatePublishableKey"
	SavePrivacy          Name = "SavePrivacy"
	Keys                 Name = "Keys"
	CreateKey            Name = "CreateKey"
	RevokeKey            Name = "RevokeKey"
	StripeSettings       Name = "StripeSettings"
	ConnectStripe        Name = "ConnectStripe"
	DisconnectStripe     Name = "DisconnectStripe"
	SaveStripeTrials     Name = "SaveStripeTrials"
	Webhooks             Name = "Webhooks"
	CreateWebhook        Name = "CreateWebhook"
	Webhook              Name = "Webhook"
	WebhookLog           Name = "WebhookLog"
	UpdateWebhook        Name = "UpdateWebhook"
	SendTestWebhook      Name = "SendTestWebhook"
	RotateWebhookSecret  Name = "RotateWebhookSecret"
	ToggleWebhook        Name = "ToggleWebhook"
	DeleteWebhook        Name = "DeleteWebhook"
	Links                Name = "Links"
	ExportLinks          Name = "ExportLinks"
	ExportAnalytics      Name = "ExportAnalytics"
	ExportEvents         Name = "ExportEvents"
	Import               Name = "Import"
	UploadImport         Name = "UploadImport"
	RunImport            Name = "RunImport"
	RunAPIImport         Name = "RunAPIImport"
	ImportProgress       Name = "ImportProgress"
	CreateLink           Name = "CreateLink"
	Link                 Name = "Link"
	UpdateLink           Name = "UpdateLink"
	ArchiveLink          Name = "ArchiveLink"
	DeleteLink           Name = "DeleteLink"
	Analytics            Name = "Analytics"
	Program              Name = "Program"
	CreateProgram        Name = "CreateProgram"
	SetReward            Name = "SetReward"
	SetHoldingPeriod     Name = "SetHoldingPeriod"
	CreateGroup          Name = "CreateGroup"
	SetGroupBranding     Name = "SetGroupBranding"
	SetProgramDomain     Name = "SetProgramDomain"
	Discounts            Name = "Discounts"
	SetGroupDiscount     Name = "SetGroupDiscount"
	CreateDiscountCode   Name = "CreateDiscountCode"
	DeleteDiscountCode   Name = "DeleteDiscountCode"
	Partners             Name = "Partners"
	Enroll               Name = "Enroll"
	Partner              Name = "Partner"
	SetPartnerStatus     Name = "SetPartnerStatus"
	Commissions          Name = "Commissions"
	SetCommissionStatus  Name = "SetCommissionStatus"
	Customers            Name = "Customers"
	Domains              Name = "Domains"
	CreateDomain         Name = "CreateDomain"
	DeleteDomain         Name = "DeleteDomain"
	VerifyDomain         Name = "VerifyDomain"
	SetDomainLogo        Name = "SetDomainLogo"
	RemoveDomainLogo     Name = "RemoveDomainLogo"
	Tags                 Name = "Tags"
	CreateTag            Name = "CreateTag"
	DeleteTag            Name = "DeleteTag"
	Folders              Name = "Folders"
	CreateFolder         Name = "CreateFolder"
	DeleteFolder         Name = "DeleteFolder"
	Folder               Name = "Folder"
	SetFolderAccess      Name = "SetFolderAccess"
	SetFolderMemberRole  Name = "SetFolderMemberRole"
	Members              Name = "Members"
	CreateInvite         Name = "CreateInvite"
	SetRole              Name = "SetRole"
	RemoveMember         Name = "RemoveMember"
	DeleteInvite         Name = "DeleteInvite"
	ApplyForm            Name = "ApplyForm"
	Apply                Name = "Apply"
	Applications         Name = "Applications"
	SetApplicationsOpen  Name = "SetApplicationsOpen"
	ReviewApplication    Name = "ReviewApplication"
	Payouts              Name = "Payouts"
	PayoutsCSV           Name = "PayoutsCSV"
	ConfirmPayouts       Name = "ConfirmPayouts"
	SetPayoutStatus      Name = "SetPayoutStatus"
	Bounties             Name = "Bounties"
	CreateBounty         Name = "CreateBounty"
	EditBounty           Name = "EditBounty"
	ReviewSubmission     Name = "ReviewSubmission"
)

// Table is every console route, in the order they are mounted (a fixed path
// before a parameter in the same place: /links/export before /links/:id).
var Table = []Route{
	{Name: LoginForm, Method: http.MethodGet, Pattern: "/console/login", Access: Public},
	{Name: Login, Method: http.MethodPost, Pattern: "/console/login", Access: Public, Limit: LoginAttempts},
	{Name: Logout, Method: http.MethodPost, Pattern: "/console/logout", Access: Public},
	{Name: Invite, Method: http.MethodGet, Pattern: "/console/invites/:token", Access: Public},
	{Name: AcceptInvite, Method: http.MethodPost, Pattern: "/console/invites/:token", Access: Public, Limit: LoginAttempts},
	{Name: Home, Method: http.MethodGet, Pattern: "/console", Access: User},
	{Name: SwitchWorkspace, Method: http.MethodPost, Pattern: "/console/workspace", Access: User},
	{Name: Settings, Method: http.MethodGet, Pattern: "/console/settings", Access: User},
	{Name: LogoutEverywhere, Method: http.MethodPost, Pattern: "/console/logout/everywhere", Access: User},
	{Name: ChangePassword, Method: http.MethodPost, Pattern: "/console/settings/password", Access: User},
	{Name: SaveSettings, Method: http.MethodPost, Pattern: "/console/settings", Access: Owner},
	{Name: RotatePublishableKey, Method: http.MethodPost, Pattern: "/console/settings/publishable-key", Access: Owner},
	{Name: SavePrivacy, Method: http.MethodPost, Pattern: "/console/settings/privacy", Access: Owner},
	{Name: Keys, Method: http.MethodGet, Pattern: "/console/settings/keys", Access: User},
	{Name: CreateKey, Method: http.MethodPost, Pattern: "/console/settings/keys", Access: User},
	{Name: RevokeKey, Method: http.MethodPost, Pattern: "/console/settings/keys/:id/revoke", Access: User},
	{Name: StripeSettings, Method: http.MethodGet, Pattern: "/console/settings/stripe", Access: User},
	{Name: ConnectStripe, Method: http.MethodPost, Pattern: "/console/settings/stripe", Access: Owner},
	{Name: DisconnectStripe, Method: http.MethodPost, Pattern: "/console/settings/stripe/disconnect", Access: Owner},
	{Name: SaveStripeTrials, Method: http.MethodPost, Pattern: "/console/settings/stripe/trials", Access: Owner},
	{Name: Webhooks, Method: http.MethodGet, Pattern: "/console/webhooks", Access: User},
	{Name: CreateWebhook, Method: http.MethodPost, Pattern: "/console/webhooks", Access: Owner},
	{Name: Webhook, Method: http.MethodGet, Pattern: "/console/webhooks/:id", Access: User},
	{Name: WebhookLog, Method: http.MethodGet, Pattern: "/console/webhooks/:id/log", Access: User},
	{Name: UpdateWebhook, Method: http.MethodPost, Pattern: "/console/webhooks/:id", Access: Owner},
	{Name: SendTestWebhook, Method: http.MethodPost, Pattern: "/console/webhooks/:id/test", Access: Owner},
	{Name: RotateWebhookSecret, Method: http.MethodPost, Pattern: "/console/webhooks/:id/rotate", Access: Owner},
	{Name: ToggleWebhook, Method: http.MethodPost, Pattern: "/console/webhooks/:id/toggle", Access: Owner},
	{Name: DeleteWebhook, Method: http.MethodPost, Pattern: "/console/webhooks/:id/delete", Access: Owner},
	{Name: Links, Method: http.MethodGet, Pattern: "/console/links", Access: User},
	{Name: ExportLinks, Method: http.MethodGet, Pattern: "/console/links/export", Access: User},
	{Name: ExportAnalytics, Method: http.MethodGet, Pattern: "/console/analytics/export", Access: User},
	{Name: ExportEvents, Method: http.MethodGet, Pattern: "/console/events/export", Access: User},
	{Name: Import, Method: http.MethodGet, Pattern: "/console/import", Access: User},
	{Name: UploadImport, Method: http.MethodPost, Pattern: "/console/import", Access: User},
	{Name: RunImport, Method: http.MethodPost, Pattern: "/console/import/run", Access: User},
	{Name: RunAPIImport, Method: http.MethodPost, Pattern: "/console/import/api", Access: User},
	{Name: ImportProgress, Method: http.MethodGet, Pattern: "/console/import/progress", Access: User},
	{Name: CreateLink, Method: http.MethodPost, Pattern: "/console/links", Access: User},
	{Name: Link, Method: http.MethodGet, Pattern: "/console/links/:id", Access: User},
	{Name: UpdateLink, Method: http.MethodPost, Pattern: "/console/links/:id", Access: User},
	{Name: ArchiveLink, Method: http.MethodPost, Pattern: "/console/links/:id/archive", Access: User},
	{Name: DeleteLink, Method: http.MethodPost, Pattern: "/console/links/:id/delete", Access: User},
	{Name: Analytics, Method: http.MethodGet, Pattern: "/console/analytics", Access: User},
	{Name: Program, Method: http.MethodGet, Pattern: "/console/program", Access: User},
	{Name: CreateProgram, Method: http.MethodPost, Pattern: "/console/program", Access: Owner},
	{Name: SetReward, Method: http.MethodPost, Pattern: "/console/program/rewards", Access: Owner},
	{Name: SetHoldingPeriod, Method: http.MethodPost, Pattern: "/console/program/groups", Access: Owner},
	{Name: CreateGroup, Method: http.MethodPost, Pattern: "/console/program/groups/new", Access: Owner},
	{Name: SetGroupBranding, Method: http.MethodPost, Pattern: "/console/program/groups/branding", Access: Owner},
	{Name: SetProgramDomain, Method: http.MethodPost, Pattern: "/console/program/domain", Access: Owner},
	{Name: Discounts, Method: http.MethodGet, Pattern: "/console/program/discounts", Access: User},
	{Name: SetGroupDiscount, Method: http.MethodPost, Pattern: "/console/program/discounts", Access: Owner},
	{Name: CreateDiscountCode, Method: http.MethodPost, Pattern: "/console/program/discount-codes", Access: Owner},
	{Name: DeleteDiscountCode, Method: http.MethodPost, Pattern: "/console/program/discount-codes/:id/delete", Access: Owner},
	{Name: Partners, Method: http.MethodGet, Pattern: "/console/partners", Access: User},
	{Name: Enroll, Method: http.MethodPost, Pattern: "/console/partners", Access: Owner},
	{Name: Partner, Method: http.MethodGet, Pattern: "/console/partners/:id", Access: User},
	{Name: SetPartnerStatus, Method: http.MethodPost, Pattern: "/console/partners/:id/status", Access: Owner},
	{Name: Commissions, Method: http.MethodGet, Pattern: "/console/commissions", Access: User},
	{Name: SetCommissionStatus, Method: http.MethodPost, Pattern: "/console/commissions/:id/status", Access: Owner},
	{Name: Customers, Method: http.MethodGet, Pattern: "/console/customers", Access: User},
	{Name: Domains, Method: http.MethodGet, Pattern: "/console/domains", Access: User},
	{Name: CreateDomain, Method: http.MethodPost, Pattern: "/console/domains", Access: User},
	{Name: DeleteDomain, Method: http.MethodPost, Pattern: "/console/domains/:id/delete", Access: User},
	{Name: VerifyDomain, Method: http.MethodPost, Pattern: "/console/domains/:id/verify", Access: User},
	{Name: SetDomainLogo, Method: http.MethodPost, Pattern: "/console/domains/:id/logo", Access: User},
	{Name: RemoveDomainLogo, Method: http.MethodPost, Pattern: "/console/domains/:id/logo/delete", Access: User},
	{Name: Tags, Method: http.MethodGet, Pattern: "/console/tags", Access: User},
	{Name: CreateTag, Method: http.MethodPost, Pattern: "/console/tags", Access: User},
	{Name: DeleteTag, Method: http.MethodPost, Pattern: "/console/tags/:id/delete", Access: User},
	{Name: Folders, Method: http.MethodGet, Pattern: "/console/folders", Access: User},
	{Name: CreateFolder, Method: http.MethodPost, Pattern: "/console/folders", Access: User},
	{Name: DeleteFolder, Method: http.MethodPost, Pattern: "/console/folders/:id/delete", Access: User},
	{Name: Folder, Method: http.MethodGet, Pattern: "/console/folders/:id", Access: User},
	{Name: SetFolderAccess, Method: http.MethodPost, Pattern: "/console/folders/:id/access", Access: User},
	{Name: SetFolderMemberRole, Method: http.MethodPost, Pattern: "/console/folders/:id/members/:user", Access: User},
	{Name: Members, Method: http.MethodGet, Pattern: "/console/settings/members", Access: User},
	{Name: CreateInvite, Method: http.MethodPost, Pattern: "/console/settings/members/invite", Access: Owner},
	{Name: SetRole, Method: http.MethodPost, Pattern: "/console/settings/members/:user/role", Access: Owner},
	{Name: RemoveMember, Method: http.MethodPost, Pattern: "/console/settings/members/:user/remove", Access: Owner},
	{Name: DeleteInvite, Method: http.MethodPost, Pattern: "/console/settings/invites/:id/delete", Access: Owner},
	{Name: ApplyForm, Method: http.MethodGet, Pattern: "/apply/:slug", Access: Open},
	{Name: Apply, Method: http.MethodPost, Pattern: "/apply/:slug", Access: Open, Limit: ApplyAttempts},
	{Name: Applications, Method: http.MethodGet, Pattern: "/console/applications", Access: User},
	{Name: SetApplicationsOpen, Method: http.MethodPost, Pattern: "/console/applications/open", Access: Owner},
	{Name: ReviewApplication, Method: http.MethodPost, Pattern: "/console/applications/:id", Access: Owner},
	{Name: Payouts, Method: http.MethodGet, Pattern: "/console/payouts", Access: User},
	{Name: PayoutsCSV, Method: http.MethodGet, Pattern: "/console/payouts.csv", Access: User},
	{Name: ConfirmPayouts, Method: http.MethodPost, Pattern: "/console/payouts/confirm", Access: Owner},
	{Name: SetPayoutStatus, Method: http.MethodPost, Pattern: "/console/payouts/:id", Access: Owner},
	{Name: Bounties, Method: http.MethodGet, Pattern: "/console/bounties", Access: User},
	{Name: CreateBounty, Method: http.MethodPost, Pattern: "/console/bounties", Access: Owner},
	{Name: EditBounty, Method: http.MethodPost, Pattern: "/console/bounties/edit", Access: Owner},
	{Name: ReviewSubmission, Method: http.MethodPost, Pattern: "/console/bounties/:bounty/submissions/:id", Access: Owner},
}

var byName = func() map[Name]Route {
	m := make(map[Name]Route, len(Table))
	for _, r := range Table {
		if _, dup := m[r.Name]; dup {
			panic("route: " + string(r.Name) + " twice in the table")
		}
		m[r.Name] = r
	}
	return m
}()

// Lookup returns the route named n.
func Lookup(n Name) (Route, bool) {
	r, ok := byName[n]
	return r, ok
}

// URL is the path of the route named n with its parameters filled in, in
// order (each path-escaped): URL(Link, "link_1") is /console/links/link_1.
// An unknown name or a wrong number of parameters is a programming error
// and panics (every page's tests reach it).
func URL(n Name, params ...string) string {
	r, ok := byName[n]
	if !ok {
		panic(fmt.Sprintf("route: no route %q", n))
	}
	segs := strings.Split(r.Pattern, "/")
	i := 0
	for j, s := range segs {
		if !strings.HasPrefix(s, ":") {
			continue
		}
		if i == len(params) {
			panic(fmt.Sprintf("route: %s (%s) takes more than %d parameters", n, r.Pattern, len(params)))
		}
		segs[j] = url.PathEscape(params[i])
		i++
	}
	if i != len(params) {
		panic(fmt.Sprintf("route: %s (%s) takes %d parameters, not %d", n, r.Pattern, i, len(params)))
	}
	return strings.Join(segs, "/")
}

// Query is URL(n, params…) with the query string q (none when q is empty).
func Query(n Name, q url.Values, params ...string) string {
	u := URL(n, params...)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}
