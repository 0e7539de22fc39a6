-- runlens schema (SQLite). One statement per `;`. Applied on every start; idempotent.
-- Times are ms since the epoch. Run ids are 32 lowercase hex chars.

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
