-- +goose Up
-- Links, domains, tags and folders (spec/links.md §2, §6-8). Every table is
-- workspace-scoped; link keys are unique per domain case-insensitively.

CREATE TABLE domains (
    id                          TEXT PRIMARY KEY,
    workspace_id                TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    slug                        TEXT NOT NULL,
    verified                    BOOLEAN NOT NULL DEFAULT FALSE,
    is_primary                  BOOLEAN NOT NULL DEFAULT FALSE,
    archived                    BOOLEAN NOT NULL DEFAULT FALSE,
    placeholder                 TEXT,
    expired_url                 TEXT,
    not_found_url               TEXT,
    logo                        TEXT,
    asset_links                 TEXT,
    apple_app_site_association  TEXT,
    created_at                  TIMESTAMPTZ NOT NULL,
    updated_at                  TIMESTAMPTZ NOT NULL
);
-- Slugs are stored lower-case; a domain belongs to one workspace only.
CREATE UNIQUE INDEX domains_slug_key ON domains (slug);
CREATE INDEX domains_workspace_idx ON domains (workspace_id, created_at);

CREATE TABLE folders (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    description   TEXT,
    type          TEXT NOT NULL DEFAULT 'default',
    access_level  TEXT DEFAULT 'write',
    user_id       TEXT,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX folders_workspace_name_key ON folders (workspace_id, name);

CREATE TABLE tags (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    color         TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX tags_workspace_name_key ON tags (workspace_id, lower(name));

CREATE TABLE links (
    id                 TEXT PRIMARY KEY,
    workspace_id       TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    domain             TEXT NOT NULL,
    key                TEXT NOT NULL,
    url                TEXT NOT NULL DEFAULT '',
    track_conversion   BOOLEAN NOT NULL DEFAULT FALSE,
    external_id        TEXT,
    tenant_id          TEXT,
    program_id         TEXT,
    partner_id         TEXT,
    archived           BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at         TIMESTAMPTZ,
    expired_url        TEXT,
    disabled_at        TIMESTAMPTZ,
    password           TEXT,
    proxy              BOOLEAN NOT NULL DEFAULT FALSE,
    title              TEXT,
    description        TEXT,
    image              TEXT,
    video              TEXT,
    rewrite            BOOLEAN NOT NULL DEFAULT FALSE,
    do_index           BOOLEAN NOT NULL DEFAULT FALSE,
    ios                TEXT,
    android            TEXT,
    geo                TEXT,            -- JSON object {"US":"https://…"}
    public_stats       BOOLEAN NOT NULL DEFAULT FALSE,
    folder_id          TEXT REFERENCES folders (id) ON DELETE SET NULL,
    comments           TEXT,
    utm_source         TEXT,
    utm_medium         TEXT,
    utm_campaign       TEXT,
    utm_term           TEXT,
    utm_content        TEXT,
    test_variants      TEXT,            -- JSON array [{"url","percentage"}]
    test_started_at    TIMESTAMPTZ,
    test_completed_at  TIMESTAMPTZ,
    user_id            TEXT,
    -- Counters: plain columns the click and conversion pipelines increment.
    clicks             BIGINT NOT NULL DEFAULT 0,
    leads              BIGINT NOT NULL DEFAULT 0,
    conversions        BIGINT NOT NULL DEFAULT 0,
    sales              BIGINT NOT NULL DEFAULT 0,
    sale_amount        BIGINT NOT NULL DEFAULT 0,
    last_clicked       TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
-- Keys are case-insensitive per domain (the redirect looks up lower(key)).
CREATE UNIQUE INDEX links_domain_key_key ON links (domain, lower(key));
CREATE UNIQUE INDEX links_workspace_external_id_key ON links (workspace_id, lower(external_id)) WHERE external_id IS NOT NULL;
CREATE INDEX links_workspace_created_idx ON links (workspace_id, created_at);
CREATE INDEX links_workspace_url_idx ON links (workspace_id, url);
CREATE INDEX links_folder_idx ON links (folder_id);
CREATE INDEX links_workspace_tenant_idx ON links (workspace_id, tenant_id);

CREATE TABLE link_tags (
    link_id     TEXT NOT NULL REFERENCES links (id) ON DELETE CASCADE,
    tag_id      TEXT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (link_id, tag_id)
);
CREATE INDEX link_tags_tag_idx ON link_tags (tag_id);

-- +goose Down
DROP TABLE link_tags;
DROP TABLE links;
DROP TABLE tags;
DROP TABLE folders;
DROP TABLE domains;
