package console

import (
	"github.com/a-h/templ"

	"github.com/relinkhq/relink/handlers/console/route"
)

// href is the path of the console route n (handlers/console/route) with its
// parameters, for an href or action attribute.
func href(n route.Name, params ...string) templ.SafeURL {
	return templ.SafeURL(route.URL(n, params...))
}
