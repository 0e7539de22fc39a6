-- runlens schema, version 2: the GPU nodes registry.

-- Node agents: registered by themselves (source 'agent', heartbeating) or added by an admin
-- (source 'static'). `token` is the bearer token the agent requires on GET /v1/gpus: the
-- server must send it, so it is kept as given; no endpoint returns it and nothing logs it.
CREATE TABLE nodes (
    name              TEXT PRIMARY KEY,
    url               TEXT NOT NULL,
    token             TEXT NOT NULL,
    source            TEXT NOT NULL CHECK (source IN ('agent', 'static')),
    interval_secs     INTEGER NOT NULL,
    driver            TEXT,                       -- JSON DriverStatus; NULL = never reported
    simulated         INTEGER NOT NULL DEFAULT 0,
    gpus              TEXT NOT NULL DEFAULT '[]', -- JSON [GpuIdentity]
    last_heartbeat_ms INTEGER,                    -- NULL = a static node never heard from
    created_ms        INTEGER NOT NULL
) WITHOUT ROWID;

-- The runs naming nodes (tag `runlens.nodes`), for "which nodes may this user watch"
-- without scanning every tag. Partial: other tags pay nothing for it.
CREATE INDEX tags_runlens_nodes ON tags (run_uuid, value) WHERE key = 'runlens.nodes';
