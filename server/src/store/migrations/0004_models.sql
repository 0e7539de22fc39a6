-- Migration 4: MLflow 3's logged models (with their params, tags and linked metrics), the
-- datasets runs use (`runs/log-inputs`), and the models a run takes as input or produces
-- (`runs/log-inputs` models, `runs/outputs`). Times are ms since the epoch.

-- A logged model: `m-<32 hex>`, its artifacts under
-- `<experiment artifact_location>/models/<model_id>/artifacts`.
-- status: MLflow's LoggedModelStatus number (1 = LOGGED_MODEL_PENDING, 2 = LOGGED_MODEL_READY,
-- 3 = LOGGED_MODEL_UPLOAD_FAILED, 0 = unspecified).
CREATE TABLE logged_models (
    model_id          TEXT PRIMARY KEY,
    experiment_id     INTEGER NOT NULL REFERENCES experiments(experiment_id),
    name              TEXT NOT NULL,
    artifact_location TEXT NOT NULL,
    status            INTEGER NOT NULL,
    status_message    TEXT,
    model_type        TEXT,
    source_run_id     TEXT,
    creator           TEXT NOT NULL,   -- username of who created it ('' when unknown)
    creation_time     INTEGER NOT NULL,
    last_updated_time INTEGER NOT NULL,
    lifecycle_stage   TEXT NOT NULL DEFAULT 'active'
        CHECK (lifecycle_stage IN ('active', 'deleted'))
);
CREATE INDEX logged_models_by_experiment
    ON logged_models (experiment_id, lifecycle_stage, creation_time);
CREATE INDEX logged_models_by_run ON logged_models (source_run_id);

CREATE TABLE logged_model_params (
    model_id TEXT NOT NULL REFERENCES logged_models(model_id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (model_id, key)
) WITHOUT ROWID;

CREATE TABLE logged_model_tags (
    model_id TEXT NOT NULL REFERENCES logged_models(model_id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (model_id, key)
) WITHOUT ROWID;

-- Metrics logged with a `model_id` (NaN stored as in `metric_points`: value 0, is_nan 1).
CREATE TABLE logged_model_metrics (
    model_id       TEXT NOT NULL REFERENCES logged_models(model_id),
    key            TEXT NOT NULL,
    timestamp      INTEGER NOT NULL,
    step           INTEGER NOT NULL,
    run_uuid       TEXT NOT NULL,
    is_nan         INTEGER NOT NULL,
    value          REAL NOT NULL,
    dataset_name   TEXT,
    dataset_digest TEXT,
    PRIMARY KEY (model_id, key, timestamp, step, run_uuid)
) WITHOUT ROWID;

-- Datasets, one per (experiment, name, digest), as MLflow stores them.
CREATE TABLE datasets (
    dataset_id    INTEGER PRIMARY KEY,
    experiment_id INTEGER NOT NULL REFERENCES experiments(experiment_id),
    name          TEXT NOT NULL,
    digest        TEXT NOT NULL,
    source_type   TEXT NOT NULL,
    source        TEXT NOT NULL,
    schema        TEXT,
    profile       TEXT,
    UNIQUE (experiment_id, name, digest)
);

-- A run's use of a dataset; its input tags (e.g. `mlflow.data.context`) in `input_tags`.
CREATE TABLE dataset_inputs (
    input_id   INTEGER PRIMARY KEY,
    run_uuid   TEXT NOT NULL REFERENCES runs(run_uuid),
    dataset_id INTEGER NOT NULL REFERENCES datasets(dataset_id),
    UNIQUE (run_uuid, dataset_id)
);

CREATE TABLE input_tags (
    input_id INTEGER NOT NULL REFERENCES dataset_inputs(input_id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (input_id, key)
) WITHOUT ROWID;

-- Logged models a run takes as input (`runs/log-inputs` models; step 0) or produces
-- (`runs/outputs`).
CREATE TABLE run_models (
    run_uuid  TEXT NOT NULL REFERENCES runs(run_uuid),
    direction TEXT NOT NULL CHECK (direction IN ('input', 'output')),
    model_id  TEXT NOT NULL,
    step      INTEGER NOT NULL,
    UNIQUE (run_uuid, direction, model_id, step)
);
CREATE INDEX run_models_by_model ON run_models (model_id);
