package handlers

import (
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/logline"
	"github.com/relinkhq/relink/models"
)

// logRequests assigns the request id and writes one line per request.
func (s *Server) logRequests(c *fiber.Ctx) error {
	start := time.Now()
	id := ids.Fast(16) // a log correlation id, not a secret
	request.SetRequestID(c, id)
	c.Set("X-Request-Id", id)
	method, path := c.Method(), string(c.Request().URI().Path())
	err := c.Next()
	if err != nil {
		// The dispatcher never returns errors; this is the root's own.
		if herr := s.handleError(c, err); herr != nil {
			s.log.Error("error handler failed", "request_id", id, "err", herr)
		}
	}
	status := c.Response().StatusCode()
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	ctx := c.UserContext()
	if !s.log.Enabled(ctx, level) { // RELINK_LOG_LEVEL above info: skip building the line
		return nil
	}
	now := time.Now()
	line := logline.Request{ID: id, Method: method, Host: request.Host(c), Path: path, Face: string(request.FaceOf(c)),
		Status: status, Took: now.Sub(start), IP: s.ClientIP(c)}
	if h, ok := s.log.Handler().(*logline.Handler); ok { // relink serve's handler: the line without slog's per-record work
		_ = h.Request(ctx, level, now, &line)
		return nil
	}
	s.log.LogAttrs(ctx, level, logline.Msg, line.Attrs()...)
	return nil
}

// ClientIP is the caller's address: X-Forwarded-For's first entry when the
// connection comes from a trusted proxy, else the peer address.
// It is worked out once per request: the redirect and the request line
// both ask.
func (s *Server) ClientIP(c *fiber.Ctx) string {
	if ip, ok := c.Context().UserValue(clientIPKey{}).(string); ok {
		return ip
	}
	ip := s.clientIP(c)
	c.Context().SetUserValue(clientIPKey{}, ip)
	return ip
}

// clientIPKey keeps ClientIP's answer in the request's user values.
type clientIPKey struct{}

func (s *Server) clientIP(c *fiber.Ctx) string {
	peer := c.Context().RemoteIP()
	if s.svc.Config.IsTrustedProxy(peer) {
		if xff := c.Get(fiber.HeaderXForwardedFor); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			if ip := net.ParseIP(strings.TrimSpace(first)); ip != nil {
				return ip.String()
			}
		}
	}
	return peer.String()
}

// key authenticates an API request (spec/links.md §1.3, spec/analytics.md §1.1) in the
// spec's gate order: header, key, rate limit, workspace, permission. perm is
// the permission the route needs ("" for none).
func (s *Server) key(perm string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		h := c.Get(fiber.HeaderAuthorization)
		if h == "" {
			return apierr.New(apierr.Unauthorized, "Missing Authorization header.")
		}
		if !strings.HasPrefix(h, "Bearer ") {
			return apierr.New(apierr.BadRequest, "Misconfigured authorization header. Did you forget to add 'Bearer '? Learn more: https://d.to/auth")
		}
		token := strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
		if !strings.HasPrefix(token, "dub_") {
			return apierr.New(apierr.NotFound, "Workspace ID not found. Did you forget to include a `workspaceId` query parameter? It looks like you might be using personal API keys, we also recommend refactoring to workspace API keys: https://d.to/keys")
		}
		k, ws, err := s.svc.DB.APIKeyByToken(c.UserContext(), token)
		if err != nil {
			if apierr.Is(err, apierr.NotFound) {
				return apierr.New(apierr.Unauthorized, "Unauthorized: Invalid API key.")
			}
			return err
		}
		if k.ExpiresAt != nil && !k.ExpiresAt.After(s.svc.Now()) {
			return apierr.New(apierr.Unauthorized, "Unauthorized: Access token expired.")
		}
		s.svc.KeyUse.Touch(k.ID) // in memory; the "api key use" job writes it
		if err := s.rateLimit(c, k.HashedKey, string(ws.Plan)); err != nil {
			return err
		}
		if k.UserID != nil && k.UserRole == nil {
			// The key's user has left the workspace (spec/parity.md §13.2).
			return apierr.New(apierr.NotFound, "Workspace not found.")
		}
		request.SetPrincipal(c, &request.Principal{Workspace: ws, Key: k})
		if perm != "" && !hasPermission(k.Scopes, perm) {
			return apierr.Newf(apierr.Forbidden, "The provided key does not have the required permissions for this endpoint on the workspace '%s'. Having the '%s' permission would allow this request to continue.", ws.PublicID(), perm)
		}
		return c.Next()
	}
}

