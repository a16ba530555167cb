package handlers

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

// TestPlanMiddleware mounts a route behind s.key and s.plan the way later
// endpoints do (folders on pro, events on business) and checks the 403.
func TestPlanMiddleware(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		cfg, err := config.Load(func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		svc, err := app.Build(context.Background(), cfg, app.Options{DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Close() })
		s := New(svc)
		s.api.Get("/probe/business", s.key(""), s.plan(models.PlanBusiness), func(c *fiber.Ctx) error {
			return c.SendString("ok")
		})
		for _, plan := range models.Plans {
			t.Run(string(plan), func(t *testing.T) {
				c, err := db.CreateWorkspaceWithKey(context.Background(), models.NewWorkspace{Name: "W", Slug: "w-" + string(plan), Plan: plan})
				if err != nil {
					t.Fatal(err)
				}
				req := httptest.NewRequest("GET", "/probe/business", nil)
				req.Host = "localhost:8081"
				req.Header.Set("Authorization", "Bearer "+c.APIKey)
				res, err := s.Root.Test(req, -1)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if plan.AtLeast(models.PlanBusiness) {
					if res.StatusCode != 200 || string(body) != "ok" {
						t.Fatalf("%d %s", res.StatusCode, body)
					}
					return
				}
				var e errorBody
				if err := json.Unmarshal(body, &e); err != nil || res.StatusCode != 403 || e.Error.Code != "forbidden" ||
					e.Error.Message != "Unauthorized: Need higher plan." {
					t.Fatalf("%d %s", res.StatusCode, body)
				}
				// The plan gate runs after the limiter: its headers are set.
				if res.Header.Get("X-RateLimit-Limit") == "" {
					t.Fatal("no rate-limit headers on the plan 403")
				}
			})
		}
	})
}
