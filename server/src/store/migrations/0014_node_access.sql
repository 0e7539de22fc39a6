-- runlens schema, version 14: who may watch a GPU node, and the credentials node agents hold.

-- Grants on nodes to users and groups (level 1 = CAN_VIEW: watch its GPUs). Administrators
-- watch every node; nothing a user can write (run tags, job-run node lists) adds to this.
-- A grant goes with its node.
CREATE TABLE node_grants (
    node_name      TEXT NOT NULL REFERENCES nodes(name) ON DELETE CASCADE,
    principal_kind TEXT NOT NULL CHECK (principal_kind IN ('user', 'group')),
    principal_id   INTEGER NOT NULL,
    level          INTEGER NOT NULL CHECK (level = 1),
    PRIMARY KEY (node_name, principal_kind, principal_id)
) WITHOUT ROWID;
CREATE INDEX node_grants_by_principal ON node_grants (principal_kind, principal_id);

-- Grants name principals by id with no foreign key: they go with their user or group.
CREATE TRIGGER node_grants_of_deleted_user AFTER DELETE ON users BEGIN
    DELETE FROM node_grants WHERE principal_kind = 'user' AND principal_id = old.user_id;
END;
CREATE TRIGGER node_grants_of_deleted_group AFTER DELETE ON groups BEGIN
    DELETE FROM node_grants WHERE principal_kind = 'group' AND principal_id = old.group_id;
END;

-- A node credential: the secret one node's agent holds (`rln_` + 40 alphanumerics, stored as
-- its SHA-256). It registers and heartbeats node `node_name` and nothing else. Made by an
-- administrator before the node first registers (so no foreign key to `nodes`); revoked,
-- never deleted, so lists can say when.
CREATE TABLE node_credentials (
    credential_id INTEGER PRIMARY KEY,
    node_name     TEXT NOT NULL,
    prefix        TEXT NOT NULL,          -- first characters, to recognise it in lists
    token_hash    TEXT NOT NULL UNIQUE,   -- hex SHA-256 of the secret
    created_by    TEXT NOT NULL,          -- the administrator's username
    created       INTEGER NOT NULL,
    last_used     INTEGER,
    revoked       INTEGER                 -- ms when revoked; NULL = active
);
CREATE INDEX node_credentials_by_node ON node_credentials (node_name);
