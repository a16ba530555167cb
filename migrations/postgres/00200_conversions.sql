-- +goose Up
-- Conversion tracking and partner programs (spec/partners-and-embed.md §1-5).
-- Every table carries workspace_id; every query filters on it.

-- One program per workspace: the workspace's default program (§3.1).
CREATE TABLE programs (
    id                 TEXT PRIMARY KEY,
    workspace_id       TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    slug               TEXT NOT NULL,
    domain             TEXT,            -- short domain of partner links
    url                TEXT,            -- default destination of partner links
    default_group_id   TEXT,
    default_folder_id  TEXT,
    min_payout_amount  BIGINT NOT NULL DEFAULT 0,
    terms_url          TEXT,
    embed_data         TEXT,            -- JSON, read by the embed dashboard
    created_at         TIMESTAMPTZ NOT NULL,
    updated_at         TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX programs_workspace_key ON programs (workspace_id);

CREATE TABLE partner_groups (
    id                   TEXT PRIMARY KEY,
    workspace_id         TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id           TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    slug                 TEXT NOT NULL,
    click_reward_id      TEXT,
    lead_reward_id       TEXT,
    sale_reward_id       TEXT,
    referral_reward_id   TEXT,
    discount_id          TEXT,
    holding_period_days  INTEGER NOT NULL DEFAULT 0,
    additional_links     TEXT,          -- JSON [{domain, path, validationMode}] or NULL
    max_partner_links    INTEGER NOT NULL DEFAULT 0,
    link_structure       TEXT NOT NULL DEFAULT 'short',
    default_links        TEXT,          -- JSON [{domain, url}], at most 5
    utm_template         TEXT,          -- JSON {utm_source: …}
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX partner_groups_program_slug_key ON partner_groups (program_id, slug);

-- Percentages are stored exactly, in hundredths of a percent (basis points).
CREATE TABLE rewards (
    id                          TEXT PRIMARY KEY,
    workspace_id                TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id                  TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    event                       TEXT NOT NULL,   -- click | lead | sale | referral
    type                        TEXT NOT NULL,   -- flat | percentage
    amount_in_cents             BIGINT,
    amount_in_percentage_bp     INTEGER,
    max_duration                INTEGER,         -- months; NULL = lifetime, 0 = first sale only
    description                 TEXT,
    tooltip_description         TEXT,
    modifiers                   TEXT,            -- JSON condition groups
    spend_limit_amount          BIGINT,
    spend_limit_interval        TEXT,
    created_at                  TIMESTAMPTZ NOT NULL,
    updated_at                  TIMESTAMPTZ NOT NULL
);
CREATE INDEX rewards_program_idx ON rewards (program_id);

-- Partners are scoped to a workspace (Dub keeps one global identity per
-- email; sharing it across tenants would leak one workspace's partner data
-- to another).
CREATE TABLE partners (
    id                     TEXT PRIMARY KEY,
    workspace_id           TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    email                  TEXT NOT NULL,
    name                   TEXT NOT NULL,
    username               TEXT,
    image                  TEXT,
    country                TEXT,
    description            TEXT,
    company_name           TEXT,
    network_status         TEXT NOT NULL DEFAULT 'draft',
    default_payout_method  TEXT,
    paypal_email           TEXT,
    stripe_connect_id      TEXT,
    payouts_enabled_at     TIMESTAMPTZ,
    identity_verified_at   TIMESTAMPTZ,
    created_at             TIMESTAMPTZ NOT NULL,
    updated_at             TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX partners_workspace_email_key ON partners (workspace_id, email);
CREATE UNIQUE INDEX partners_workspace_username_key ON partners (workspace_id, username);

CREATE TABLE program_enrollments (
    id                  TEXT PRIMARY KEY,
    workspace_id        TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id          TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    partner_id          TEXT NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
    tenant_id           TEXT,
    group_id            TEXT,
    status              TEXT NOT NULL,
    click_reward_id     TEXT,
    lead_reward_id      TEXT,
    sale_reward_id      TEXT,
    referral_reward_id  TEXT,
    discount_id         TEXT,
    application_id      TEXT,
    banned_at           TIMESTAMPTZ,
    banned_reason       TEXT,
    total_commissions   BIGINT NOT NULL DEFAULT 0,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX program_enrollments_program_partner_key ON program_enrollments (program_id, partner_id);
CREATE UNIQUE INDEX program_enrollments_program_tenant_key ON program_enrollments (program_id, tenant_id);
CREATE INDEX program_enrollments_program_created_idx ON program_enrollments (program_id, created_at);

-- Partner totals are sums over the partner's links.
CREATE INDEX links_program_partner_idx ON links (program_id, partner_id);

CREATE TABLE customers (
    id                        TEXT PRIMARY KEY,
    workspace_id              TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    external_id               TEXT NOT NULL,
    name                      TEXT,
    email                     TEXT,
    avatar                    TEXT,
    stripe_customer_id        TEXT,
    country                   TEXT,
    click_id                  TEXT,
    link_id                   TEXT,
    clicked_at                TIMESTAMPTZ,
    program_id                TEXT,
    partner_id                TEXT,
    sales                     BIGINT NOT NULL DEFAULT 0,
    sale_amount               BIGINT NOT NULL DEFAULT 0,
    first_sale_at             TIMESTAMPTZ,
    subscription_canceled_at  TIMESTAMPTZ,
    created_at                TIMESTAMPTZ NOT NULL,
    updated_at                TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX customers_workspace_external_id_key ON customers (workspace_id, external_id);
CREATE INDEX customers_workspace_created_idx ON customers (workspace_id, created_at);
CREATE INDEX customers_workspace_email_idx ON customers (workspace_id, email);
CREATE INDEX customers_workspace_link_idx ON customers (workspace_id, link_id);
CREATE INDEX customers_workspace_partner_idx ON customers (workspace_id, partner_id);

-- Lead and sale events copy every attribute of the click they are attributed
-- to, with the clicks table's column names, types and defaults (00150), so
-- analytics groups and filters conversions exactly like clicks (spec/analytics.md
-- §7.1). Like clicks they outlive their link and customer, so they have no
-- foreign keys; workspace_id is the internal id.
CREATE TABLE lead_events (
    event_id          TEXT PRIMARY KEY,     -- 16-char event id
    timestamp         TIMESTAMPTZ NOT NULL,
    workspace_id      TEXT NOT NULL,
    event_name        TEXT NOT NULL,
    customer_id       TEXT NOT NULL,
    metadata          TEXT,
    click_id          TEXT NOT NULL,
    link_id           TEXT NOT NULL,
    domain            TEXT NOT NULL,
    key               TEXT NOT NULL,
    url               TEXT NOT NULL DEFAULT '',
    ip                TEXT NOT NULL DEFAULT '',
    continent         TEXT NOT NULL DEFAULT '',
    country           TEXT NOT NULL DEFAULT 'Unknown',
    region            TEXT NOT NULL DEFAULT 'Unknown',
    city              TEXT NOT NULL DEFAULT 'Unknown',
    latitude          TEXT NOT NULL DEFAULT 'Unknown',
    longitude         TEXT NOT NULL DEFAULT 'Unknown',
    device            TEXT NOT NULL DEFAULT 'Desktop',
    device_vendor     TEXT NOT NULL DEFAULT 'Unknown',
    device_model      TEXT NOT NULL DEFAULT 'Unknown',
    browser           TEXT NOT NULL DEFAULT 'Unknown',
    browser_version   TEXT NOT NULL DEFAULT 'Unknown',
    engine            TEXT NOT NULL DEFAULT 'Unknown',
    engine_version    TEXT NOT NULL DEFAULT 'Unknown',
    os                TEXT NOT NULL DEFAULT 'Unknown',
    os_version        TEXT NOT NULL DEFAULT 'Unknown',
    cpu_architecture  TEXT NOT NULL DEFAULT 'Unknown',
    ua                TEXT NOT NULL DEFAULT 'Unknown',
    bot               BOOLEAN NOT NULL DEFAULT FALSE,
    qr                BOOLEAN NOT NULL DEFAULT FALSE,
    trigger           TEXT NOT NULL DEFAULT 'link',
    referer           TEXT NOT NULL DEFAULT '(direct)',
    referer_url       TEXT NOT NULL DEFAULT '(direct)',
    utm_source        TEXT NOT NULL DEFAULT '',
    utm_medium        TEXT NOT NULL DEFAULT '',
    utm_campaign      TEXT NOT NULL DEFAULT '',
    utm_term          TEXT NOT NULL DEFAULT '',
    utm_content       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX lead_events_workspace_ts_idx ON lead_events (workspace_id, timestamp);
CREATE INDEX lead_events_link_ts_idx ON lead_events (link_id, timestamp);
CREATE INDEX lead_events_customer_ts_idx ON lead_events (customer_id, timestamp);

CREATE TABLE sale_events (
    event_id           TEXT PRIMARY KEY,
    timestamp          TIMESTAMPTZ NOT NULL,
    workspace_id       TEXT NOT NULL,
    event_name         TEXT NOT NULL,
    customer_id        TEXT NOT NULL,
    metadata           TEXT,
    lead_event_id      TEXT,
    amount             BIGINT NOT NULL,      -- USD cents unless no FX rate was known
    currency           TEXT NOT NULL DEFAULT 'usd',
    payment_processor  TEXT NOT NULL DEFAULT 'custom',
    invoice_id         TEXT NOT NULL DEFAULT '',
    click_id           TEXT NOT NULL,
    link_id            TEXT NOT NULL,
    domain            TEXT NOT NULL,
    key               TEXT NOT NULL,
    url               TEXT NOT NULL DEFAULT '',
    ip                TEXT NOT NULL DEFAULT '',
    continent         TEXT NOT NULL DEFAULT '',
    country           TEXT NOT NULL DEFAULT 'Unknown',
    region            TEXT NOT NULL DEFAULT 'Unknown',
    city              TEXT NOT NULL DEFAULT 'Unknown',
    latitude          TEXT NOT NULL DEFAULT 'Unknown',
    longitude         TEXT NOT NULL DEFAULT 'Unknown',
    device            TEXT NOT NULL DEFAULT 'Desktop',
    device_vendor     TEXT NOT NULL DEFAULT 'Unknown',
    device_model      TEXT NOT NULL DEFAULT 'Unknown',
    browser           TEXT NOT NULL DEFAULT 'Unknown',
    browser_version   TEXT NOT NULL DEFAULT 'Unknown',
    engine            TEXT NOT NULL DEFAULT 'Unknown',
    engine_version    TEXT NOT NULL DEFAULT 'Unknown',
    os                TEXT NOT NULL DEFAULT 'Unknown',
    os_version        TEXT NOT NULL DEFAULT 'Unknown',
    cpu_architecture  TEXT NOT NULL DEFAULT 'Unknown',
    ua                TEXT NOT NULL DEFAULT 'Unknown',
    bot               BOOLEAN NOT NULL DEFAULT FALSE,
    qr                BOOLEAN NOT NULL DEFAULT FALSE,
    trigger           TEXT NOT NULL DEFAULT 'link',
    referer           TEXT NOT NULL DEFAULT '(direct)',
    referer_url       TEXT NOT NULL DEFAULT '(direct)',
    utm_source        TEXT NOT NULL DEFAULT '',
    utm_medium        TEXT NOT NULL DEFAULT '',
    utm_campaign      TEXT NOT NULL DEFAULT '',
    utm_term          TEXT NOT NULL DEFAULT '',
    utm_content       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sale_events_workspace_ts_idx ON sale_events (workspace_id, timestamp);
CREATE INDEX sale_events_link_ts_idx ON sale_events (link_id, timestamp);
CREATE INDEX sale_events_customer_ts_idx ON sale_events (customer_id, timestamp);

-- Lead de-duplication keys (customer external id + normalised event name),
-- written in the lead's transaction and valid until expires_at.
CREATE TABLE lead_dedupe (
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    external_id   TEXT NOT NULL,
    event_key     TEXT NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workspace_id, external_id, event_key)
);

-- The first response of each invoiceId, replayed for every repeat.
CREATE TABLE sale_invoices (
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    invoice_id    TEXT NOT NULL,
    response      TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (workspace_id, invoice_id)
);

CREATE TABLE commissions (
    id            TEXT PRIMARY KEY,
    workspace_id  TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id    TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    partner_id    TEXT NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
    customer_id   TEXT,
    link_id       TEXT,
    event_id      TEXT,
    reward_id     TEXT,
    type          TEXT NOT NULL,   -- click | lead | sale | referral | custom
    amount        BIGINT NOT NULL DEFAULT 0,
    earnings      BIGINT NOT NULL DEFAULT 0,
    currency      TEXT NOT NULL DEFAULT 'usd',
    status        TEXT NOT NULL DEFAULT 'pending',
    quantity      INTEGER NOT NULL DEFAULT 1,
    invoice_id    TEXT,
    description   TEXT,
    user_id       TEXT,
    metadata      TEXT,
    payout_id     TEXT,
    paid_at       TIMESTAMPTZ,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
CREATE UNIQUE INDEX commissions_event_key ON commissions (event_id) WHERE event_id IS NOT NULL;
CREATE UNIQUE INDEX commissions_program_invoice_key ON commissions (program_id, invoice_id) WHERE invoice_id IS NOT NULL;
CREATE INDEX commissions_program_created_idx ON commissions (program_id, created_at);
CREATE INDEX commissions_partner_customer_idx ON commissions (partner_id, customer_id, type, created_at, id);
CREATE INDEX commissions_status_idx ON commissions (status, created_at);

-- Public embed tokens: only the SHA-256 of the token is stored.
CREATE TABLE embed_tokens (
    token_hash     TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    program_id     TEXT NOT NULL REFERENCES programs (id) ON DELETE CASCADE,
    partner_id     TEXT NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
    enrollment_id  TEXT NOT NULL REFERENCES program_enrollments (id) ON DELETE CASCADE,
    expires_at     TIMESTAMPTZ NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX embed_tokens_expires_idx ON embed_tokens (expires_at);

-- +goose Down
DROP TABLE embed_tokens;
DROP TABLE commissions;
DROP TABLE sale_invoices;
DROP TABLE lead_dedupe;
DROP TABLE sale_events;
DROP TABLE lead_events;
DROP TABLE customers;
DROP INDEX links_program_partner_idx;
DROP TABLE program_enrollments;
DROP TABLE partners;
DROP TABLE rewards;
DROP TABLE partner_groups;
DROP TABLE programs;
