// Package console holds the admin console's templ pages. Every component
// takes a small view model from this file (never a models struct); handlers
// in handlers/console fill them.
package console

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/relinkhq/relink/handlers/console/route"
)

// ShellView is the frame around every signed-in page.
type ShellView struct {
	Title      string
	Active     string // the nav item's Key
	CSRF       string
	UserEmail  string
	Workspace  WorkspaceItem // the current one
	Workspaces []WorkspaceItem
}

// WorkspaceItem is one entry of the workspace switcher.
type WorkspaceItem struct {
	ID, Name, Slug, Plan string
	Current              bool
}

// NavItem is one sidebar link.
type NavItem struct {
	Key, Label, Href string
}

// NavGroup is a titled group of sidebar links.
type NavGroup struct {
	Title string
	Items []NavItem
}

// Nav is the sidebar.
var Nav = []NavGroup{
	{"", []NavItem{
		{"home", "Overview", route.URL(route.Home)},
		{"links", "Links", route.URL(route.Links)},
		{"import", "Import", route.URL(route.Import)},
		{"analytics", "Analytics", route.URL(route.Analytics)},
	}},
	{"Partner program", []NavItem{
		{"program", "Program & rewards", route.URL(route.Program)},
		{"discounts", "Discounts", route.URL(route.Discounts)},
		{"partners", "Partners", route.URL(route.Partners)},
		{"applications", "Applications", route.URL(route.Applications)},
		{"commissions", "Commissions", route.URL(route.Commissions)},
		{"payouts", "Payouts", route.URL(route.Payouts)},
		{"bounties", "Bounties", route.URL(route.Bounties)},
		{"customers", "Customers", route.URL(route.Customers)},
	}},
	{"Library", []NavItem{
		{"domains", "Domains", route.URL(route.Domains)},
		{"tags", "Tags", route.URL(route.Tags)},
		{"folders", "Folders", route.URL(route.Folders)},
	}},
	{"Workspace", []NavItem{
		{"settings", "Settings", route.URL(route.Settings)},
		{"members", "Members", route.URL(route.Members)},
		{"keys", "API keys", route.URL(route.Keys)},
		{"webhooks", "Webhooks", route.URL(route.Webhooks)},
		{"stripe", "Stripe", route.URL(route.StripeSettings)},
	}},
}

// csrfHeaders is the hx-headers value that makes every htmx request inside
// the shell carry the CSRF token.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

func navClass(active bool) string {
	if active {
		return "block rounded-md bg-indigo-50 px-3 py-1.5 text-sm font-medium text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
	}
	return "block rounded-md px-3 py-1.5 text-sm text-gray-700 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800"
}

// FieldProps is one labelled form input with its error.
type FieldProps struct {
	Label, Name, Type, Value, Placeholder, Error, Hint string
	Required                                           bool
	TestID                                             string
}

func (f FieldProps) inputType() string {
	if f.Type == "" {
		return "text"
	}
	return f.Type
}

func inputClass(hasError bool) string {
	if hasError {
		return "mt-1 block w-full rounded-md border border-red-400 bg-white px-3 py-2 text-sm shadow-sm focus:border-red-500 focus:outline-none focus:ring-1 focus:ring-red-500 dark:bg-gray-900"
	}
	return "mt-1 block w-full rounded-md border border-gray-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-gray-700 dark:bg-gray-900"
}

// selectClass styles a <select>.
const selectClass = "mt-1 block w-full rounded-md border border-gray-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none dark:border-gray-700 dark:bg-gray-900"

// LoginForm is the sign-in form.
type LoginForm struct {
	CSRF, Email, Next, Error string
}

// OverviewView is the console's home page.
type OverviewView struct {
	Name, Slug, Plan, Role string
	Links                  string      // all links, formatted
	Checklist              []CheckItem // nil once every step is done
	// The last 30 days (HasAnalytics; else AnalyticsNote says why not).
	HasAnalytics    bool
	AnalyticsNote   string
	Totals          Totals
	Chart           ChartView
	ConvChart       ChartView
	TopLinks        []BarRow
	Conversions     []EventRow
	ConversionsNote string // why the latest conversions are not listed
}

