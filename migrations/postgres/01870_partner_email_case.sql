-- +goose Up
-- A partner's e-mail is kept as given (Dub does not lower-case it) and
-- matched case-insensitively: one partner per workspace and address,
-- whatever its case.
DROP INDEX partners_workspace_email_key;
CREATE UNIQUE INDEX partners_workspace_email_key ON partners (workspace_id, lower(email));

-- +goose Down
DROP INDEX partners_workspace_email_key;
CREATE UNIQUE INDEX partners_workspace_email_key ON partners (workspace_id, email);
