// Package embed holds the embedded referral dashboard's views
// (spec/partners-and-embed.md §6): the page shell, whose sections are htmx
// fragments loaded with the public token in an Authorization header, each
// fragment, and the in-frame error state. The behaviour (copy buttons, tabs,
// height and error messages to the parent window, the token watchdog) lives
// in static/js/embed-page.js: scripts in swapped fragments would be blocked
// by the CSP.
package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Fragment paths, relative to the app origin. The page's sections load them
// with hx-get; the token travels in the Authorization header (hx-headers on
// the root), never in a cookie.
const (
	PathPage        = "/embed/referrals"
	PathOverview    = FragmentBase + "/overview"
	PathEarnings    = FragmentBase + "/earnings"
	PathLinks       = FragmentBase + "/links"
	PathLeaderboard = FragmentBase + "/leaderboard"
	PathFAQ         = FragmentBase + "/faq"
	PathQuickstart  = FragmentBase + "/quickstart"
	PathBounties    = FragmentBase + "/bounties"
	PathResources   = FragmentBase + "/resources"
	PathSettings    = FragmentBase + "/settings"
)

// FragmentBase is the embed's prefix of every fragment path.
const FragmentBase = "/embed/referrals/fragments"

type baseKey struct{}

// WithBase makes the fragments rendered under ctx point at base instead of
// FragmentBase: the partner portal serves the same fragments under its own
// path, behind its own door (a session cookie, not a token).
func WithBase(ctx context.Context, base string) context.Context {
	return context.WithValue(ctx, baseKey{}, base)
}

// P is the fragment path p (a Path… constant, possibly with a suffix) under
// the request's base; "" stays "".
func P(ctx context.Context, p string) string {
	if b, ok := ctx.Value(baseKey{}).(string); ok && strings.HasPrefix(p, FragmentBase) {
		return b + strings.TrimPrefix(p, FragmentBase)
	}
	return p
}

// EventLinksChanged is the htmx event (HX-Trigger) a link write sends: the
// overview (referral-link box) and the Quickstart card reload on it.
const EventLinksChanged = "linksChanged"

// refreshOn is the hx-trigger of a section that reloads after link writes.
const refreshOn = EventLinksChanged + " from:body"

// NoLink is what the referral-link box offers a partner without links.
type NoLink struct {
	CanCreate bool   // "Create a link" opens the form in the Links tab
	Help      string // otherwise: what to do instead
}

// Shell is the page around the sections.
type Shell struct {
	Token         string // the embed's public token (Authorization header)
	CSRF          string // the portal's CSRF token (X-CSRF-Token header), without a token
	Background    string // CSS colour for the root; empty: transparent
	DynamicHeight bool
	ProgramName   string
	BrandColor    string // the group's accent (CSS --brand)
	Logo          string // the group's logo URL; "": none
	Active        bool
	Status        string // enrollment status, for the inactive card
	Tabs          []Tab
}

// Tab is one tab of the dashboard.
type Tab struct {
	ID, Label, Path string
	Badge           string // a count after the label (Bounties)
}

// headers is the hx-headers JSON carrying the token.
func (s Shell) headers() string {
	h := map[string]string{"Authorization": "Bearer " + s.Token}
	if s.Token == "" {
		h = map[string]string{"X-CSRF-Token": s.CSRF}
	}
	b, _ := json.Marshal(h)
	return string(b)
}

func (s Shell) rootStyle() string {
	st := "--brand: " + s.BrandColor + ";"
	if s.Background != "" {
		st += " background-color: " + s.Background + ";"
	}
	return st
}

// rootClass: the root spans the whole frame, so backgroundColor fills it
// (the content is centred inside); at least one screen tall unless the
// frame follows the content's height.
func (s Shell) rootClass() string {
	if s.DynamicHeight {
		return "w-full"
	}
	return "min-h-screen w-full"
}

// tabTrigger loads the first tab's panel with the page and the others when
// first shown, so a page view costs few requests of the token's budget.
func tabTrigger(i int) string {
	if i == 0 {
		return "load"
	}
	// Loaded when its tab is chosen (embed-page.js sends tab-selected), or
	// when it scrolls into view: a panel below the fold would otherwise wait
	// for a scroll after the click.
	return "intersect once, tab-selected once"
}