// publishableKey authenticates the client-side conversion endpoints
// (spec/partners-and-embed.md §1.5) in the spec's gate order: the publishable
// key, its rate limit (600 a minute), the Business plan, and the page's
// host against the workspace's allowed hostnames.
func (s *Server) publishableKey(c *fiber.Ctx) error {
	h := c.Get(fiber.HeaderAuthorization)
	if h == "" {
		return apierr.New(apierr.Unauthorized, "Missing publishable key.")
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	token = strings.TrimSpace(token)
	if !ok || !strings.HasPrefix(token, models.PublishableKeyPrefix) || len(token) > 200 {
		return apierr.New(apierr.BadRequest, "Invalid or missing publishable key.")
	}
	ws, err := s.svc.DB.WorkspaceByPublishableKey(c.UserContext(), token)
	if apierr.Is(err, apierr.NotFound) {
		return apierr.New(apierr.Unauthorized, "Invalid publishable key.")
	} else if err != nil {
		return err
	}
	if err := s.limit(c, "pk:"+token, 600, time.Minute, "Too many requests."); err != nil {
		return err
	}
	if err := ws.RequirePlan(models.PlanBusiness); err != nil {
		return err
	}
	if err := request.CheckPageHost(c, ws); err != nil {
		return err
	}
	request.SetPrincipal(c, &request.Principal{Workspace: ws})
	return c.Next()
}

// rateLimit counts the request against the key and sets the headers on every
// response from here on, errors included.
func (s *Server) rateLimit(c *fiber.Ctx, keyHash, plan string) error {
	path := c.Path()
	analytics := strings.Contains(path, "/analytics") || strings.Contains(path, "/events")
	limit, window := rateLimitFor(plan, analytics)
	if limit == 0 {
		// Free plans have no analytics budget; the plan gate answers with a
		// clear 403 instead of an unexplained 429 (spec/analytics.md §1.1).
		return nil
	}
	bucket := "api:"
	if analytics {
		bucket = "analytics:"
	}
	return s.limit(c, bucket+keyHash, limit, window, "Too many requests.")
}

// hasPermission expands a key's scopes (spec/links.md §1.3): nil means every
// permission; "x.write" grants x.write and x.read; "apis.read" grants every
// read; "apis.all" grants everything.
// webhookPerm follows key("") on the webhook routes. As upstream, the
// "All access" and "Read only" presets (apis.all, apis.read) do not grant
// webhooks.*: a scoped key needs webhooks.read or webhooks.write itself
// (spec/webhooks.md §2.0). Changes also need the key's creator to be an owner.
func (s *Server) webhookPerm(perm string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p := request.PrincipalOf(c)
		denied := apierr.Newf(apierr.Forbidden, "The provided key does not have the required permissions for this endpoint on the workspace '%s'. Having the '%s' permission would allow this request to continue.", p.Workspace.PublicID(), perm)
		if sc := p.Key.Scopes; sc != nil {
			fields := strings.Fields(*sc)
			if !slices.Contains(fields, perm) && !(perm == "webhooks.read" && slices.Contains(fields, "webhooks.write")) {
				return denied
			}
		}
		if perm == "webhooks.write" && p.Key.UserID != nil {
			role, err := s.svc.DB.MemberRole(c.UserContext(), p.Workspace.ID, *p.Key.UserID)
			if err != nil && !models.IsNotFound(err) && !apierr.Is(err, apierr.NotFound) {
				return err
			}
			if err == nil && role != models.RoleOwner {
				return denied
			}
		}
		return c.Next()
	}
}

func hasPermission(scopes *string, perm string) bool {
	if scopes == nil {
		return true
	}
	resource, action, _ := strings.Cut(perm, ".")
	for _, sc := range strings.Fields(*scopes) {
		switch {
		case sc == "apis.all", sc == perm:
			return true
		case sc == "apis.read" && action == "read":
			return true
		case sc == resource+".write" && action == "read":
			return true
		}
	}
	return false
}
