-- The sign-in limiter's memory (nothing that must be shared between replicas
-- lives in one process). One row per password attempt that was not a cached success:
-- state 0 = reserved, being verified (counts for a minute at most, so a crashed replica's
-- reservation expires); 1 = failed; 2 = failed, then forgiven for its (username, addr)
-- pair by a success there (still counted against the username and the address). Rows
-- older than the longest window are pruned on every reservation (auth::limiter).
CREATE TABLE IF NOT EXISTS signin_attempts (
    attempt_id INTEGER PRIMARY KEY,
    username   TEXT NOT NULL,
    addr       TEXT NOT NULL,
    at_ms      INTEGER NOT NULL,
    state      INTEGER NOT NULL CHECK (state IN (0, 1, 2))
);
CREATE INDEX IF NOT EXISTS signin_attempts_pair ON signin_attempts (username, addr, at_ms);
CREATE INDEX IF NOT EXISTS signin_attempts_addr ON signin_attempts (addr, at_ms);
CREATE INDEX IF NOT EXISTS signin_attempts_at ON signin_attempts (at_ms);

-- (username, address) pairs that signed in, with the last time: exempt from the per-user
-- back-off and the address and global budgets for 30 days.
CREATE TABLE IF NOT EXISTS signin_known (
    username TEXT NOT NULL,
    addr     TEXT NOT NULL,
    at_ms    INTEGER NOT NULL,
    PRIMARY KEY (username, addr)
) WITHOUT ROWID;
