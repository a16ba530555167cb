package portal_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/mail"
	"github.com/relinkhq/relink/internal/portal"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

type outbox struct{ sent []mail.Message }

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.sent = append(o.sent, m)
	return nil
}

// TestSignInLinks: a link goes only to an enrolled address (matched
// whatever its case, kept as given), signs in once — of concurrent uses
// exactly one wins — and not after 15 minutes.
func TestSignInLinks(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		c, err := db.CreateWorkspaceWithKey(ctx, models.NewWorkspace{Name: "Acme", Slug: "acme", Plan: models.PlanBusiness})
		if err != nil {
			t.Fatal(err)
		}
		prog, err := db.DefaultProgram(ctx, c.Workspace.ID)
		if err != nil {
			t.Fatal(err)
		}
		p := &models.Partner{ID: ids.New(ids.Partner), WorkspaceID: c.Workspace.ID, Email: "Ann@Example.com", Name: "Ann"}
		if err := db.CreatePartner(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := db.CreateEnrollment(ctx, &models.Enrollment{ID: ids.New(ids.Enrollment), WorkspaceID: c.Workspace.ID, ProgramID: prog.ID,
			PartnerID: p.ID, Status: models.EnrollmentApproved}); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		box := &outbox{}
		s := &portal.Service{DB: db, Mailer: box, AppURL: "https://app.example", Now: func() time.Time { return now }}
		if err := s.SendLink(ctx, "nobody@example.com"); err != nil || len(box.sent) != 0 {
			t.Fatalf("unknown address: %v, %d sent", err, len(box.sent))
		}
		if err := s.SendLink(ctx, "ann@example.COM"); err != nil || len(box.sent) != 1 {
			t.Fatalf("known address: %v, %d sent", err, len(box.sent))
		}
		token := tokenOf(t, box.sent[0].Text)
		if ok, _ := s.Usable(ctx, token); !ok {
			t.Fatal("a fresh link is not usable")
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, ok, err := s.SignIn(ctx, token); err == nil && ok {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Errorf("%d of 4 concurrent uses signed in, want 1", wins)
		}
		// Expiry: 15 minutes.
		if err := s.SendLink(ctx, "ann@example.com"); err != nil {
			t.Fatal(err)
		}
		late := tokenOf(t, box.sent[1].Text)
		now = now.Add(portal.LinkTTL + time.Second)
		if _, ok, err := s.SignIn(ctx, late); err != nil || ok {
			t.Errorf("a link past 15 minutes signed in: %v %v", ok, err)
		}
		id, _ := db.CreatePartnerSession(ctx, "ann@example.com", now)
		if email, ok, _ := db.PartnerSessionEmail(ctx, id); !ok || email != "ann@example.com" {
			t.Errorf("session: %q %v", email, ok)
		}
		if err := db.RevokePartnerSession(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := db.PartnerSessionEmail(ctx, id); ok {
			t.Error("a revoked session is still valid")
		}
	})
}

func tokenOf(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "/partners/login/")
	if i < 0 {
		t.Fatalf("no link in %q", text)
	}
	return strings.Fields(text[i+len("/partners/login/"):])[0]
}
