package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/relinkhq/relink/internal/conversions/convtest"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/testdb"
	"github.com/relinkhq/relink/models"
)

func TestPayoutCommands(t *testing.T) {
	for _, dialect := range testdb.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			dbURL := testdb.URL(t, dialect)
			getenv := func(k string) string {
				if k == "RELINK_DATABASE_URL" {
					return dbURL
				}
				return ""
			}
			relink := func(args ...string) ([]map[string]any, error) {
				var out, errOut bytes.Buffer
				if err := run(context.Background(), args, getenv, &out, &errOut); err != nil {
					return nil, err
				}
				var v []map[string]any
				if err := json.Unmarshal(out.Bytes(), &v); err != nil {
					t.Fatalf("%v: %s", err, out.String())
				}
				return v, nil
			}
			if _, err := relinkRaw(getenv, "workspace", "create", "--name", "Acme", "--slug", "acme", "--plan", "business"); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			db, err := models.Open(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ws, _ := db.WorkspaceBySlug(ctx, "acme")
			svc := convtest.New(t, db, nil)
			ep, err := svc.EnrollPartner(ctx, ws, conversions.EnrollInput{Email: "pat@example.com"})
			if err != nil {
				t.Fatal(err)
			}
			for _, amount := range []int64{1200, -200} {
				d := "x"
				if _, err := svc.CreateManualCommission(ctx, ws, conversions.ManualCommissionInput{Type: "custom", PartnerID: ep.Partner.ID, Amount: amount, Description: &d}); err != nil {
					t.Fatal(err)
				}
			}
			list, err := relink("program", "payouts", "list", "--workspace", "acme")
			if err != nil || len(list) != 1 || list[0]["amount"].(float64) != 1000 || list[0]["status"] != "pending" {
				t.Fatalf("list %v %v", list, err)
			}
			id := list[0]["id"].(string)
			if _, err := relink("program", "payouts", "pay", "--workspace", "acme", "--payout", id); err == nil || !strings.Contains(err.Error(), "only confirmed (processing) payouts") {
				t.Errorf("paying an unconfirmed payout: %v", err)
			}
			got, err := relink("program", "payouts", "confirm", "--workspace", "acme")
			if err != nil || len(got) != 1 || got[0]["status"] != "processing" || !strings.HasPrefix(got[0]["invoiceId"].(string), "pob_") {
				t.Fatalf("confirm %v %v", got, err)
			}
			if _, err := relink("program", "payouts", "confirm", "--workspace", "acme"); err == nil || !strings.Contains(err.Error(), "no payouts ready") {
				t.Errorf("second confirm: %v", err)
			}
			got, err = relink("program", "payouts", "pay", "--workspace", "acme", "--payout", id)
			if err != nil || got[0]["status"] != "completed" || got[0]["paidAt"] == nil {
				t.Fatalf("pay %v %v", got, err)
			}
			prog, _ := db.DefaultProgram(ctx, ws.ID)
			cs, _ := db.ListCommissions(ctx, ws.ID, prog.ID, models.CommissionQuery{Limit: 10})
			for _, c := range cs {
				if c.Status != models.CommissionPaid || c.PaidAt == nil {
					t.Errorf("commission %s is %s after the payout was paid", c.ID, c.Status)
				}
			}
			if _, err := relink("program", "payouts", "fail", "--workspace", "acme", "--payout", id); err == nil || !strings.Contains(err.Error(), "--reason is required") {
				t.Errorf("fail without reason: %v", err)
			}
			if _, err := relink("program", "payouts", "pay", "--workspace", "acme"); err == nil || !strings.Contains(err.Error(), "--payout is required") {
				t.Errorf("pay without payout: %v", err)
			}

		})
	}
}

func relinkRaw(getenv func(string) string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, getenv, &out, &errOut)
	return out.String(), err
}
