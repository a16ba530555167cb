package analytics

import (
	"context"
	"encoding/json"
	"time"

	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/models"
)

// Engine answers validated analytics queries for one workspace. SQLEngine
// is the implementation over the SQL store (hourly aggregates where the
// planner allows, raw event tables otherwise); a second store (ClickHouse)
// plugs in by implementing the same three methods. Everything shaped for the
// wire (Dub's JSON keys, bucket formatting, IP redaction) happens outside:
// an Engine returns typed values only. docs/analytics.md describes what
// each method must return.
type Engine interface {
	// Analytics answers GET /analytics for q.GroupBy and q.Event.
	Analytics(ctx context.Context, ws *models.Workspace, q *Query) (*Result, error)
	// Events answers one page of GET /events: q.Event's events, newest
	// first (oldest first when q.SortOrder is "asc"), events of deleted
	// links dropped.
	Events(ctx context.Context, ws *models.Workspace, q *Query) ([]EventRecord, error)
	// Tally counts the events of a set of links in [q.From, q.To): in
	// total, per link or per local bucket (partner analytics and the
	// embedded dashboard's charts).
	Tally(ctx context.Context, ws *models.Workspace, q TallyQuery) ([]Tally, error)
}

// BucketLayout is how Dub writes a timeseries bucket start: in the query's
// zone, with an offset without a colon (2025-03-09T00:00:00.000-0500).
const BucketLayout = "2006-01-02T15:04:05.000-0700"

// Result is one /analytics answer. Exactly one part is filled, by GroupBy:
// Total for count, Buckets for timeseries, Groups for every other grouping.
type Result struct {
	GroupBy GroupBy
	Total   Counters
	Buckets []Bucket
	Groups  []Group
}

// Bucket is one timeseries bucket. Start is in the query's zone.
type Bucket struct {
	Start time.Time
	Counters
}

// Format renders the bucket start as Dub does (BucketLayout).
func (b Bucket) Format() string { return b.Start.Format(BucketLayout) }

// Group is one row of a grouped answer: the counters of one value of the
// grouping. Key is the value itself for single-value groupings (device,
// browser, URL, UTM value, domain, continent, country …) and the id of the
// entity for entity groupings. Geo groupings also fill Country, Region
// ("CC-RR") and City; entity groupings fill their entity's field; all
// other fields stay zero.
type Group struct {
	Key string
	Counters

	Country, Region, City string // regions, countries, cities

	Link         *TopLink      // top_links
	Folder       *Folder       // top_folders
	Tag          *Tag          // top_link_tags
	Partner      *Partner      // top_partners
	PartnerGroup *PartnerGroup // top_groups
}

// TopLink is the part of a link a top_links row shows.
type TopLink struct {
	ID, Domain, Key, URL string
	Title, Comments      *string
	FolderID, PartnerID  *string
	CreatedAt            time.Time
	// Short is the short link as the API's link objects build it (the
	// engine's Wire); "" falls back to https.
	Short string
}

// ShortLink is the link's short URL (https://domain/key; no key for a
// root link) unless the engine set Short.
func (l *TopLink) ShortLink() string {
	if l.Short != "" {
		return l.Short
	}
	return wire.Writer{}.ShortLink(l.Domain, l.Key)
}

// Folder is a top_folders entity.
type Folder struct {
	ID, Name    string
	AccessLevel *string
}

// Tag is a link tag (top_link_tags rows and event links).
type Tag struct{ ID, Name, Color string }

// Partner is a top_partners entity.
type Partner struct {
	ID, Name              string
	Email, Image, Country *string
	PayoutsEnabledAt      *time.Time
}

// PartnerGroup is a top_groups entity.
type PartnerGroup struct{ ID, Name, Slug string }

// EventRecord is one click, lead or sale of GET /events with what it
// links to. Kind is Clicks, Leads or Sales; the lead and sale parts are
// zero for a click.
type EventRecord struct {
	Kind      Event
	Timestamp time.Time
	Click     Click
	Link      EventLink

	// Leads and sales.
	ID        string          // the event id
	EventName string          //
	Metadata  json.RawMessage // nil when the event has none (or "null")
	Customer  Customer

	Sale Sale // sales only
}

// Click is the click an event came from (for a click event, itself).
type Click struct {
	ID         string
	URL        string
	Continent  string
	Country    string
	Region     string // subdivision code without the country ("CA")
	City       string
	Device     string
	Browser    string
	OS         string
	UA         string
	Trigger    string
	Referer    string
	RefererURL string // without its query string
	QR         bool
	IP         string
}

// EventLink is the event's link as it is now, with its tags (in the order
// they were added) and the URL of its QR code.
type EventLink struct {
	*models.Link
	Tags   []Tag
	Short  string // the short link as the API's link objects build it
	QRCode string
}

// Customer is a lead's or sale's customer. A deleted customer is Dub's
// placeholder: Deleted set, name "Deleted Customer", email
// deleted@customer.com, externalId its id, created at the Unix epoch.
type Customer struct {
	ID         string
	Deleted    bool
	Name       string // the name, else the email, else "Customer <externalId>"
	Email      string
	Avatar     *string
	ExternalID string
	Country    string
	CreatedAt  time.Time
}

// Sale is a sale event's amount (cents, USD) and invoice.
type Sale struct {
	Amount           int64
	InvoiceID        string
	PaymentProcessor string
}

// WithFolderAccess wraps e so that every Analytics and Events query it runs
// carries check as its FolderAccess (the exports, which parse their own
// queries, ask the caller's folder rights this way).
func WithFolderAccess(e Engine, check func(ctx context.Context, folderID string) error) Engine {
	return folderChecked{e, check}
}

type folderChecked struct {
	Engine
	check func(ctx context.Context, folderID string) error
}

func (f folderChecked) Analytics(ctx context.Context, ws *models.Workspace, q *Query) (*Result, error) {
	q.FolderAccess = f.check
	return f.Engine.Analytics(ctx, ws, q)
}

func (f folderChecked) Events(ctx context.Context, ws *models.Workspace, q *Query) ([]EventRecord, error) {
	q.FolderAccess = f.check
	return f.Engine.Events(ctx, ws, q)
}
