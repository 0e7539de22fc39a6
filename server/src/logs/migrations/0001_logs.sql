-- runlens logs database (logs.db, beside runlens.db), version 1: job runs' output lines.

-- One row per stored slice of one node's lines with consecutive sequence numbers
-- (first_seq..=last_seq), compressed in the chunk format (server/src/logs/chunk.rs).
-- AUTOINCREMENT: ids only grow, even after the newest chunk is purged, so the id is the
-- arrival order that live followers resume from.
CREATE TABLE log_chunks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    job_run_id  INTEGER NOT NULL,
    node        TEXT NOT NULL,
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    min_ts      INTEGER NOT NULL,
    max_ts      INTEGER NOT NULL,
    level_mask  INTEGER NOT NULL,  -- bit 0: lines without a level; bit k: level code k
    parse_state TEXT NOT NULL,     -- the level parser's state after the last line
    grams       BLOB NOT NULL,     -- trigram summary of the texts (chunk.rs, Grams)
    data        BLOB NOT NULL      -- last, so that reading the other columns skips it
);

-- The chunk ending right before a new slice (its parse state), per node.
CREATE INDEX log_chunks_tail ON log_chunks (job_run_id, node, last_seq);
-- Newest-first and oldest-first scans of one job run.
CREATE INDEX log_chunks_newest ON log_chunks (job_run_id, max_ts, min_ts);
CREATE INDEX log_chunks_oldest ON log_chunks (job_run_id, min_ts, max_ts);
-- Retention.
CREATE INDEX log_chunks_age ON log_chunks (max_ts);

-- Per node of a job run: the next sequence number expected and the ranges still missing
-- below it (JSON [[first_missing, last_missing], ...]).
CREATE TABLE log_nodes (
    job_run_id INTEGER NOT NULL,
    node       TEXT NOT NULL,
    next_seq   INTEGER NOT NULL,
    gaps       TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (job_run_id, node)
) WITHOUT ROWID;

-- Per job run whose old lines were purged: the newest timestamp among the purged lines.
CREATE TABLE log_expiry (
    job_run_id         INTEGER PRIMARY KEY,
    expired_through_ms INTEGER NOT NULL
);
