-- Migration 1: the schema of runlens 0.1.0, exactly as that release created it (tracking,
-- identity, permissions), so a fresh database and one made by 0.1.0 are identical. Its
-- statements keep `IF NOT EXISTS`: a 0.1.0 database (which has no `schema_migrations`) is
-- adopted as version 1 by running this file again, which changes nothing there.
-- Times are ms since the epoch. Run ids are 32 lowercase hex chars.

-- Tracking.

CREATE TABLE IF NOT EXISTS experiments (
    experiment_id     INTEGER PRIMARY KEY,
    name              TEXT NOT NULL UNIQUE,
    artifact_location TEXT NOT NULL,
    lifecycle_stage   TEXT NOT NULL DEFAULT 'active',
    creation_time     INTEGER NOT NULL,
    last_update_time  INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS experiment_tags (
    experiment_id INTEGER NOT NULL REFERENCES experiments(experiment_id),
    key           TEXT NOT NULL,
    value         TEXT NOT NULL,
    PRIMARY KEY (experiment_id, key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS runs (
    run_uuid        TEXT PRIMARY KEY,
    experiment_id   INTEGER NOT NULL REFERENCES experiments(experiment_id),
    name            TEXT NOT NULL,
    user_id         TEXT NOT NULL,
    status          TEXT NOT NULL,
    start_time      INTEGER NOT NULL,
    end_time        INTEGER,
    lifecycle_stage TEXT NOT NULL DEFAULT 'active',
    artifact_uri    TEXT NOT NULL,
    deleted_time    INTEGER
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs (experiment_id, lifecycle_stage, start_time);

CREATE TABLE IF NOT EXISTS params (
    run_uuid TEXT NOT NULL REFERENCES runs(run_uuid),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (run_uuid, key)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS tags (
    run_uuid TEXT NOT NULL REFERENCES runs(run_uuid),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (run_uuid, key)
) WITHOUT ROWID;

-- One row per (run, metric key); points reference it by a small integer.
CREATE TABLE IF NOT EXISTS metric_series (
    series_id INTEGER PRIMARY KEY,
    run_uuid  TEXT NOT NULL REFERENCES runs(run_uuid),
    key       TEXT NOT NULL,
    UNIQUE (run_uuid, key)
);

-- Every logged point. NaN is stored as value 0 with is_nan = 1 (SQLite turns NaN into
-- NULL); +inf and -inf are stored as themselves. Identical points are de-duplicated
-- (INSERT OR IGNORE), as MLflow does.
CREATE TABLE IF NOT EXISTS metric_points (
    series_id INTEGER NOT NULL REFERENCES metric_series(series_id),
    step      INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,
    is_nan    INTEGER NOT NULL,
    value     REAL NOT NULL,
    PRIMARY KEY (series_id, step, timestamp, is_nan, value)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS metric_points_by_time ON metric_points (series_id, timestamp);

-- Latest value per (run, key): max by (step, timestamp, value) (MLflow's rule).
CREATE TABLE IF NOT EXISTS latest_metrics (
    run_uuid  TEXT NOT NULL REFERENCES runs(run_uuid),
    key       TEXT NOT NULL,
    step      INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,
    is_nan    INTEGER NOT NULL,
    value     REAL NOT NULL,
    PRIMARY KEY (run_uuid, key)
) WITHOUT ROWID;

-- Key/value facts about the store itself (e.g. `demo_loaded`).
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- Identity: users, groups, membership, browser sessions, API tokens.

CREATE TABLE IF NOT EXISTS users (
    user_id       INTEGER PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT,               -- argon2 PHC string; NULL = cannot sign in with a password
    is_admin      INTEGER NOT NULL DEFAULT 0,
    disabled      INTEGER NOT NULL DEFAULT 0,
    created       INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS groups (
    group_id INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    created  INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS group_members (
    group_id INTEGER NOT NULL REFERENCES groups(group_id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS group_members_by_user ON group_members (user_id);

-- Browser sessions. Only a SHA-256 of the session id (the cookie value) is stored.
CREATE TABLE IF NOT EXISTS sessions (
    session_hash TEXT PRIMARY KEY,     -- hex SHA-256 of the cookie value
    user_id      INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    csrf_token   TEXT NOT NULL,        -- sent back as X-CSRF-Token on non-GET requests
    created      INTEGER NOT NULL,     -- ms; absolute expiry counts from here
    last_seen    INTEGER NOT NULL      -- ms; idle expiry counts from here
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user_id);

-- API tokens for programs. Only a SHA-256 of the secret is stored.
CREATE TABLE IF NOT EXISTS api_tokens (
    token_id   INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users(user_id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    prefix     TEXT NOT NULL,          -- first characters, to recognise it in lists
    token_hash TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the secret
    created    INTEGER NOT NULL,
    last_used  INTEGER,
    revoked    INTEGER                 -- ms when revoked; NULL = active
);
CREATE INDEX IF NOT EXISTS api_tokens_by_user ON api_tokens (user_id);

-- Explicit experiment grants. level: 1 = CAN_READ, 2 = CAN_EDIT, 3 = CAN_MANAGE (0 = none).
-- principal_kind: 'user' (principal_id = users.user_id) or 'group' (groups.group_id).

CREATE TABLE IF NOT EXISTS experiment_grants (
    experiment_id  INTEGER NOT NULL REFERENCES experiments(experiment_id),
    principal_kind TEXT NOT NULL CHECK (principal_kind IN ('user', 'group')),
    principal_id   INTEGER NOT NULL,
    level          INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
    PRIMARY KEY (experiment_id, principal_kind, principal_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS experiment_grants_by_principal
    ON experiment_grants (principal_kind, principal_id);
