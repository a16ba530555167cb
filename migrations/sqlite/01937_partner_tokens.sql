-- +goose Up
-- Partner API tokens (issue 36 item 5): a partner signed in to the portal
-- makes one to call GET /partner-profile/programs/{programId}/analytics
-- from a script. Stored as the SHA-256 of the token, with the address
-- (lower-cased) it acts for; "revoke" deletes the address's tokens.
CREATE TABLE partner_tokens (
    token_hash TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    created_at DATETIME NOT NULL
);
CREATE INDEX partner_tokens_email_idx ON partner_tokens (email);

-- +goose Down
DROP TABLE partner_tokens;
