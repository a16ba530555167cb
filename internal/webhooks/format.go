package webhooks

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Hosts whose receivers get their own body format (§1.3: chosen by the
// URL's host at delivery time, as upstream does).
const (
	slackHost   = "hooks.slack.com"
	segmentHost = "api.segment.io"
)

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// segmentEvents are the events a Segment receiver can take (§6.8).
var segmentEvents = map[string]bool{LinkClicked: true, LeadCreated: true, SaleCreated: true, PartnerEnrolled: true}

// Sendable reports whether h can receive event at all: Segment receivers
// only take the four events with a Track mapping (§6.8).
func Sendable(h *Webhook, event string) bool {
	return hostOf(h.URL) != segmentHost || segmentEvents[event]
}

// Format returns the body h receives for the envelope and the extra
// headers: the envelope itself, or a Slack message or Segment Track call
// built from it, chosen by the URL's host.
func Format(h *Webhook, envelope []byte) ([]byte, http.Header, error) {
	switch hostOf(h.URL) {
	case slackHost:
		b, err := slackBody(envelope)
		return b, nil, err
	case segmentHost:
		b, err := segmentBody(envelope)
		hdr := http.Header{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte(h.Secret+":"))}}
		return b, hdr, err
	}
	return envelope, nil, nil
}

// generic is an envelope read back for the transforms.
type generic struct {
	ID        string         `json:"id"`
	Event     string         `json:"event"`
	CreatedAt string         `json:"createdAt"`
	Data      map[string]any `json:"data"`
}

func parse(envelope []byte) (*generic, error) {
	var g generic
	if err := json.Unmarshal(envelope, &g); err != nil {
		return nil, fmt.Errorf("webhooks: read envelope: %w", err)
	}
	return &g, nil
}

