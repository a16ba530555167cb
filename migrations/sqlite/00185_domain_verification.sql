-- +goose Up
-- Domain verification (internal/domaincheck): when the domain's DNS was
-- last checked, when it is due again (backoff), the consecutive failed
-- checks, and the last check's status and answer (JSON: the CNAME chain
-- and addresses), which the console shows.
ALTER TABLE domains ADD COLUMN last_checked_at DATETIME;
ALTER TABLE domains ADD COLUMN next_check_at DATETIME;
ALTER TABLE domains ADD COLUMN check_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE domains ADD COLUMN dns_status TEXT;
ALTER TABLE domains ADD COLUMN dns_answer TEXT;
CREATE INDEX domains_next_check_idx ON domains (next_check_at);

-- +goose Down
DROP INDEX domains_next_check_idx;
ALTER TABLE domains DROP COLUMN dns_answer;
ALTER TABLE domains DROP COLUMN dns_status;
ALTER TABLE domains DROP COLUMN check_failures;
ALTER TABLE domains DROP COLUMN next_check_at;
ALTER TABLE domains DROP COLUMN last_checked_at;
