package domaincheck

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/relinkhq/relink/models"
)

// The job's schedule: due domains are looked for every Period; an
// unverified domain is re-checked after BaseBackoff, doubling with each
// failed check up to MaxBackoff; a verified one every Recheck.
const (
	Period      = 30 * time.Second
	BaseBackoff = time.Minute
	MaxBackoff  = 6 * time.Hour
	Recheck     = 24 * time.Hour
	batch       = 50
	lease       = 2 * time.Minute // a claimed check's hold on the domain
)

// Service runs the checks and keeps their outcome on the domain rows.
type Service struct {
	DB      *models.DB
	Checker *Checker
	Now     func() time.Time
	Log     *slog.Logger
}

// Run is one round of the job: every due domain (claimed, so several
// instances do not check the same one) is checked and its outcome saved.
func (s *Service) Run(ctx context.Context) error {
	now := s.Now()
	due, err := s.DB.DomainsDue(ctx, now, batch)
	if err != nil {
		return err
	}
	for i := range due {
		d := &due[i]
		ok, err := s.DB.ClaimDomainCheck(ctx, d, now, now.Add(lease))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if _, err := s.Verify(ctx, d); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return nil
}

// Verify checks d now (the job, the API's verify route and the console's
// button), updates it and saves the outcome.
func (s *Service) Verify(ctx context.Context, d *models.Domain) (Result, error) {
	r := s.Checker.Check(ctx, d.Slug)
	was := d.Verified
	Apply(d, r, s.Now())
	if err := s.DB.SaveDomainCheck(ctx, d); err != nil {
		return r, err
	}
	if was != d.Verified {
		s.Log.Info("domain verification changed", "domain", d.Slug, "verified", d.Verified, "status", r.Status)
	}
	return r, nil
}

// Apply records a check's outcome on d: a definite answer sets verified;
// the next check is a day away for a verified domain, else after the
// backoff of its consecutive failures. An indefinite one (the DNS did not
// answer) keeps verified and backs off too.
func Apply(d *models.Domain, r Result, now time.Time) {
	if r.Definite {
		d.Verified = r.Verified
	}
	next := now.Add(Recheck)
	if r.Definite && r.Verified {
		d.CheckFailures = 0
	} else {
		d.CheckFailures++
		next = now.Add(Backoff(d.CheckFailures))
	}
	status := r.Status
	b, _ := json.Marshal(r)
	answer := string(b)
	d.LastCheckedAt, d.NextCheckAt, d.DNSStatus, d.DNSAnswer = &now, &next, &status, &answer
}

// Backoff is the wait after n consecutive failed checks (n ≥ 1).
func Backoff(n int) time.Duration {
	d := BaseBackoff
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// Last is d's last check as stored, or, for a domain not checked yet, the
// records to create (from the configured addresses; no DNS is asked) and
// StatusPending.
func (s *Service) Last(d *models.Domain) Result {
	var r Result
	if d.DNSAnswer != nil && json.Unmarshal([]byte(*d.DNSAnswer), &r) == nil {
		return r
	}
	return Result{Status: StatusPending, Verified: d.Verified, Expected: s.Checker.expected(d.Slug, s.Checker.Addresses),
		Answer: Answer{CNAME: []string{}, Addresses: []string{}}}
}
