package embed

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/referrals"
	"github.com/relinkhq/relink/internal/wire"
	"github.com/relinkhq/relink/views/embed"
)

// Links is the Links tab: the list, or the form with ?form=new|<linkId>.
func (h *Handlers) Links(c *fiber.Ctx) error {
	sess := session(c)
	v, err := h.linksView(c, sess)
	if err != nil {
		return err
	}
	switch f := c.Query("form"); {
	case f == "new" && v.CanCreate:
		v.Form = h.newForm(sess, "", "", "")
	case f != "" && f != "new":
		for _, l := range v.Links {
			if l.ID == f {
				v.Form = h.newForm(sess, l.ID, l.Key, l.URL)
				v.Form.HideDest = v.Form.HideDest || l.Default
			}
		}
	}
	return render.Component(c, http.StatusOK, embed.LinksFragment(v))
}

func (h *Handlers) linksView(c *fiber.Ctx, sess *referrals.Session) (embed.Links, error) {
	links, err := h.Referrals.Links(c.UserContext(), sess)
	if err != nil {
		return embed.Links{}, err
	}
	referrals.SortLinks(links)
	v := embed.Links{Links: viewLinks(links)}
	v.CanCreate, v.DisabledReason = linkRules(sess, len(links))
	return v, nil
}

// msgNoPartnerLinks is why a partner cannot create links in a program that
// does not allow it.
const msgNoPartnerLinks = "This program does not let partners create links."

// linkRules says whether the partner may create another link now and, if
// not, why (shown on the page under the disabled "New link" button).
func linkRules(sess *referrals.Session, n int) (bool, string) {
	switch g := sess.Group; {
	case !sess.Active():
		return false, referrals.MsgInactive
	case g == nil || !g.AdditionalLinks.Valid || len(g.AdditionalLinks.V) == 0 || g.MaxPartnerLinks <= 0:
		return false, msgNoPartnerLinks
	case n >= g.MaxPartnerLinks:
		noun := "links"
		if g.MaxPartnerLinks == 1 {
			noun = "link"
		}
		return false, fmt.Sprintf("You have reached the limit of %d %s. Edit one of your links to point it somewhere else.", g.MaxPartnerLinks, noun)
	}
	return true, ""
}

// noLinkOf says what the referral-link box offers a partner without links:
// the link form when the partner may create one, else what to do.
func noLinkOf(sess *referrals.Session, n int) embed.NoLink {
	if n > 0 {
		return embed.NoLink{}
	}
	if ok, _ := linkRules(sess, n); ok {
		return embed.NoLink{CanCreate: true}
	}
	return embed.NoLink{Help: "You don't have a referral link yet. " + sess.Program.Name +
		" creates partner links: contact them to get yours."}
}

// newForm builds the link form; dest is the current destination when editing.
func (h *Handlers) newForm(sess *referrals.Session, id, key, dest string) *embed.LinkForm {
	f := &embed.LinkForm{LinkID: id, Key: key}
	if sess.Program.Domain != nil {
		f.Domain = *sess.Program.Domain
	}
	g := sess.Group
	if g.AdditionalLinks.Valid {
		exactOnly := len(g.AdditionalLinks.V) > 0
		for _, al := range g.AdditionalLinks.V {
			f.Destinations = append(f.Destinations, al.Domain)
			exactOnly = exactOnly && al.ValidationMode == "exact"
		}
		f.PathDisabled = exactOnly
		f.HideDest = exactOnly && len(g.AdditionalLinks.V) == 1
	}
	if u, err := url.Parse(dest); err == nil && u.Host != "" {
		f.DestDomain, f.Path = u.Host, strings.TrimPrefix(u.RequestURI(), "/")
	} else if len(f.Destinations) > 0 {
		f.DestDomain = f.Destinations[0]
	}
	return f
}

// SaveLink creates (POST fragments/links) or updates (POST
// fragments/links/:id) a link from the form and re-renders the tab; an
// error re-renders the form with the message under the key.
func (h *Handlers) SaveLink(c *fiber.Ctx) error {
	sess := session(c)
	id := c.Params("id")
	in := referrals.LinkWrite{Key: strings.TrimSpace(c.FormValue("key"))}
	if d := strings.TrimSpace(c.FormValue("domain")); d != "" {
		in.URL = "https://" + d + "/" + strings.TrimPrefix(strings.TrimSpace(c.FormValue("path")), "/")
	}
	var saved *wire.ReferralLink
	var err error
	if id == "" {
		if in.Key == "" {
			err = apierr.Validation("too_small", "key", "Key is required.")
		} else {
			saved, err = h.Referrals.CreateLink(c.UserContext(), sess, in)
		}
	} else {
		saved, err = h.Referrals.UpdateLink(c.UserContext(), sess, id, in)
	}
	v, verr := h.linksView(c, sess)
	if verr != nil {
		return verr
	}
	if err != nil {
		e, ok := asAPIError(err)
		if !ok || e.Status() >= 500 {
			return err
		}
		v.Form = h.newForm(sess, id, in.Key, in.URL)
		v.Form.Error = e.Message
		for _, l := range v.Links {
			v.Form.HideDest = v.Form.HideDest || (l.ID == id && l.Default)
		}
		return render.Component(c, http.StatusOK, embed.LinksFragment(v))
	}
	// The referral-link box and the Quickstart card reload with the change.
	c.Set(render.HeaderTrigger, embed.EventLinksChanged)
	if id == "" {
		v.Created = saved.Copy
	}
	return render.Component(c, http.StatusOK, embed.LinksFragment(v))
}
