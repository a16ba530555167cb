package request

import (
	"context"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// QueryValues reads the raw query string (a repeated key's last value wins
// in analytics.Parse; undecodable pairs are skipped).
func QueryValues(c *fiber.Ctx) url.Values {
	v, _ := url.ParseQuery(string(c.Request().URI().QueryString()))
	return v
}

// FolderReader is the analytics folder check for actor a: folders.read on
// the checked folder (spec/parity.md §13.3). Each face passes its own actor
// (the API key's user, the console's viewer).
func FolderReader(svc *links.Service, a links.Actor) func(context.Context, string) error {
	return func(ctx context.Context, id string) error {
		_, err := svc.FolderAccess(ctx, a, id, models.PermFolderRead)
		return err
	}
}
