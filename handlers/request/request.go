// Package request is what every face shares about a request: typed
// accessors for request-scoped values (stored on the fasthttp context so
// they survive the hand-off from the host dispatcher to the face that serves
// the request), JSON binding (BindJSON), time windows and timestamps
// (ParseWindow, ParseTime, Timestamp) and the page-host gate of the public
// tracking endpoints (CheckPageHost). Faces import this package, never one
// another.
package request

import (
	"net"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/models"
)

type key int

const (
	keyRequestID key = iota
	keyFace
	keyPrincipal
	keyOrigPath
)

// Face is which of the four faces serves a request.
type Face string

// Faces.
const (
	FaceAPI   Face = "api"
	FaceApp   Face = "app"   // console, embed, /api, default short domain in dev
	FaceShort Face = "short" // a registered short domain
)

// Principal is who an API request acts as.
type Principal struct {
	Workspace *models.Workspace
	Key       *models.APIKey
}

// SetRequestID stores the request id.
func SetRequestID(c *fiber.Ctx, id string) { c.Context().SetUserValue(keyRequestID, id) }

// RequestID returns the request id ("" if none).
func RequestID(c *fiber.Ctx) string {
	s, _ := c.Context().UserValue(keyRequestID).(string)
	return s
}

// SetFace records which face serves the request.
func SetFace(c *fiber.Ctx, f Face) { c.Context().SetUserValue(keyFace, f) }

// FaceOf returns the face serving the request ("" before dispatch).
func FaceOf(c *fiber.Ctx) Face {
	f, _ := c.Context().UserValue(keyFace).(Face)
	return f
}

// SetOriginalPath keeps the path as the client sent it (before /api is stripped).
func SetOriginalPath(c *fiber.Ctx, p string) { c.Context().SetUserValue(keyOrigPath, p) }

// OriginalPath is the client's path.
func OriginalPath(c *fiber.Ctx) string {
	if s, ok := c.Context().UserValue(keyOrigPath).(string); ok {
		return s
	}
	return c.Path()
}

// SetPrincipal stores the authenticated principal.
func SetPrincipal(c *fiber.Ctx, p *Principal) { c.Context().SetUserValue(keyPrincipal, p) }

// PrincipalOf returns the authenticated principal or nil.
func PrincipalOf(c *fiber.Ctx) *Principal {
	p, _ := c.Context().UserValue(keyPrincipal).(*Principal)
	return p
}

// Workspace is the authenticated workspace. It panics when called on a route
// without authentication, which is a programming error caught by tests.
func Workspace(c *fiber.Ctx) *models.Workspace {
	p := PrincipalOf(c)
	if p == nil {
		panic("request.Workspace called on an unauthenticated route")
	}
	return p.Workspace
}

// Host is the request's host, lower-cased, with the port kept.
func Host(c *fiber.Ctx) string { return strings.ToLower(string(c.Request().Host())) }

// LocalPort is the port the connection arrived on.
func LocalPort(c *fiber.Ctx) string {
	if a, ok := c.Context().LocalAddr().(*net.TCPAddr); ok {
		return itoa(a.Port)
	}
	_, p, _ := net.SplitHostPort(c.Context().LocalAddr().String())
	return p
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// AvatarPath is where GET /og/avatar/{seed} is served on the API origin
// (handlers/api.Avatar): the image of partners who have none.
const AvatarPath = "/og/avatar/"
