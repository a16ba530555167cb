package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/domaincheck"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/internal/qr"
	"github.com/relinkhq/relink/models"
	vc "github.com/relinkhq/relink/views/console"
)

// CreateDomain adds a domain (POST /domains' rules).
func (h *Handlers) CreateDomain(c *fiber.Ctx) error {
	raw, typed := jsonBody(c, "slug", "expiredUrl")
	in, err := links.ParseDomainInput(raw, true)
	if err == nil {
		_, err = h.Deps.Links.CreateDomain(c.UserContext(), viewer(c).Workspace, in)
	}
	return h.libraryResult(c, "domains", err, typed, "slug")
}

// domainDNS is a domain's verification as the domains page shows it: the
// last check's records and answer (no DNS is asked to draw the page).
func (h *Handlers) domainDNS(d *models.Domain) *vc.DomainDNS {
	r := h.DomainChecks.Last(d)
	out := &vc.DomainDNS{Verified: d.Verified, Status: r.Status}
	for _, rec := range r.Expected {
		out.Records = append(out.Records, vc.DNSRecord{Type: rec.Type, Name: rec.Name, Value: rec.Value})
	}
	if d.LastCheckedAt != nil {
		out.LastChecked = d.LastCheckedAt.UTC().Format("2006-01-02 15:04 UTC")
		out.Current = describeAnswer(r.Answer)
	}
	return out
}

// describeAnswer puts a DNS answer in words.
func describeAnswer(a domaincheck.Answer) string {
	var parts []string
	if len(a.CNAME) > 0 {
		parts = append(parts, "CNAME "+strings.Join(a.CNAME, " → "))
	}
	if len(a.Addresses) > 0 {
		parts = append(parts, "addresses "+strings.Join(a.Addresses, ", "))
	}
	if a.Error != "" {
		parts = append(parts, a.Error)
	}
	if len(parts) == 0 {
		return "no CNAME, A or AAAA record"
	}
	return strings.Join(parts, "; ")
}

// VerifyDomain checks a domain's DNS now (GET /domains/{slug}/verify's
// check) and shows the domains page again.
func (h *Handlers) VerifyDomain(c *fiber.Ctx) error {
	d, err := h.Deps.Links.DomainBySlug(c.UserContext(), viewer(c).Workspace, c.Params("id"))
	if err == nil {
		_, err = h.DomainChecks.Verify(c.UserContext(), d)
	}
	return h.libraryResult(c, "domains", err, nil, "")
}

// DeleteDomain deletes a domain and its links.
func (h *Handlers) DeleteDomain(c *fiber.Ctx) error {
	_, err := h.Deps.Links.DeleteDomain(c.UserContext(), viewer(c).Workspace, c.Params("id"))
	if err != nil {
		return err
	}
	return redirect(c, route.URL(route.Domains))
}

// maxConsoleLogo bounds an uploaded domain logo: it is stored in the domain
// row as a data: URL and must fit under the request body limit.
const maxConsoleLogo = 512 << 10

// SetDomainLogo stores an uploaded image as the domain's logo (drawn on its
// links' QR codes; PATCH /domains' rules, so the free plan is refused).
func (h *Handlers) SetDomainLogo(c *fiber.Ctx) error {
	// Messages go to the page's alert: they carry no "code: field: " prefix.
	notSaved := func(why string) error {
		return apierr.New(apierr.Unprocessable, "Logo not saved — "+why+".")
	}
	err := func() error {
		fh, err := c.FormFile("logo")
		if err != nil {
			return notSaved("choose an image file to upload")
		}
		if fh.Size > maxConsoleLogo {
			return notSaved(fmt.Sprintf("the file is %d KB and logos are at most %d KB", fh.Size>>10, maxConsoleLogo>>10))
		}
		f, err := fh.Open()
		if err != nil {
			return fmt.Errorf("open uploaded logo: %w", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxConsoleLogo+1))
		if err != nil {
			return fmt.Errorf("read uploaded logo: %w", err)
		}
		dataURL, err := qr.LogoDataURL(b)
		if le := (*qr.LogoError)(nil); errors.As(err, &le) {
			return notSaved(le.Reason)
		} else if err != nil {
			return err
		}
		return h.patchDomain(c, c.Params("id"), dataURL)
	}()
	return h.libraryResult(c, "domains", err, nil, "")
}

// RemoveDomainLogo deletes the domain's logo.
func (h *Handlers) RemoveDomainLogo(c *fiber.Ctx) error {
	return h.libraryResult(c, "domains", h.patchDomain(c, c.Params("id"), nil), nil, "")
}

// patchDomain sets (or, with nil, deletes) the domain's logo, keeping its
// archived state (a PATCH without archived would unarchive it).
func (h *Handlers) patchDomain(c *fiber.Ctx, slug string, logo any) error {
	ws := viewer(c).Workspace
	d, err := h.Deps.Links.DomainBySlug(c.UserContext(), ws, slug)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(map[string]any{"logo": logo, "archived": d.Archived})
	in, err := links.ParseDomainInput(raw, false)
	if err != nil {
		return err
	}
	_, err = h.Deps.Links.UpdateDomain(c.UserContext(), ws, slug, in)
	return err
}