// CheckItem is one step of the getting-started checklist.
type CheckItem struct {
	Key, Label, Hint, Href string
	Done                   bool
}

func boolAttr(b bool) string { return strconv.FormatBool(b) }

func checkLabelClass(done bool) string {
	if done {
		return "block text-sm font-medium text-gray-500 line-through dark:text-gray-400"
	}
	return "block text-sm font-medium text-gray-900 dark:text-gray-100"
}

func (o OverviewView) checklistDone() int {
	n := 0
	for _, it := range o.Checklist {
		if it.Done {
			n++
		}
	}
	return n
}

// Option is one <option>.
type Option struct {
	Value, Label string
	Selected     bool
}

func itoa(n int) string { return strconv.Itoa(n) }

// FieldErrors maps a form field's name to its error message.
type FieldErrors map[string]string

// SettingsForm is the workspace settings form.
type SettingsForm struct {
	CSRF, Name, Slug, Plan, Hostnames string
	PublishableKey                    string // "" until generated
	Snippet                           string // the browser script's tag to paste (docs/browser-script.md)
	Errors                            FieldErrors
	Saved, CanEdit                    bool
	Plans                             []string
	// Privacy settings (docs/privacy.md).
	KeepIPs       bool
	RetentionDays string // "0": forever
	PrivacySaved  bool
	PrivacyError  string
}

// KeysView is the API keys page.
type KeysView struct {
	CSRF     string
	Keys     []KeyRow
	NewName  string
	NewToken string // shown once, right after creation
	Error    string
}

// KeyRow is one API key in the list: never the token, only its partial form.
type KeyRow struct {
	ID, Name, Partial, Created, LastUsed string
	Revoked                              bool
}

// MembersView is the members and invites page.
type MembersView struct {
	CSRF       string
	CanManage  bool   // owners manage members and invites
	SelfID     string // the viewer's user id
	Members    []MemberRow
	Pager      Pager // the members' page
	Invites    []InviteRow
	Form       InviteForm
	InviteLink string // the new invite's link, shown once
	TTL        string // how long invite links last, e.g. "7 days"
}

// MemberRow is one member.
type MemberRow struct {
	UserID, Email, Role, Joined string
}

// InviteRow is one pending invite.
type InviteRow struct {
	ID, Email, Role, Expires string
	Expired                  bool
}

// InviteForm is the invite form.
type InviteForm struct {
	Email, Role string
	Errors      FieldErrors
}

// InvitePage is what an invitee sees at /console/invites/{token}.
type InvitePage struct {
	CSRF, Token, Workspace, Email, Role string
	HasAccount                          bool // sign in with the existing password, else choose one
	Error                               string
}

// Roles are the member roles, for selects.
var Roles = []string{"member", "owner"}

// LinksView is the links page: filters, the create form and the list.
type LinksView struct {
	CSRF    string
	Filters LinkFilters
	Domains []Option // filter options (first: any)
	Tags    []Option
	Folders []Option
	Sorts   []Option
	List    LinksList
	Form    LinkForm
	Export  ExportForm // the links download (the list's filters)
}

// LinkFilters are the list's query parameters.
type LinkFilters struct {
	Search, Domain, Tag, Folder, Sort string
	Archived                          bool
}

// LinksList is the swappable list part: rows and pagination.
type LinksList struct {
	Rows []LinkRow
	Pager
}

// Pager is where a list's page sits in the whole list: "1–50 of 2,114",
// with the previous and next pages' URLs ("" at either end). The URLs keep
// the list's filters and sort.
type Pager struct {
	From, To         int
	Total            int64
	PrevURL, NextURL string
}

