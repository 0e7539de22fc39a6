-- PostgreSQL copy of ../0007_experiment_columns.sql: change the two together.
-- Column keys of each experiment's runs table: every param, metric and tag key
-- any of its runs has had, so the page header reads a few hundred rows instead of scanning
-- the params, latest metrics and tags of every run. Written in the same transaction as the
-- param, metric or tag (tracking::columns). Keys are never removed: a deleted tag or a
-- deleted run leaves its key listed (MLflow's UI does the same), and a column of a key no
-- active run has shows empty cells.
CREATE TABLE IF NOT EXISTS experiment_columns (
    experiment_id BIGINT NOT NULL REFERENCES experiments(experiment_id),
    kind          TEXT COLLATE "C" NOT NULL CHECK (kind IN ('param', 'metric', 'tag')),
    key           TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (experiment_id, kind, key)
);

INSERT INTO experiment_columns (experiment_id, kind, key)
SELECT DISTINCT r.experiment_id, 'param', x.key FROM runs r JOIN params x ON x.run_uuid = r.run_uuid;
INSERT INTO experiment_columns (experiment_id, kind, key)
SELECT DISTINCT r.experiment_id, 'metric', x.key FROM runs r JOIN latest_metrics x ON x.run_uuid = r.run_uuid;
INSERT INTO experiment_columns (experiment_id, kind, key)
SELECT DISTINCT r.experiment_id, 'tag', x.key FROM runs r JOIN tags x ON x.run_uuid = r.run_uuid;
