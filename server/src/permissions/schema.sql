-- Explicit experiment grants. level: 1 = CAN_READ, 2 = CAN_EDIT, 3 = CAN_MANAGE.
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