// Text is "1–50 of 2,114" ("0 of 0" for an empty list).
func (p Pager) Text() string {
	if p.To < p.From {
		return "0 of " + Thousands(p.Total)
	}
	return Thousands(int64(p.From)) + "–" + Thousands(int64(p.To)) + " of " + Thousands(p.Total)
}

// Thousands writes n with thousands separators (2,114).
func Thousands(n int64) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// LinkRow is one link in the list.
type LinkRow struct {
	ID, ShortLink, Display, URL, Created string
	Clicks, Leads, Sales                 int64
	ClicksText                           string // "1 click", "12 clicks"
	Archived                             bool
	Root                                 bool // the domain's root link (its key is _root)
	Tags                                 []TagChip
	Folder                               string // the folder's name; "" none
}

// TagChip is a tag as a coloured chip.
type TagChip struct{ Name, Color string }

// tagClasses are the chips' colours by tag colour (models.TagColors),
// written out whole for Tailwind.
var tagClasses = map[string]string{
	"red":    "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200",
	"yellow": "bg-yellow-100 text-yellow-800 dark:bg-yellow-950 dark:text-yellow-200",
	"green":  "bg-green-100 text-green-800 dark:bg-green-950 dark:text-green-200",
	"blue":   "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-200",
	"purple": "bg-purple-100 text-purple-800 dark:bg-purple-950 dark:text-purple-200",
	"brown":  "bg-orange-200 text-orange-900 dark:bg-orange-950 dark:text-orange-200",
	"gray":   "bg-gray-100 text-gray-700 dark:bg-gray-800 dark:text-gray-300",
	"pink":   "bg-pink-100 text-pink-800 dark:bg-pink-950 dark:text-pink-200",
}

// tagDots are the tags' colours as solid dots.
var tagDots = map[string]string{
	"red": "bg-red-500", "yellow": "bg-yellow-400", "green": "bg-green-500", "blue": "bg-blue-500",
	"purple": "bg-purple-500", "brown": "bg-orange-800", "gray": "bg-gray-400", "pink": "bg-pink-500",
}

func tagDot(color string) string {
	if c, ok := tagDots[color]; ok {
		return c
	}
	return tagDots["gray"]
}

func tagClass(color string) string {
	c, ok := tagClasses[color]
	if !ok {
		c = tagClasses["gray"]
	}
	return "inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium " + c
}

// LinkForm creates or edits a link.
type LinkForm struct {
	CSRF, ID, URL, Domain, Key, FolderID, Comments string
	// Advanced: expiry (UTC, datetime-local form), password, UTM.
	ExpiresAt, ExpiredURL, Password   string
	UTMSource, UTMMedium, UTMCampaign string
	TagIDs                            map[string]bool
	Archived                          bool
	Errors                            FieldErrors
	Domains, Folders, Tags            []Option
	// ReadFolders are every folder the user may see (the list's filter);
	// Folders only those they may put links in.
	ReadFolders []Option
}

// LinkDetail is one link's page: short link, QR, edit form, analytics.
type LinkDetail struct {
	CSRF      string
	Link      LinkRow
	QRURL     string // the PNG
	QRName    string // download file name
	Form      LinkForm
	Saved     bool
	Analytics AnalyticsView
	// ReadOnly: the link is in a folder the viewer may read but not change
	// (spec/parity.md §13): no edit form, archive or delete.
	ReadOnly   bool
	FolderName string
}

// LibraryView is a simple resource page (domains, tags, folders): a create
// form and a list with delete buttons.
type LibraryView struct {
	CSRF, Kind, Noun string     // Kind: "tags"; Noun: "tag"
	Create, Delete   route.Name // the create and delete routes of the kind
	Rows             []LibraryRow
	Fields           []FieldProps
	Selects          []SelectProps
	Errors           FieldErrors
	Note             string // e.g. a plan notice
	CanCreate        bool
}

