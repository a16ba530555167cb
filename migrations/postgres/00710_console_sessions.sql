-- +goose Up
-- Console sessions on the server (issue 15 item 6): the cookie carries the
-- session id, and a session is valid only while its row exists. Sign-out
-- deletes the row; "sign out everywhere" and a password change delete the
-- user's other rows. Cookies issued before this migration carry no id and
-- are treated as signed out.
CREATE TABLE console_sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX console_sessions_user_idx ON console_sessions (user_id);

-- +goose Down
DROP TABLE console_sessions;
