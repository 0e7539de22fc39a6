-- Identity: users, groups, membership. (Sessions and API tokens: added by the auth module.)

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