// LibraryRow is one resource.
type LibraryRow struct {
	ID, Name, Detail, Badge, Created string
	Deletable                        bool
	// Href makes the name a link (a folder's sharing page).
	Href string
	// LogoForm shows the row's logo controls (domains); Logo is the current
	// logo's URL ("" none).
	LogoForm bool
	Logo     string
	// Color is a tag's colour: the row shows a chip of it.
	Color string
	// DNS is a custom domain's verification: the records to create, what
	// the DNS answers, and the "Check DNS" button (nil: not a custom domain).
	DNS *DomainDNS
}

// DomainDNS is a domain's verification state on the domains page.
type DomainDNS struct {
	Verified    bool
	Status      string
	Records     []DNSRecord // to create; the first is recommended
	Current     string      // what the DNS answers now, in words
	LastChecked string      // "" never
}

// DNSRecord is one record to create at the domain's DNS provider.
type DNSRecord struct{ Type, Name, Value string }

// SelectProps is a labelled select.
type SelectProps struct {
	Label, Name string
	Options     []Option
}

func withError(f FieldProps, errs FieldErrors) FieldProps {
	if e := errs[f.Name]; e != "" {
		f.Error = e
	}
	return f
}

// TablePage is a list page with optional forms above it (the partner
// program pages).
type TablePage struct {
	CSRF, TestID string
	Intro        string // a line about the page
	Note, Error  string
	Forms        []FormView
	Filters      []FilterLink // e.g. status tabs
	Downloads    []FilterLink // e.g. a CSV export of the table
	// Related are links to pages about the list (a partner, the whole list).
	Related []FilterLink
	Title   string // the table card's title
	Headers []string
	Rows    []TableRow
	Empty   string
	// Sorts are the list's orders (links like Filters); Pager, when set,
	// pages the list with a count.
	Sorts []FilterLink
	Pager *Pager
}

// FormView is a small form: inputs, selects and a submit button.
type FormView struct {
	Title, Action, Submit, TestID string
	FieldsFirst                   bool // inputs before selects
	Fields                        []FieldProps
	Selects                       []SelectProps
	Errors                        FieldErrors
}

// FilterLink is one tab of a filter row.
type FilterLink struct {
	Label, Href string
	Current     bool
}

// TableRow is one row: cells and an optional action form.
type TableRow struct {
	ID     string
	Href   string // the row's own page: its first cell links there
	Cells  []string
	Action *RowAction
}

// The stacked table: on phones each row is a block of labelled lines (the
// cells' data-label, shown by stackCell's ::before), from sm up a table. On
// phones a long unbroken value (a URL) wraps anywhere rather than widening
// the page.
const (
	stackTable = "block w-full text-left text-sm sm:table"
	stackHead  = "hidden text-xs uppercase text-gray-500 sm:table-header-group"
	stackBody  = "block divide-y divide-gray-100 dark:divide-gray-800 sm:table-row-group"
	stackRow   = "block py-2 sm:table-row sm:py-0"
	stackCell  = "flex gap-2 py-0.5 break-words max-sm:[overflow-wrap:anywhere] before:w-28 before:shrink-0 before:text-xs before:uppercase before:text-gray-500 before:content-[attr(data-label)] sm:table-cell sm:py-2 sm:pr-3 sm:before:content-none"
	// stackAction is a row's action cell: a line of its own on phones.
	stackAction = "block pt-2 sm:table-cell sm:py-2 sm:text-right"
)

// cellClass styles a table cell: a full-width line on phones, labelled by
// its column (data-label), the first one bold; a table cell from sm up.
func cellClass(i int) string {
	c := stackCell
	if i == 0 {
		c += " font-medium sm:font-normal"
	}
	return c
}

// header is the i-th column's name (the label of a stacked cell on phones).
func (v TablePage) header(i int) string {
	if i < len(v.Headers) {
		return v.Headers[i]
	}
	return ""
}

// RowAction is a select-and-submit form on a row (e.g. change status).
type RowAction struct {
	Action, Name, Submit string
	Options              []Option
}

