package request

import (
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// CheckPageHost is the allowed-hostnames gate of the public tracking
// endpoints (§1.4, §1.5): 403 when the request's page (Referer, else
// Origin) is not on the workspace's list.
func CheckPageHost(c *fiber.Ctx, ws *models.Workspace) error {
	page := string(c.Request().Header.Referer())
	if page == "" {
		page = string(c.Request().Header.Peek(fiber.HeaderOrigin))
	}
	host := ""
	if u, err := url.Parse(page); err == nil {
		host = strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	}
	if ws.AllowsHost(host) {
		return nil
	}
	return apierr.Newf(apierr.Forbidden, "Request origin '%s' is not included in the allowed hostnames for this workspace. Update your allowed hostnames in the workspace settings.", host)
}
