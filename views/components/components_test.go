package components_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/relinkhq/relink/views/components"
)

func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	return renderWith(t, c, nil)
}

// renderWith renders c with children (the { children... } slot).
func renderWith(t *testing.T, c templ.Component, children templ.Component) *goquery.Document {
	t.Helper()
	ctx := context.Background()
	if children != nil {
		ctx = templ.WithChildren(ctx, children)
	}
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	d, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

func TestButton(t *testing.T) {
	tests := []struct {
		name     string
		props    components.ButtonProps
		selector string // must match exactly one element
		attrs    map[string]string
	}{
		{"button by default", components.ButtonProps{Label: "Save"},
			"button[type=button][data-testid=button]", nil},
		{"submit", components.ButtonProps{Label: "Save", Type: "submit", TestID: "save"},
			"button[type=submit][data-testid=save]", nil},
		{"unknown type falls back to button", components.ButtonProps{Label: "X", Type: "bogus"},
			"button[type=button]", nil},
		{"disabled", components.ButtonProps{Label: "Save", Disabled: true},
			"button[disabled]", nil},
		{"link when Href is set", components.ButtonProps{Label: "Docs", Href: "/docs", Variant: components.ButtonSecondary},
			"a[href='/docs'][data-testid=button]", nil},
		{"unsafe href is neutralised", components.ButtonProps{Label: "x", Href: "javascript:alert(1)"},
			"a", map[string]string{"href": "about:invalid#TemplFailedSanitizationURL"}},
		{"extra htmx attributes", components.ButtonProps{Label: "Load", Attrs: templ.Attributes{"hx-get": "/more", "hx-target": "#list"}},
			"button", map[string]string{"hx-get": "/more", "hx-target": "#list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := render(t, components.Button(tt.props))
			sel := d.Find(tt.selector)
			if sel.Length() != 1 {
				h, _ := d.Html()
				t.Fatalf("%q matched %d elements in %s", tt.selector, sel.Length(), h)
			}
			if sel.Text() != tt.props.Label {
				t.Errorf("label = %q, want %q", sel.Text(), tt.props.Label)
			}
			for k, v := range tt.attrs {
				if got := sel.AttrOr(k, ""); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
	// Variants look different from one another.
	classes := map[string]bool{}
	for _, v := range []components.ButtonVariant{components.ButtonPrimary, components.ButtonSecondary, components.ButtonDanger, components.ButtonGhost} {
		classes[render(t, components.Button(components.ButtonProps{Label: "x", Variant: v})).Find("button").AttrOr("class", "")] = true
	}
	if len(classes) != 4 {
		t.Errorf("4 variants render %d distinct class lists", len(classes))
	}
}

func TestCard(t *testing.T) {
	body := templ.Raw(`<p data-testid="inside">hello</p>`)
	d := renderWith(t, components.Card(components.CardProps{Title: "Clicks", Subtitle: "Last 24 hours", TestID: "clicks-card"}), body)
	card := d.Find("section[data-testid=clicks-card]")
	if card.Length() != 1 {
		t.Fatal("no card with the given test id")
	}
	if got := card.Find("[data-testid=card-title]").Text(); got != "Clicks" {
		t.Errorf("title = %q", got)
	}
	if card.Find("[data-testid=inside]").Text() != "hello" {
		t.Error("children not rendered inside the card")
	}

	d = renderWith(t, components.Card(components.CardProps{}), body)
	if d.Find("section[data-testid=card] header").Length() != 0 {
		t.Error("a card without a title renders a header")
	}
}

func TestEmptyState(t *testing.T) {
	d := render(t, components.EmptyState(components.EmptyStateProps{
		Title:   "No links yet",
		Message: "Create your first short link.",
		Action:  &components.ButtonProps{Label: "Create link", Href: "/links/new", TestID: "create-link"},
	}))
	if d.Find("[data-testid=empty-state] [data-testid=empty-state-title]").Text() != "No links yet" {
		t.Error("title missing")
	}
	if d.Find("[data-testid=empty-state-message]").Text() != "Create your first short link." {
		t.Error("message missing")
	}
	if d.Find("a[data-testid=create-link]").AttrOr("href", "") != "/links/new" {
		t.Error("action link missing")
	}

	d = render(t, components.EmptyState(components.EmptyStateProps{Title: "Nothing", TestID: "x"}))
	if d.Find("[data-testid=x] a, [data-testid=x] button, [data-testid=empty-state-message]").Length() != 0 {
		t.Error("optional parts rendered without being set")
	}
}

func TestStatCard(t *testing.T) {
	tests := []struct {
		name  string
		props components.StatProps
		trend string // data-trend of the change; "-" when no change is shown
	}{
		{"up", components.StatProps{Label: "Clicks", Value: "1,204", Change: "+12%", Trend: components.TrendUp, Hint: "vs last week"}, "up"},
		{"down", components.StatProps{Label: "Sales", Value: "$310", Change: "-3%", Trend: components.TrendDown}, "down"},
		{"no change", components.StatProps{Label: "Leads", Value: "0", TestID: "leads"}, "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := render(t, components.StatCard(tt.props))
			id := tt.props.TestID
			if id == "" {
				id = "stat"
			}
			card := d.Find("[data-testid=" + id + "]")
			if card.Find("[data-testid=stat-label]").Text() != tt.props.Label || card.Find("[data-testid=stat-value]").Text() != tt.props.Value {
				t.Errorf("label/value wrong: %q %q", card.Find("[data-testid=stat-label]").Text(), card.Find("[data-testid=stat-value]").Text())
			}
			change := card.Find("[data-testid=stat-change]")
			if tt.trend == "-" {
				if change.Length() != 0 {
					t.Error("change shown without one")
				}
				return
			}
			if change.Text() != tt.props.Change || change.AttrOr("data-trend", "") != tt.trend {
				t.Errorf("change = %q trend %q", change.Text(), change.AttrOr("data-trend", ""))
			}
		})
	}
	up := render(t, components.StatCard(components.StatProps{Change: "+1", Trend: components.TrendUp})).Find("[data-testid=stat-change]").AttrOr("class", "")
	down := render(t, components.StatCard(components.StatProps{Change: "-1", Trend: components.TrendDown})).Find("[data-testid=stat-change]").AttrOr("class", "")
	if up == down {
		t.Error("up and down changes look the same")
	}
}

func TestErrorPage(t *testing.T) {
	d := render(t, components.ErrorPage(components.ErrorView{
		Status: 500, Title: "Something went wrong", Message: "<b>not markup</b>", HomeURL: "/", RequestID: "req1",
	}))
	checks := map[string]string{
		"error-status":     "500",
		"error-title":      "Something went wrong",
		"error-message":    "<b>not markup</b>", // escaped, shown as text
		"error-request-id": "Request ID: req1",
	}
	for id, want := range checks {
		if got := d.Find("[data-testid=" + id + "]").Text(); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if d.Find("[data-testid=error-message] b").Length() != 0 {
		t.Error("message rendered as HTML")
	}
	if d.Find("a[data-testid=error-home]").AttrOr("href", "") != "/" {
		t.Error("no home link")
	}
}
