-- runlens schema, version 3: jobs, job runs, attempts and job grants.

-- A named workload. Its owner (creator) holds IS_OWNER, which no grant gives or takes away.
-- owner_user_id names a user without a foreign key (like grants' principal ids); deleting
-- the user leaves the job without an owner (NULL, below), so that a later user given the
-- same id inherits nothing.
CREATE TABLE jobs (
    job_id        INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE,
    owner_user_id INTEGER,
    created       INTEGER NOT NULL
);

-- Explicit job grants. level: 1 = CAN_VIEW, 2 = CAN_MANAGE_RUN, 3 = CAN_MANAGE.
CREATE TABLE job_grants (
    job_id         INTEGER NOT NULL REFERENCES jobs(job_id) ON DELETE CASCADE,
    principal_kind TEXT NOT NULL CHECK (principal_kind IN ('user', 'group')),
    principal_id   INTEGER NOT NULL,
    level          INTEGER NOT NULL CHECK (level BETWEEN 1 AND 3),
    PRIMARY KEY (job_id, principal_kind, principal_id)
) WITHOUT ROWID;
CREATE INDEX job_grants_by_principal ON job_grants (principal_kind, principal_id);

-- Grants name principals by id with no foreign key: they go with their user or group.
-- A deleted user's jobs lose their owner.
CREATE TRIGGER job_grants_of_deleted_user AFTER DELETE ON users BEGIN
    DELETE FROM job_grants WHERE principal_kind = 'user' AND principal_id = old.user_id;
    UPDATE jobs SET owner_user_id = NULL WHERE owner_user_id = old.user_id;
END;
CREATE TRIGGER job_grants_of_deleted_group AFTER DELETE ON groups BEGIN
    DELETE FROM job_grants WHERE principal_kind = 'group' AND principal_id = old.group_id;
END;

-- One submission of a job. status: QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELED;
-- ended: when it reached a final status (ms).
CREATE TABLE job_runs (
    job_run_id    INTEGER PRIMARY KEY,
    job_id        INTEGER NOT NULL REFERENCES jobs(job_id),
    experiment_id INTEGER NOT NULL REFERENCES experiments(experiment_id),
    status        TEXT NOT NULL
                  CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED')),
    max_retries   INTEGER NOT NULL,
    created_by    TEXT NOT NULL,
    created       INTEGER NOT NULL,
    ended         INTEGER
);
CREATE INDEX job_runs_by_job ON job_runs (job_id);
CREATE INDEX job_runs_active ON job_runs (job_run_id) WHERE status IN ('QUEUED', 'RUNNING');

-- The node labels of a job run, in the order they were added.
CREATE TABLE job_run_nodes (
    job_run_id INTEGER NOT NULL REFERENCES job_runs(job_run_id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    node       TEXT NOT NULL,
    PRIMARY KEY (job_run_id, node)
) WITHOUT ROWID;

-- The tries of a job run (1, 2, ...), each one MLflow run. attempt_id keys its log lines.
CREATE TABLE job_attempts (
    attempt_id INTEGER PRIMARY KEY,
    job_run_id INTEGER NOT NULL REFERENCES job_runs(job_run_id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,
    run_uuid   TEXT NOT NULL UNIQUE REFERENCES runs(run_uuid),
    UNIQUE (job_run_id, number)
);