func str(m map[string]any, path ...string) string {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = mm[p]
	}
	switch v := cur.(type) {
	case string:
		return v
	case float64:
		return fmt.Sprintf("%g", v)
	case nil:
		return ""
	}
	return fmt.Sprint(cur)
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Fields   []slackText `json:"fields,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

var slackHeadlines = map[string]string{
	LinkCreated: "*New short link created* :link:", LinkUpdated: "*Short link updated* :link:",
	LinkDeleted: "*Short link deleted* :link:", LinkClicked: "*Someone clicked your short link* :eyes:",
	LeadCreated: "*New lead created* :tada:", SaleCreated: "*New sale created* :moneybag:",
	PartnerEnrolled: "*New partner enrolled* :tada:", PartnerApplicationSubmitted: "*New partner application submitted* :incoming_envelope:",
	PartnerMerged: "*Partner accounts merged* :twisted_rightwards_arrows:", CommissionCreated: "*New commission created* :tada:",
	BountyCreated: "*New bounty created* :money_with_wings:", BountyUpdated: "*Bounty updated* :memo:",
	PayoutConfirmed: "*Payout confirmed* :money_with_wings:", DiscountCodeCreated: "*Discount code created* :ticket:",
	DiscountCodeDeleted: "*Discount code deleted* :ticket:", CommissionUpdated: "*Commission updated* :memo:",
}

// slackBody is a Block Kit message (§6.7): a headline section, the
// event's main fields, and a context line with the event id.
func slackBody(envelope []byte) ([]byte, error) {
	g, err := parse(envelope)
	if err != nil {
		return nil, err
	}
	d := g.Data
	field := func(label, v string) slackText { return slackText{Type: "mrkdwn", Text: "*" + label + "*\n" + v} }
	var fields []slackText
	switch g.Event {
	case LinkCreated, LinkUpdated, LinkDeleted:
		fields = []slackText{field("Short link", str(d, "shortLink")), field("Destination URL", str(d, "url"))}
	case LinkClicked:
		fields = []slackText{field("Country", str(d, "click", "country")), field("Referrer", str(d, "click", "referer")),
			field("Short link", str(d, "link", "shortLink")), field("Destination URL", str(d, "link", "url"))}
	case LeadCreated, SaleCreated:
		fields = []slackText{field("Customer", strings.TrimSpace(str(d, "customer", "name")+" "+str(d, "customer", "email"))),
			field("Country", str(d, "click", "country")), field("Link", str(d, "link", "shortLink"))}
		if g.Event == SaleCreated {
			fields = append(fields, field("Amount", fmt.Sprintf("%.2f %s", num(d, "sale", "amount")/100,
				strings.ToUpper(str(d, "sale", "currency")))))
		}
	case PartnerEnrolled:
		fields = []slackText{field("Partner", str(d, "name")), field("Country", str(d, "country")),
			field("Company", str(d, "companyName"))}
	case CommissionCreated, CommissionUpdated:
		fields = []slackText{field("Partner", str(d, "partner", "name")), field("Commission Amount",
			fmt.Sprintf("%.2f USD", num(d, "earnings")/100))}
	case DiscountCodeCreated, DiscountCodeDeleted:
		fields = []slackText{field("Code", str(d, "code")), field("Partner ID", str(d, "partnerId"))}
	case BountyCreated, BountyUpdated:
		fields = bountySlackFields(d, field)
	}
	blocks := []slackBlock{{Type: "section", Text: &slackText{Type: "mrkdwn", Text: slackHeadlines[g.Event]}}}
	if len(fields) > 0 {
		blocks = append(blocks, slackBlock{Type: "section", Fields: fields})
	}
	blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{{Type: "mrkdwn", Text: "Relink · " + g.ID}}})
	return Marshal(map[string]any{"blocks": blocks})
}

func num(m map[string]any, path ...string) float64 {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return 0
		}
		cur = mm[p]
	}
	f, _ := cur.(float64)
	return f
}

// segmentTrack is a Segment Track call (§6.8), keys in order.
type segmentTrack struct {
	Event       string         `json:"event"`
	AnonymousID string         `json:"anonymousId,omitempty"`
	UserID      string         `json:"userId,omitempty"`
	Context     segmentContext `json:"context"`
	Properties  any            `json:"properties"`
}

type segmentContext struct {
	IP          string            `json:"ip,omitempty"`
	Integration map[string]string `json:"integration"`
	Library     map[string]string `json:"library"`
	Campaign    map[string]string `json:"campaign,omitempty"`
}

// titleWords capitalises each space-separated word ("sign up" → "Sign Up").
func titleWords(s string) string {
	w := strings.Split(s, " ")
	for i, x := range w {
		if x != "" {
			w[i] = strings.ToUpper(x[:1]) + x[1:]
		}
	}
	return strings.Join(w, " ")
}

func segmentBody(envelope []byte) ([]byte, error) {
	g, err := parse(envelope)
	if err != nil {
		return nil, err
	}
	d := g.Data
	dub := map[string]string{"name": "dub", "version": "1.0.0"}
	t := segmentTrack{Context: segmentContext{Integration: dub, Library: dub}}
	withClick := func() {
		t.Context.IP = str(d, "click", "ip")
		c := map[string]string{}
		for k, col := range map[string]string{"name": "utm_campaign", "source": "utm_source", "medium": "utm_medium",
			"term": "utm_term", "content": "utm_content"} {
			if v := str(d, "link", col); v != "" {
				c[k] = v
			}
		}
		if len(c) > 0 {
			t.Context.Campaign = c
		}
	}
	switch g.Event {
	case LinkClicked:
		t.Event, t.AnonymousID = "Link Clicked", str(d, "click", "id")
		t.Properties = map[string]any{"click": d["click"], "link": d["link"]}
		withClick()
	case LeadCreated:
		t.Event, t.UserID = titleWords(str(d, "eventName")), str(d, "customer", "externalId")
		t.Properties = map[string]any{"click": d["click"], "link": d["link"], "customer": d["customer"]}
		withClick()
	case SaleCreated:
		t.Event, t.UserID = titleWords(str(d, "eventName")), str(d, "customer", "externalId")
		sale, _ := d["sale"].(map[string]any)
		t.Properties = map[string]any{"click": d["click"], "link": d["link"], "customer": d["customer"],
			"sale": sale, "revenue": num(d, "sale", "amount"), "currency": str(d, "sale", "currency")}
		withClick()
	case PartnerEnrolled:
		t.Event, t.UserID = "Partner Enrolled", str(d, "id")
		partner := make(map[string]any, len(d))
		for k, v := range d {
			if k != "links" {
				partner[k] = v
			}
		}
		t.Properties = map[string]any{"partner": partner, "links": d["links"]}
	default:
		return nil, fmt.Errorf("webhooks: %s cannot be sent to Segment", g.Event)
	}
	return Marshal(t)
}

// bountySlackFields are a bounty's Slack fields (§6.7): name, reward, type,
// duration and description.
func bountySlackFields(d map[string]any, field func(label, v string) slackText) []slackText {
	reward := "Set on approval"
	if num(d, "rewardAmount") > 0 {
		reward = fmt.Sprintf("%.2f USD", num(d, "rewardAmount")/100)
	}
	day := func(k string) string { return strings.SplitN(str(d, k), "T", 2)[0] }
	duration := "From " + day("startsAt") + ", no end date"
	if str(d, "endsAt") != "" {
		duration = day("startsAt") + " to " + day("endsAt")
	}
	desc := str(d, "description")
	if desc == "" {
		desc = "—"
	}
	return []slackText{field("Bounty Name", str(d, "name")), field("Reward", reward), field("Type", titleWords(str(d, "type"))),
		field("Duration", duration), field("Description", desc)}
}
