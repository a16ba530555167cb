package handlers

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/ingest"
	"github.com/relinkhq/relink/models"
)

// healthz is liveness: the process serves requests. It never touches the
// database, so a database outage does not get healthy instances restarted.
func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok", "face": string(request.FaceOf(c))})
}

// readyz is readiness: the database answers a ping within min(2s,
// RELINK_DB_TIMEOUT). A load balancer takes a 503 instance out of rotation.
func (s *Server) readyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(context.Background(), min(2*time.Second, s.dbTimeout()))
	defer cancel()
	out := fiber.Map{"status": "ok", "database": "ok"}
	var reasons []string
	if err := s.svc.DB.SQL().PingContext(ctx); err != nil {
		s.log.Error("readyz: database unreachable", "err", err)
		out["database"] = "unreachable"
		reasons = append(reasons, "database unreachable")
	}
	if s.readyExtra != nil {
		extra, notReady := s.readyExtra()
		for k, v := range extra {
			out[k] = v
		}
		if notReady != "" {
			// Redirects still answer, but their clicks are refused: a load
			// balancer should send the traffic to an instance that records it.
			reasons = append(reasons, notReady)
		}
	}
	if len(reasons) > 0 {
		out["status"], out["reason"] = "unavailable", strings.Join(reasons, "; ")
		c.Set(fiber.HeaderRetryAfter, "1")
		return c.Status(fiber.StatusServiceUnavailable).JSON(out)
	}
	return c.JSON(out)
}

// journalReason says why the click journal refuses clicks.
func journalReason(state string) string {
	if state == ingest.ReasonJournalMax {
		return "RELINK_CLICK_JOURNAL_MAX reached (the database is behind)"
	}
	return "its disk refuses writes (full, or an I/O error)"
}

// dbTimeout is RELINK_DB_TIMEOUT (its default for a hand-built Config).
func (s *Server) dbTimeout() time.Duration {
	if t := s.svc.Config.DBTimeout; t > 0 {
		return t
	}
	return models.DefaultTimeout
}
