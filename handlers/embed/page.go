package embed

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/views/embed"
	"github.com/relinkhq/relink/views/layout"
)

// pageQuery is GET /embed/referrals's query (§6.2).
type pageQuery struct {
	Token         string
	Theme         layout.Theme
	Background    string
	DynamicHeight bool
}

// cssColour accepts what backgroundColor may hold: a hex colour, a colour
// name, or an rgb()/hsl() function of numbers. Anything else is dropped.
var cssColour = regexp.MustCompile(`^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|(rgb|rgba|hsl|hsla)\([0-9.,%/ ]{1,60}\))$`)

func parsePageQuery(c *fiber.Ctx) pageQuery {
	q := pageQuery{Token: strings.TrimSpace(c.Query("token")), Theme: ParseTheme(c.Query("theme"))}
	// Malformed themeOptions, or a backgroundColor that is not a plain
	// colour, fall back to the default silently (§6.2, §6.9).
	if raw, err := input.Raw([]byte(c.Query("themeOptions"))); err == nil {
		if o, err := input.At(raw, ""); err == nil {
			if bg := o.Str("backgroundColor", input.Str{Trim: true}); bg.Has() && cssColour.MatchString(bg.Value) {
				q.Background = bg.Value
			}
		}
	}
	dh := c.Query("dynamicHeight")
	q.DynamicHeight = dh != "" && dh != "false"
	return q
}

// ParseTheme reads the theme parameter: dark, system (follows
// prefers-color-scheme), anything else light (§6.9).
func ParseTheme(s string) layout.Theme {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "dark":
		return layout.ThemeDark
	case "system":
		return layout.ThemeSystem
	}
	return layout.ThemeLight
}

// bodyClass is transparent so the host page shows through unless
// backgroundColor is set on the root.
const bodyClass = "bg-transparent text-gray-900 antialiased dark:text-gray-100"

// Page answers GET /embed/referrals: the dashboard shell for a valid token,
// else the in-frame error state (401), which posts {code, message} to the
// parent window.
func (h *Handlers) Page(c *fiber.Ctx) error {
	q := parsePageQuery(c)
	page := layout.Page{Title: "Referral dashboard", Theme: q.Theme, NoIndex: true, BodyClass: bodyClass, Framed: true}
	c.Set(fiber.HeaderCacheControl, "no-store")
	render.FrameAncestors(c, "*")
	sess, err := h.Referrals.Open(c.UserContext(), q.Token)
	if err != nil {
		e, ok := asAPIError(err)
		if !ok || e.Status() >= 500 {
			return err
		}
		v := errorView(e)
		v.Background = q.Background
		return render.Page(c, e.Status(), page, embed.ErrorState(v))
	}
	// The workspace's allowed hostnames (console settings); none: any.
	render.FrameAncestors(c, FrameAncestors(sess.Workspace.EmbedHostnames())...)
	if sess.Group == nil {
		v := errorView(apierr.New(apierr.Forbidden, referrals.MsgNoGroup))
		v.Background = q.Background
		return render.Page(c, http.StatusForbidden, page, embed.ErrorState(v))
	}
	shell, err := h.shell(c, sess)
	if err != nil {
		return err
	}
	shell.Token, shell.Background, shell.DynamicHeight = q.Token, q.Background, q.DynamicHeight
	return render.Page(c, http.StatusOK, page, embed.Page(shell))
}

// shell is the dashboard around the sections for a session, the same for
// the embed and the portal (only the door differs).
func (h *Handlers) shell(c *fiber.Ctx, sess *referrals.Session) (embed.Shell, error) {
	// The group's branding (Dub's group.brandColor || "#2563eb", group.logo).
	shell := embed.Shell{ProgramName: sess.Program.Name, BrandColor: sess.Group.Accent(), Active: sess.Active(), Status: sess.Enrollment.Status}
	if sess.Group != nil && sess.Group.Logo != nil {
		shell.Logo = *sess.Group.Logo
	}
	if shell.Active {
		// An active partner without any link gets the group's default
		// links now (enrolled before the group had them, or by a path that
		// made none); a failure leaves the dashboard usable without them.
		if _, err := h.Referrals.Conversions.EnsureDefaultLinks(c.UserContext(), sess.Workspace, sess.Program, sess.Enrollment, sess.Group); err != nil {
			h.Log.Warn("embed: default links", "enrollment", sess.Enrollment.ID, "err", err)
		}
		bounties, err := h.Referrals.Bounties(c.UserContext(), sess)
		if err != nil {
			return shell, err
		}
		shell.Tabs = tabs(sess, len(bounties))
	}
	return shell, nil
}

