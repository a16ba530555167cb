// Package stripeapp records sales, refunds and cancellations from a
// workspace's own Stripe webhook endpoint, as Dub's Stripe app does
// (docs/stripe.md). Each request is verified with stripe-go's webhook
// package against the workspace's endpoint secrets; each event id is
// handled once; sales go through conversions.Service.TrackSale (the path of
// POST /track/sale), refunds through conversions.Service.RefundSale.
package stripeapp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
)

// Events lists the Stripe events the endpoint uses, as the user selects
// them in Stripe's dashboard. Others answer 200 and are ignored.
var Events = []string{
	"checkout.session.completed", "invoice.paid", "invoice_payment.paid", "charge.refunded",
	"customer.created", "customer.updated", "customer.subscription.created", "customer.subscription.deleted",
}

// Path is the endpoint's path on the API origin, before the workspace id.
const Path = "/stripe/webhook/"

// Tolerance is how old a signature's timestamp may be (Stripe's default).
const Tolerance = webhook.DefaultTolerance

// Result is the endpoint's answer to a verified event.
type Result struct {
	EventType string `json:"eventType"`
	Response  string `json:"response"`
}

// Stats are the endpoint's counters (on /metrics).
type Stats struct {
	Received, Duplicates, Refused int64
}

// Service handles Stripe events.
type Service struct {
	DB   *models.DB
	Conv *conversions.Service
	Now  func() time.Time
	Log  *slog.Logger

	received, duplicates, refused atomic.Int64
}

// New returns a Service.
func New(db *models.DB, conv *conversions.Service, now func() time.Time, log *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Service{DB: db, Conv: conv, Now: now, Log: log}
}

// Stats returns the counters.
func (s *Service) Stats() Stats {
	return Stats{Received: s.received.Load(), Duplicates: s.duplicates.Load(), Refused: s.refused.Load()}
}

// ValidSecret reports whether a value looks like a Stripe endpoint secret.
func ValidSecret(v string) bool {
	return strings.HasPrefix(v, "whsec_") && len(v) > len("whsec_")+8 && !strings.ContainsAny(v, " \t\r\n")
}

// EndpointURL is the URL to add in Stripe for a workspace (its internal id).
func EndpointURL(apiURL, workspaceID string) string {
	return strings.TrimSuffix(apiURL, "/") + Path + "ws_" + workspaceID
}

// Mask shows a secret's prefix and last four characters.
func Mask(secret string) string {
	if len(secret) <= 14 {
		return "whsec_••••"
	}
	return secret[:10] + strings.Repeat("•", 8) + secret[len(secret)-4:]
}

// Status is a workspace's Stripe connection as the console and the CLI
// show it.
type Status struct {
	EndpointURL  string           `json:"endpointUrl"`
	Events       []string         `json:"events"`
	Endpoints    []EndpointStatus `json:"endpoints"`
	FreeTrials   FreeTrials       `json:"freeTrials"`
	RecentEvents []EventStatus    `json:"recentEvents"`
}

// FreeTrials is Dub's freeTrials setting: with Enabled, a subscription that
// starts in trial records a "Started Trial" lead for its customer; with
// TrackQuantity, one per seat (the first item's quantity).
type FreeTrials struct {
	Enabled       bool `json:"enabled"`
	TrackQuantity bool `json:"trackQuantity"`
}

