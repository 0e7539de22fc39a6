-- Migration 5: the model registry (MLflow's registered models, their versions, tags and
-- aliases) and registered-model grants. Times are ms since the epoch. Rows refer to their
-- registered model by `registered_model_id`, so a rename touches one row and carries
-- versions, tags, aliases and grants along.

-- A registered model. last_version: the highest version number ever given (versions are
-- never renumbered, so a deleted version's number is not reused).
CREATE TABLE registered_models (
    registered_model_id INTEGER PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    description         TEXT,
    creator             TEXT NOT NULL,   -- username ('' when unknown)
    creation_time       INTEGER NOT NULL,
    last_updated_time   INTEGER NOT NULL,
    last_version        INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE registered_model_tags (
    registered_model_id INTEGER NOT NULL
        REFERENCES registered_models(registered_model_id) ON DELETE CASCADE,
    key                 TEXT NOT NULL,
    value               TEXT NOT NULL,
    PRIMARY KEY (registered_model_id, key)
) WITHOUT ROWID;

-- One version. source: as registered (`models:/m-...`, `runs:/<id>/model`,
-- `mlflow-artifacts:/...`); storage_location: where its files are (the logged model's
-- artifact location for `models:/m-...`); stage: None, Staging, Production, Archived;
-- status: READY (registration is synchronous).
CREATE TABLE model_versions (
    registered_model_id INTEGER NOT NULL
        REFERENCES registered_models(registered_model_id) ON DELETE CASCADE,
    version             INTEGER NOT NULL,
    source              TEXT NOT NULL,
    storage_location    TEXT NOT NULL,
    run_id              TEXT,
    model_id            TEXT,
    run_link            TEXT NOT NULL DEFAULT '',
    status              TEXT NOT NULL DEFAULT 'READY',
    stage               TEXT NOT NULL DEFAULT 'None'
        CHECK (stage IN ('None', 'Staging', 'Production', 'Archived')),
    description         TEXT NOT NULL DEFAULT '',
    user_id             TEXT NOT NULL,   -- username of who registered it
    creation_time       INTEGER NOT NULL,
    last_updated_time   INTEGER NOT NULL,
    PRIMARY KEY (registered_model_id, version)
) WITHOUT ROWID;
CREATE INDEX model_versions_by_run ON model_versions (run_id);
CREATE INDEX model_versions_by_logged_model ON model_versions (model_id);

CREATE TABLE model_version_tags (
    registered_model_id INTEGER NOT NULL,
    version             INTEGER NOT NULL,
    key                 TEXT NOT NULL,
    value               TEXT NOT NULL,
    PRIMARY KEY (registered_model_id, version, key),
    FOREIGN KEY (registered_model_id, version)
        REFERENCES model_versions(registered_model_id, version) ON DELETE CASCADE
) WITHOUT ROWID;

-- An alias names one version; deleting the version deletes its aliases.
CREATE TABLE registered_model_aliases (
    registered_model_id INTEGER NOT NULL,
    alias               TEXT NOT NULL,
    version             INTEGER NOT NULL,
    PRIMARY KEY (registered_model_id, alias),
    FOREIGN KEY (registered_model_id, version)
        REFERENCES model_versions(registered_model_id, version) ON DELETE CASCADE
) WITHOUT ROWID;

-- Explicit registered-model grants. level: 0 = NO_PERMISSIONS, 1 = READ, 2 = EDIT,
-- 3 = MANAGE (the creator gets 3). Principals by id without a foreign key, as experiment
-- and job grants: they go with their user or group (triggers below).
CREATE TABLE registered_model_grants (
    registered_model_id INTEGER NOT NULL
        REFERENCES registered_models(registered_model_id) ON DELETE CASCADE,
    principal_kind      TEXT NOT NULL CHECK (principal_kind IN ('user', 'group')),
    principal_id        INTEGER NOT NULL,
    level               INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
    PRIMARY KEY (registered_model_id, principal_kind, principal_id)
) WITHOUT ROWID;
CREATE INDEX registered_model_grants_by_principal
    ON registered_model_grants (principal_kind, principal_id);

CREATE TRIGGER registered_model_grants_of_deleted_user AFTER DELETE ON users BEGIN
    DELETE FROM registered_model_grants
     WHERE principal_kind = 'user' AND principal_id = old.user_id;
END;
CREATE TRIGGER registered_model_grants_of_deleted_group AFTER DELETE ON groups BEGIN
    DELETE FROM registered_model_grants
     WHERE principal_kind = 'group' AND principal_id = old.group_id;
END;
