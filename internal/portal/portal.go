// Package portal signs partners in to the partner portal (issue 36, docs/portal.md):
// one-time links sent by e-mail (single use, 15 minutes), server-side
// sessions that sign-out revokes, and the partner's mails when an
// application is approved (with a sign-in link) or rejected. A partner is an
// address: the portal shows every enrollment of it on the instance.
package portal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/mail"
	"github.com/relinkhq/relink/models"
)

// LinkTTL is how long a sign-in link works.
const LinkTTL = 15 * time.Minute

// Path is the portal's root on the app origin; a sign-in link is
// Path + "/login/" + token.
const Path = "/partners"

// Service issues sign-in links and resolves portal sessions.
type Service struct {
	DB     *models.DB
	Mailer mail.Mailer
	AppURL string // the app origin, without a trailing slash
	Now    func() time.Time
	Log    *slog.Logger
	// Sessions decodes the portal's cookie (the console's keys).
	Sessions *auth.SessionCodec
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// hash is what the database keeps of a token.
func hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newLink stores a fresh sign-in link for email and returns its URL.
func (s *Service) newLink(ctx context.Context, email string) (string, error) {
	token := auth.NewToken()
	now := s.now()
	if err := s.DB.CreatePartnerLoginToken(ctx, hash(token), email, now, now.Add(LinkTTL)); err != nil {
		return "", err
	}
	return s.AppURL + Path + "/login/" + token, nil
}

// SendLink mails a sign-in link to email when a partner with that address is
// enrolled anywhere on the instance, and does nothing otherwise: the caller
// answers the same either way (no enumeration), and runs this off the
// request so the answer takes the same time too.
func (s *Service) SendLink(ctx context.Context, email string) error {
	email = strings.TrimSpace(email)
	ok, err := s.DB.HasEnrollments(ctx, email)
	if err != nil || !ok {
		return err
	}
	link, err := s.newLink(ctx, email)
	if err != nil {
		return err
	}
	msg := mail.Message{To: []string{email}, Subject: "Your sign-in link",
		Text: "Sign in to your partner dashboard:\n\n" + link + "\n\n" +
			"The link works once and expires in 15 minutes. If you did not ask for it, ignore this e-mail.\n"}
	if err := s.Mailer.Send(ctx, msg); err != nil {
		return fmt.Errorf("portal: send sign-in link: %w", err)
	}
	return nil
}

// Usable reports whether a sign-in link can still sign in (the confirmation
// page shows the button only then).
func (s *Service) Usable(ctx context.Context, token string) (bool, error) {
	if token == "" {
		return false, nil
	}
	return s.DB.PartnerLoginTokenUsable(ctx, hash(token), s.now())
}

// SignIn uses a sign-in link: it starts a session for its address. ok is
// false for a link that is unknown, used or expired.
func (s *Service) SignIn(ctx context.Context, token string) (sessionID string, ok bool, err error) {
	if token == "" {
		return "", false, nil
	}
	email, ok, err := s.DB.UsePartnerLoginToken(ctx, hash(token), s.now())
	if err != nil || !ok {
		return "", false, err
	}
	id, err := s.DB.CreatePartnerSession(ctx, email, s.now())
	if err != nil {
		return "", false, err
	}
	return id, true, nil
}

// ApplicationApproved tells the partner their application to the program
// was approved, with a sign-in link to the portal.
func (s *Service) ApplicationApproved(ctx context.Context, prog *models.Program, p *models.Partner) error {
	link, err := s.newLink(ctx, p.Email)
	if err != nil {
		return err
	}
	msg := mail.Message{To: []string{p.Email}, Subject: "Your application to " + prog.Name + " was approved",
		Text: "Hi " + p.Name + ",\n\n" + prog.Name + " approved your application: you are now a partner of the program.\n\n" +
			"Sign in to your partner dashboard to get your referral link and follow your earnings:\n\n" + link + "\n\n" +
			"The link works once and expires in 15 minutes; for a new one, enter your e-mail on " + s.AppURL + Path + " .\n"}
	if err := s.Mailer.Send(ctx, msg); err != nil {
		return fmt.Errorf("portal: send approval: %w", err)
	}
	return nil
}

// ApplicationRejected tells the partner their application was not accepted.
func (s *Service) ApplicationRejected(ctx context.Context, prog *models.Program, p *models.Partner) error {
	msg := mail.Message{To: []string{p.Email}, Subject: "Your application to " + prog.Name,
		Text: "Hi " + p.Name + ",\n\nThank you for applying to " + prog.Name +
			". After reviewing your application, the program decided not to accept it at this time.\n"}
	if err := s.Mailer.Send(ctx, msg); err != nil {
		return fmt.Errorf("portal: send rejection: %w", err)
	}
	return nil
}

// CookieName is the portal's session cookie. It is set twice with the same
// value: for the portal's pages (Path) and for the partner-profile API on
// the app origin (APICookiePath), so neither the console nor the embed
// ever receives it.
const CookieName = "relink_partner"

// APICookiePath is where the browser sends the session cookie to the API
// (GET /api/partner-profile/… on the app origin).
const APICookiePath = "/api/partner-profile"

// TokenPrefix starts every partner API token.
const TokenPrefix = "rlp_"

// CreateToken makes an API token for email; the token is shown once.
func (s *Service) CreateToken(ctx context.Context, email string) (string, error) {
	token := TokenPrefix + auth.NewToken()
	if err := s.DB.CreatePartnerToken(ctx, hash(token), email, s.now()); err != nil {
		return "", err
	}
	return token, nil
}

// Caller is the address a partner-profile request acts for: a bearer
// partner token, else the portal's session cookie (a live session). ""
// when neither is there or valid.
func (s *Service) Caller(ctx context.Context, cookie, bearer string) (string, error) {
	if strings.HasPrefix(bearer, TokenPrefix) {
		email, ok, err := s.DB.PartnerTokenEmail(ctx, hash(bearer))
		if err != nil || !ok {
			return "", err
		}
		return email, nil
	}
	if s.Sessions == nil || cookie == "" {
		return "", nil
	}
	sess, err := s.Sessions.Decode(CookieName, cookie, s.now())
	if err != nil {
		return "", nil // not a (current) portal cookie: signed out
	}
	email, ok, err := s.DB.PartnerSessionEmail(ctx, sess.SessionID)
	if err != nil || !ok {
		return "", err
	}
	return email, nil
}

// SignOut ends a portal session on the server.
func (s *Service) SignOut(ctx context.Context, sessionID string) error {
	return s.DB.RevokePartnerSession(ctx, sessionID)
}

// RevokeTokens deletes every API token of an address.
func (s *Service) RevokeTokens(ctx context.Context, email string) error {
	return s.DB.RevokePartnerTokens(ctx, email)
}