// EndpointStatus is one endpoint, its secret masked.
type EndpointStatus struct {
	Mode        string     `json:"mode"`
	Secret      string     `json:"secret"`
	LastEventAt *time.Time `json:"lastEventAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
}

// EventStatus is one received event.
type EventStatus struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	Mode       string    `json:"mode"`
	Response   string    `json:"response"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// Status reads a workspace's connection and its latest events.
func (s *Service) Status(ctx context.Context, apiURL, workspaceID string) (*Status, error) {
	eps, err := s.DB.StripeEndpoints(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	evs, err := s.DB.RecentStripeEvents(ctx, workspaceID, 20)
	if err != nil {
		return nil, err
	}
	set, err := s.DB.StripeSettingsOf(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	st := &Status{EndpointURL: EndpointURL(apiURL, workspaceID), Events: Events, Endpoints: []EndpointStatus{}, RecentEvents: []EventStatus{},
		FreeTrials: FreeTrials{Enabled: set.FreeTrials, TrackQuantity: set.TrialQuantity}}
	for _, e := range eps {
		st.Endpoints = append(st.Endpoints, EndpointStatus{Mode: e.Mode, Secret: Mask(e.Secret), LastEventAt: e.LastEventAt, UpdatedAt: e.UpdatedAt})
	}
	for _, e := range evs {
		st.RecentEvents = append(st.RecentEvents, EventStatus{ID: e.EventID, Type: e.Type, Mode: mode(e.Livemode), Response: e.Result, ReceivedAt: e.ReceivedAt})
	}
	return st, nil
}

// Disconnect removes a mode's endpoint secret: its events are refused.
func (s *Service) Disconnect(ctx context.Context, workspaceID, mode string) error {
	ok, err := s.DB.DeleteStripeEndpoint(ctx, workspaceID, mode)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.Newf(apierr.NotFound, "No %s Stripe endpoint is connected.", mode)
	}
	return nil
}

// SetFreeTrials stores the free-trial setting (the console's Stripe page
// and `relink stripe settings`).
func (s *Service) SetFreeTrials(ctx context.Context, workspaceID string, ft FreeTrials) error {
	return s.DB.SetStripeSettings(ctx, models.StripeSettings{WorkspaceID: workspaceID, FreeTrials: ft.Enabled,
		TrialQuantity: ft.TrackQuantity, UpdatedAt: s.Now().UTC()})
}

// Connect stores (or replaces) a workspace's endpoint secret for a mode.
func (s *Service) Connect(ctx context.Context, workspaceID, mode, secret string) error {
	secret = strings.TrimSpace(secret)
	if mode != models.StripeLive && mode != models.StripeTest {
		return apierr.New(apierr.BadRequest, "The mode must be live or test.")
	}
	if !ValidSecret(secret) {
		return apierr.New(apierr.BadRequest, "The signing secret must be the endpoint's whsec_… value from Stripe.")
	}
	return s.DB.SetStripeEndpoint(ctx, workspaceID, mode, secret, s.Now().UTC())
}

// refuse counts and logs a refused request and returns its 4xx.
func (s *Service) refuse(workspaceID string, err *apierr.Error) error {
	s.refused.Add(1)
	s.Log.Warn("stripe webhook refused", "workspace_id", workspaceID, "reason", err.Message)
	return err
}

// verify finds the workspace's endpoint whose secret signed the payload.
func (s *Service) verify(ctx context.Context, workspaceID string, payload []byte, header string) (*models.Workspace, *models.StripeEndpoint, stripe.Event, error) {
	var ev stripe.Event
	notConnected := apierr.New(apierr.BadRequest, "Stripe is not connected to this workspace.")
	id, ok := strings.CutPrefix(workspaceID, "ws_")
	if !ok {
		return nil, nil, ev, s.refuse(workspaceID, notConnected)
	}
	ws, err := s.DB.WorkspaceByID(ctx, id)
	if models.IsNotFound(err) {
		return nil, nil, ev, s.refuse(workspaceID, notConnected)
	}
	if err != nil {
		return nil, nil, ev, err
	}
	eps, err := s.DB.StripeEndpoints(ctx, ws.ID)
	if err != nil {
		return nil, nil, ev, err
	}
	if len(eps) == 0 {
		return nil, nil, ev, s.refuse(workspaceID, notConnected)
	}
	if header == "" {
		return nil, nil, ev, s.refuse(workspaceID, apierr.New(apierr.BadRequest, "Missing Stripe-Signature header."))
	}
	var last error
	for i := range eps {
		ev, last = webhook.ConstructEventWithOptions(payload, header, eps[i].Secret,
			webhook.ConstructEventOptions{Tolerance: Tolerance, IgnoreAPIVersionMismatch: true})
		if last == nil {
			return ws, &eps[i], ev, nil
		}
	}
	msg := "Webhook Error: " + last.Error()
	switch {
	case errors.Is(last, webhook.ErrTooOld):
		msg = "Webhook Error: the signature's timestamp is more than 5 minutes old."
	case errors.Is(last, webhook.ErrNoValidSignature), errors.Is(last, webhook.ErrInvalidHeader):
		msg = "Webhook Error: no signature matches the endpoint's signing secret."
	}
	return nil, nil, ev, s.refuse(workspaceID, apierr.New(apierr.BadRequest, msg))
}

// Receive verifies and handles one delivery to workspaceID's endpoint. A
// 4xx error is a refusal (nothing recorded); another error is a failure
// Stripe retries.
func (s *Service) Receive(ctx context.Context, workspaceID string, payload []byte, header string) (*Result, error) {
	ws, ep, ev, err := s.verify(ctx, workspaceID, payload, header)
	if err != nil {
		return nil, err
	}
	if err := ws.RequirePlan(models.PlanBusiness); err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return nil, s.refuse(ws.ID, ae)
		}
		return nil, err
	}
	s.received.Add(1)
	now := s.Now().UTC()
	if err := s.DB.TouchStripeEndpoint(ctx, ws.ID, ep.Mode, now); err != nil {
		return nil, err
	}
	res := &Result{EventType: string(ev.Type)}
	if !handled(string(ev.Type)) {
		res.Response = "Unsupported event, skipping..."
		return res, nil
	}
	claimed, err := s.DB.ClaimStripeEvent(ctx, &models.StripeEvent{WorkspaceID: ws.ID, EventID: ev.ID,
		Type: string(ev.Type), Livemode: ev.Livemode, ReceivedAt: now})
	if err != nil {
		return nil, err
	}
	if !claimed {
		s.duplicates.Add(1)
		res.Response = fmt.Sprintf("Event %s already received, skipping...", ev.ID)
		return res, nil
	}
	res.Response, err = s.dispatch(ctx, ws, ev)
	if err != nil {
		// Forget the event so that Stripe's retry handles it again.
		if rerr := s.DB.ReleaseStripeEvent(context.WithoutCancel(ctx), ws.ID, ev.ID); rerr != nil {
			s.Log.Error("release stripe event", "event_id", ev.ID, "err", rerr)
		}
		return nil, fmt.Errorf("stripe event %s (%s): %w", ev.ID, ev.Type, err)
	}
	s.Log.Info("stripe event", "workspace_id", ws.ID, "event_id", ev.ID, "type", ev.Type, "livemode", ev.Livemode, "response", res.Response)
	return res, s.DB.SetStripeEventResult(ctx, ws.ID, ev.ID, res.Response)
}

func handled(t string) bool {
	for _, e := range Events {
		if e == t {
			return true
		}
	}
	return false
}

// dispatch runs the event's handler.
func (s *Service) dispatch(ctx context.Context, ws *models.Workspace, ev stripe.Event) (string, error) {
	e := event{ws: ws, id: ev.ID, mode: mode(ev.Livemode), raw: ev.Data.Raw}
	switch ev.Type {
	case "checkout.session.completed":
		return s.checkoutSessionCompleted(ctx, e)
	case "invoice.paid":
		return s.invoicePaid(ctx, e)
	case "invoice_payment.paid":
		return s.invoicePaymentPaid(ctx, e)
	case "charge.refunded":
		return s.chargeRefunded(ctx, e)
	case "customer.created", "customer.updated":
		return s.syncCustomer(ctx, e)
	case "customer.subscription.created":
		return s.subscriptionCreated(ctx, e)
	case "customer.subscription.deleted":
		return s.subscriptionDeleted(ctx, e)
	}
	return "Unsupported event, skipping...", nil
}

func mode(live bool) string {
	if live {
		return models.StripeLive
	}
	return models.StripeTest
}