// ImportView is the link import page.
type ImportView struct {
	CSRF, Slug, Error string
	// Mapping shows the column-mapping step for an uploaded file.
	Mapping          bool
	Upload, FileName string
	Rows             int
	Fields           []ImportField
	Progress         ImportProgressView
	// Sources are the API sources; Source the one chosen.
	Sources []ImportSource
	Source  string
}

// ImportSource is a service links can be imported from through its API.
type ImportSource struct {
	Name, Label string
	DefaultBase string // "" for self-hosted services: the base URL is required
}

// ImportField is one field of the mapping step.
type ImportField struct {
	Name, Label, Example string
	Required             bool
	Options              []Option
}

// ImportProgressView is an import run: counts, and the skipped and failed
// rows once it is over.
type ImportProgressView struct {
	Started, Running bool
	State, Title     string // State: running | done | failed
	Source           string // what is imported: "CSV file", "Shlink", …
	Clicks           int
	Done, Created    int
	Skipped, Failed  int
	Percent          int
	TotalText, Error string
	Rows             []ImportRowView
}

// ImportRowView is a skipped or failed row.
type ImportRowView struct {
	Row          int
	Link, Reason string
	Failed       bool
}

// FolderAccessLevels are a folder's workspace-wide access levels, as the
// console words them (upstream's FOLDER_WORKSPACE_ACCESS).
var FolderAccessLevels = []Option{{Value: "write", Label: "Can edit"}, {Value: "read", Label: "Can view"}, {Value: "", Label: "No access"}}

// FolderRoleOptions are the roles a member can be given in a folder; ""
// removes the member's access.
var FolderRoleOptions = []Option{{Value: "owner", Label: "Owner"}, {Value: "editor", Label: "Editor"}, {Value: "viewer", Label: "Viewer"}, {Value: "none", Label: "No access"}}

// FolderPage is a folder's sharing settings: who in the workspace may see
// and change its links (spec/parity.md §13).
type FolderPage struct {
	CSRF, ID, Name, Description string
	AccessLevel                 string // write | read | "" (no default access)
	YourRole                    string // the viewer's effective role, worded
	CanShare                    bool   // may change the access level and members' roles
	Note                        string // why sharing cannot be changed, if so
	Notice, Error               string
	Members                     []FolderMemberRow
}

// FolderMemberRow is one workspace member's access to the folder.
type FolderMemberRow struct {
	UserID, Email, WorkspaceRole string
	Role                         string // owner | editor | viewer | none
	Source                       string // how the role arises ("workspace owner", "set for this member", "workspace access")
	Editable                     bool
}

// RoleLabel words a folder role for people.
func RoleLabel(r string) string {
	for _, o := range FolderRoleOptions {
		if o.Value == r {
			return o.Label
		}
	}
	return "No access"
}

// baseHint says which sources need the base URL and what the others use
// without one.
func baseHint(sources []ImportSource) string {
	var self, public []string
	for _, s := range sources {
		if s.DefaultBase == "" {
			self = append(self, s.Label)
		} else {
			public = append(public, s.Label+" "+s.DefaultBase)
		}
	}
	return "Required for " + strings.Join(self, " and ") + " (your server). Empty for the others: " + strings.Join(public, ", ") +
		"; a self-hosted Kutt needs its own."
}

// slashBreaks writes s with a line-break opportunity after each slash, so a
// short link wraps between its domain and its key, not inside the key.
func slashBreaks(s string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		for i, part := range strings.Split(s, "/") {
			if i > 0 {
				if _, err := io.WriteString(w, "/<wbr>"); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, html.EscapeString(part)); err != nil {
				return err
			}
		}
		return nil
	})
}

// recordsHint says how the records of a domain's DNS list relate: one
// CNAME, or the addresses as A/AAAA records (an apex domain).
func recordsHint(rs []DNSRecord) string {
	if len(rs) > 1 && rs[0].Type == "CNAME" {
		return " (the CNAME, or else the A/AAAA records)"
	}
	if len(rs) > 1 {
		return " (all of them)"
	}
	return ""
}
