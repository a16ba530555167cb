-- +goose Up
-- The partner portal (issue 36): partners sign in on /partners with a
-- one-time link sent by e-mail. A link is stored as the SHA-256 of its token
-- (the token itself is only in the e-mail), is used once (used_at) and
-- expires 15 minutes after it was made. A portal session is valid while its
-- row exists (sign-out deletes it), as console sessions are. Both carry the
-- address lower-cased: a partner is every enrollment of that address, in
-- every workspace of the instance.
CREATE TABLE partner_login_tokens (
    token_hash TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX partner_login_tokens_expires_idx ON partner_login_tokens (expires_at);
CREATE TABLE partner_sessions (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX partner_sessions_email_idx ON partner_sessions (email);
-- The public application page says "applications are closed" only after
-- they were open: when they closed (nil: never opened, or open now).
ALTER TABLE programs ADD COLUMN applications_closed_at TIMESTAMPTZ;
-- The portal lists an address's enrollments across workspaces.
CREATE INDEX partners_email_lower_idx ON partners (lower(email));

-- +goose Down
ALTER TABLE programs DROP COLUMN applications_closed_at;
DROP INDEX partners_email_lower_idx;
DROP TABLE partner_sessions;
DROP TABLE partner_login_tokens;