// ErrorView is the in-frame error state; static/js/embed-page.js posts
// {code, message} to the parent when it appears.
type ErrorView struct {
	Code    string // the API error code, e.g. "unauthorized"
	Message string // the API's message, posted to the parent window
	Title   string
	Hint    string // what the partner can do, shown under the title
	// Background is themeOptions.backgroundColor (already checked), or "".
	Background string
}

func (e ErrorView) rootStyle() string {
	if e.Background == "" {
		return ""
	}
	return "background-color: " + e.Background + ";"
}

// Link is a referral link as shown.
type Link struct {
	ID, Display, Copy, Destination, Domain, Key, URL string
	Clicks, Leads, Conversions                       string
	Default                                          bool // from a group default link: destination fixed
}

// Overview is the hero (links, rewards), the stat cards and the chart.
type Overview struct {
	Links        []Link
	NoLink       NoLink // when Links is empty
	Rewards      []string
	Terms        []string // "$50 minimum payout amount", "30-day holding period"
	TermsURL     string
	Clicks       string
	Leads        string
	Sales        string
	Earnings     string // upcoming + paid
	Upcoming     string
	Paid         string
	HideEarnings bool
	Chart        Chart
	PoweredBy    bool
	// Referral is the partner-referral section; nil: not shown.
	Referral *PartnerReferral
	// Sparks are the stat cards' sparklines (clicks, leads, sales); nil
	// when there is no activity yet.
	Sparks *Sparks
}

// PartnerReferral is the hero's partner-referral section.
type PartnerReferral struct {
	Link, Display string
	Rewards       []string
}

// Sparks holds SVG path data for the stat cards' sparklines, drawn on a
// 100×24 canvas.
type Sparks struct {
	Clicks, Leads, Sales string
}

// Sparkline draws a series as SVG path data on a 100×24 canvas, scaled to
// its own maximum; fewer than two points draw a flat line.
func Sparkline(vals []int64) string {
	const w, h = 100.0, 24.0
	if len(vals) < 2 {
		return fmt.Sprintf("M0 %.1f L%.0f %.1f", h-1, w, h-1)
	}
	var maxV int64 = 1
	for _, v := range vals {
		maxV = max(maxV, v)
	}
	var b strings.Builder
	for i, v := range vals {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		x := float64(i) * w / float64(len(vals)-1)
		y := (h - 1) - float64(v)*(h-2)/float64(maxV)
		fmt.Fprintf(&b, "%s%.1f %.1f ", cmd, x, y)
	}
	return strings.TrimSpace(b.String())
}

// linkIcon names a resource link's icon: an envelope for mailto, else a globe.
func linkIcon(mail bool) string {
	if mail {
		return "mail"
	}
	return "web"
}

// copiedLabel is a copy button's label once copied: "Copy link" → "Copied
// link", anything else "Copied".
func copiedLabel(label string) string {
	if label == "Copy link" {
		return "Copied link"
	}
	return "Copied"
}

// sparkOf picks a sparkline; "" without activity.
func sparkOf(s *Sparks, which string) string {
	if s == nil {
		return ""
	}
	switch which {
	case "clicks":
		return s.Clicks
	case "leads":
		return s.Leads
	}
	return s.Sales
}

// Quickstart is the three starter cards (§6.5).
type Quickstart struct {
	First        *Link
	NoLink       NoLink // when First is nil
	HasResources bool
	ShowEarnings bool // false: the third card is "Browse the FAQ"
	CanPayout    bool // some earnings exist: "Connect payouts" is enabled
	HasFAQ       bool
}

// Resources is the Resources tab (§6.5).
type Resources struct {
	Logos  []ResourceFile
	Colors []ResourceColor
	Files  []ResourceFile
	Links  []ResourceLink
}

// ResourceFile is a logo or file: its name, "PNG · 12.3 KB", download URL.
type ResourceFile struct {
	Name, Meta, URL string
}

// ResourceColor is a brand colour: name and upper-case hex.
type ResourceColor struct {
	Name, Hex string
}

// ResourceLink is a link with a copy action; Mail marks mailto: links.
type ResourceLink struct {
	Name, URL, Display string
	Mail               bool
}

// Settings is the Settings tab: how the partner gets paid.
type Settings struct {
	ProgramName string
	Method      string // "" : no payout method yet
	Email       string // the partner's email (and PayPal email)
	Terms       []string
	Upcoming    string
	Paid        string
}

