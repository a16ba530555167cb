package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/stripeapp"
	"github.com/relinkhq/relink/models"
)

const stripeUsage = `relink stripe — record sales from a workspace's Stripe account (docs/stripe.md).

  relink stripe connect --workspace W --secret whsec_… [--mode live|test]
        store (or replace) the signing secret of the workspace's Stripe webhook endpoint;
        add the endpoint in Stripe first: its URL and events are printed by "relink stripe status"
  relink stripe disconnect --workspace W [--mode live|test]
        forget the secret: the endpoint's events are refused from then on
  relink stripe settings --workspace W [--free-trials on|off] [--track-quantity on|off]
        free trials (as Dub's Stripe app, off by default): a subscription that starts in trial
        records a "Started Trial" lead; with --track-quantity on, one per seat
  relink stripe status --workspace W
        the endpoint URL, the events to select, the connected secrets (masked), the settings
        and the latest events

W is a workspace slug or ws_ id. --mode defaults to live (Stripe gives test mode its own endpoint
and secret). Every command prints the result as JSON.
`

func stripeCmd(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{stripeUsage}
	}
	fs := newFlags("stripe " + args[0])
	wsFlag := fs.String("workspace", "", "workspace slug or ws_ id")
	secret := fs.String("secret", "", "the endpoint's signing secret (whsec_…)")
	mode := fs.String("mode", models.StripeLive, "live or test")
	trials := fs.String("free-trials", "", "on or off: record a lead when a subscription starts in trial")
	quantity := fs.String("track-quantity", "", "on or off: one trial lead per seat")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error() + "\n\n" + stripeUsage}
	}
	if *wsFlag == "" {
		return usageError{"--workspace is required\n\n" + stripeUsage}
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	var ws *models.Workspace
	if id, ok := strings.CutPrefix(*wsFlag, "ws_"); ok {
		ws, err = db.WorkspaceByID(ctx, id)
	} else {
		ws, err = db.WorkspaceBySlug(ctx, *wsFlag)
	}
	if err != nil {
		return cliErr(err)
	}
	svc := stripeapp.New(db, nil, nil, nil)
	switch args[0] {
	case "connect":
		if *secret == "" {
			return usageError{"--secret is required\n\n" + stripeUsage}
		}
		if err := svc.Connect(ctx, ws.ID, *mode, *secret); err != nil {
			return cliErr(err)
		}
	case "disconnect":
		if err := svc.Disconnect(ctx, ws.ID, *mode); err != nil {
			return cliErr(err)
		}
	case "settings":
		if err := stripeSettings(ctx, svc, ws.ID, cfg.APIURL.String(), *trials, *quantity); err != nil {
			return err
		}
	case "status":
	default:
		return usageError{"unknown stripe command " + args[0] + "\n\n" + stripeUsage}
	}
	st, err := svc.Status(ctx, cfg.APIURL.String(), ws.ID)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// stripeSettings changes the settings named (an empty value keeps one).
func stripeSettings(ctx context.Context, svc *stripeapp.Service, workspaceID, apiURL, trials, quantity string) error {
	st, err := svc.Status(ctx, apiURL, workspaceID)
	if err != nil {
		return err
	}
	ft := st.FreeTrials
	for _, f := range []struct {
		name, val string
		to        *bool
	}{{"--free-trials", trials, &ft.Enabled}, {"--track-quantity", quantity, &ft.TrackQuantity}} {
		switch f.val {
		case "":
		case "on":
			*f.to = true
		case "off":
			*f.to = false
		default:
			return usageError{f.name + ": want on or off\n\n" + stripeUsage}
		}
	}
	return svc.SetFreeTrials(ctx, workspaceID, ft)
}
