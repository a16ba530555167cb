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
