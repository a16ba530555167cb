-- +goose Up
-- Per-user folder roles (spec/parity.md §13.1): a row overrides the folder's
-- accessLevel for that user; role NULL means access revoked. The folder's
-- creator is its owner (rows for folders made before this migration come
-- from folders.user_id).
CREATE TABLE folder_users (
    folder_id  TEXT NOT NULL REFERENCES folders (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (folder_id, user_id)
);
CREATE INDEX folder_users_user_idx ON folder_users (user_id);
INSERT INTO folder_users (folder_id, user_id, role, created_at, updated_at)
    SELECT f.id, f.user_id, 'owner', f.created_at, f.updated_at FROM folders f
    WHERE f.user_id IS NOT NULL AND EXISTS (SELECT 1 FROM users u WHERE u.id = f.user_id);

-- +goose Down
DROP TABLE folder_users;