// Bounty is one card of the Bounties tab.
type Bounty struct {
	ID, Name, Description string
	Reward, Goal          string // "$50", "$500"
	Progress              string // "$120.00"
	Percent               int    // 0–100
	Window                string // "Ends Dec 31, 2026" or "No end date"
	Done                  bool
	Proof                 bool   // a submission bounty: the partner submits links or a description
	Status                string // the partner's submission: "", submitted, approved or rejected
	Note                  string // the reviewer's rejection note
	Error                 string // why the last submission was refused
}

// SubmitPath is where the card's form posts.
func (b Bounty) SubmitPath() string { return PathBounties + "/" + b.ID }

// StatusLabel describes the partner's submission.
func (b Bounty) StatusLabel() string {
	switch b.Status {
	case "submitted":
		return "Submitted: in review"
	case "approved":
		return "Approved: reward earned"
	case "rejected":
		return "Rejected"
	case "draft":
		return "Draft"
	}
	return ""
}

func (b Bounty) barStyle() string {
	return fmt.Sprintf("width: %d%%", b.Percent)
}

// Chart is a server-rendered SVG line chart of earnings per day.
type Chart struct {
	Width, Height int
	Line, Area    string // SVG path data
	Total         string
	Max           string
	From, To      string // axis labels
	Empty         bool
	Bars          []ChartBar // per-day hover targets with titles
}

// ChartBar is an invisible hover target with the day's figure.
type ChartBar struct {
	X, W  string
	Title string
}

// EarningsRow is one row of the earnings table.
type EarningsRow struct {
	Date, DateTitle, Customer, Amount, Earnings, Status, StatusClass string
}

// Earnings is the paginated earnings table.
type Earnings struct {
	Rows        []EarningsRow
	Page, Pages int
	Total       string
	PrevPath    string // empty: no previous page
	NextPath    string
}

// LinkForm is the create/edit form of the Links tab.
type LinkForm struct {
	LinkID       string // empty: create
	Domain       string // the short domain (fixed prefix)
	Key          string
	Destinations []string // allowed destination domains
	DestDomain   string
	Path         string
	PathDisabled bool // exact mode: the path is fixed
	HideDest     bool
	Error        string
}

// Action is where the form posts.
func (f LinkForm) Action() string {
	if f.LinkID == "" {
		return PathLinks
	}
	return PathLinks + "/" + f.LinkID
}

// Links is the Links tab.
type Links struct {
	Links          []Link
	CanCreate      bool
	DisabledReason string
	Form           *LinkForm
	Created        string // a link just created (copied by the page script)
}

// Leaderboard is the Leaderboard tab: real rows only.
type Leaderboard struct {
	Rows     []LeaderRow
	You      int   // the viewer's rank; 0: not on the board yet
	Partners int64 // approved partners in the program
}

// Summary is the line above the table: how many partners there are and how
// many have earned.
func (l Leaderboard) Summary() string {
	s := plural64(l.Partners, "partner") + " in the program"
	switch len(l.Rows) {
	case 0:
		return s + ", none with earnings yet."
	case 1:
		return s + ", 1 with earnings."
	}
	return fmt.Sprintf("%s, %d with earnings.", s, len(l.Rows))
}

func plural64(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// LeaderRow is one leaderboard row.
type LeaderRow struct {
	Rank     int
	Name     string
	Earnings string
	Initials string
	Hue      int
	You      bool // the viewer's own row
}

// Crown is the medal class of ranks 1–3.
func (r LeaderRow) Crown() string {
	switch r.Rank {
	case 1:
		return "text-yellow-500"
	case 2:
		return "text-gray-400"
	case 3:
		return "text-amber-700"
	}
	return ""
}

func (r LeaderRow) avatarStyle() string {
	return fmt.Sprintf("background-color: hsl(%d 70%% 45%%)", r.Hue)
}

// FAQItem is one accordion entry.
type FAQItem struct {
	ID, Title, Content string
}

// StatusLabel is the badge text of a commission or enrollment status
// (§4.4 labels: Pending, …, On Hold).
func StatusLabel(s string) string {
	if s == "hold" {
		return "On Hold"
	}
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// StatusClass is the badge colour of a commission status.
func StatusClass(s string) string {
	switch s {
	case "pending", "hold":
		return "bg-amber-100 text-amber-800 dark:bg-amber-900/40 dark:text-amber-300"
	case "processed":
		return "bg-blue-100 text-blue-800 dark:bg-blue-900/40 dark:text-blue-300"
	case "paid":
		return "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-300"
	}
	return "bg-gray-100 text-gray-700 dark:bg-gray-800 dark:text-gray-300"
}
