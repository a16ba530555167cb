package console

import (
	"fmt"
	"reflect"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
)

// Handler is the handler of the route named n (handlers/console/route): the
// method of h with that name. A name without such a method is an error,
// found when the server is built (and by TestConsoleRouteTable).
func (h *Handlers) Handler(n route.Name) (fiber.Handler, error) {
	m := reflect.ValueOf(h).MethodByName(string(n))
	if !m.IsValid() {
		return nil, fmt.Errorf("console route %s: no handler method %s", n, n)
	}
	fn, ok := m.Interface().(func(*fiber.Ctx) error)
	if !ok {
		return nil, fmt.Errorf("console route %s: %s is %s, not a handler", n, n, m.Type())
	}
	return fn, nil
}