// tabs are the dashboard's tabs in order, each present when its condition
// holds (§6.4). Settings (how the partner is paid) goes with earnings.
func tabs(s *referrals.Session, bounties int) []embed.Tab {
	out := []embed.Tab{{ID: "quickstart", Label: "Quickstart", Path: embed.PathQuickstart}}
	if bounties > 0 {
		out = append(out, embed.Tab{ID: "bounties", Label: "Bounties", Path: embed.PathBounties, Badge: strconv.Itoa(bounties)})
	}
	if !s.Embed.HideEarnings {
		out = append(out, embed.Tab{ID: "earnings", Label: "Earnings", Path: embed.PathEarnings})
	}
	// Partners can only add links to the destinations the group allows.
	if s.Group != nil && len(s.Group.AdditionalLinks.V) > 0 {
		out = append(out, embed.Tab{ID: "links", Label: "Links", Path: embed.PathLinks})
	}
	if s.Embed.LeaderboardEnabled() {
		out = append(out, embed.Tab{ID: "leaderboard", Label: "Leaderboard", Path: embed.PathLeaderboard})
	}
	if s.Embed.FAQ == nil || len(*s.Embed.FAQ) > 0 {
		out = append(out, embed.Tab{ID: "faq", Label: "FAQ", Path: embed.PathFAQ})
	}
	if !s.Resources().Empty() {
		out = append(out, embed.Tab{ID: "resources", Label: "Resources", Path: embed.PathResources})
	}
	if !s.Embed.HideEarnings {
		out = append(out, embed.Tab{ID: "settings", Label: "Settings", Path: embed.PathSettings})
	}
	return out
}

// FrameAncestors turns the workspace's allowed hostnames into CSP
// frame-ancestors sources: none configured means any ("*"). A hostname
// without a port also allows any port of it.
func FrameAncestors(hosts []string) []string {
	if len(hosts) == 0 {
		return []string{"*"}
	}
	out := []string{"'self'"}
	for _, h := range hosts {
		if strings.ContainsAny(h, " ;,'\"") {
			continue // never let a stored value break out of the directive
		}
		out = append(out, h)
		if !strings.Contains(strings.TrimPrefix(h, "["), ":") {
			out = append(out, h+":*")
		}
	}
	return out
}

// errorView is the in-frame error state. The API's message stays Dub's (an
// unknown and an expired token are both "Invalid embed public token."); the
// title and hint tell the partner which it is and what to do.
func errorView(e *apierr.Error) embed.ErrorView {
	v := embed.ErrorView{Code: string(e.Code), Message: e.Message, Title: "Something went wrong", Hint: e.Message}
	switch e.Code {
	case apierr.Unauthorized:
		switch {
		case e.Message == referrals.MsgTokenMissing:
			v.Title, v.Hint = "Missing access token", "This page needs the access token the app adds to its address. Open the referral dashboard from the app again."
		case referrals.TokenExpired(e):
			v.Title, v.Hint = "This dashboard link has expired", "Dashboard links are valid for a few hours. Reload the page to get a fresh one."
		default:
			v.Title, v.Hint = "Invalid dashboard link", "The access token in this link is not valid. Open the referral dashboard from the app again."
		}
	case apierr.Forbidden:
		v.Title = "Program unavailable"
	case apierr.RateLimitExceeded:
		v.Title, v.Hint = "Too many requests", "Wait a minute, then reload the page."
	}
	return v
}
