-- PostgreSQL version of migration 2. It mirrors the SQLite file of the same name
-- (server/src/store/migrations/0002_nodes.sql): change the two together. Types as in
-- postgres/0001_initial.sql (BIGINT, TEXT COLLATE "C").

-- runlens schema, version 2: the GPU nodes registry.

-- Node agents: registered by themselves (source 'agent', heartbeating) or added by an admin
-- (source 'static'). `token` is the bearer token the agent requires on GET /v1/gpus: the
-- server must send it, so it is kept as given; no endpoint returns it and nothing logs it.
CREATE TABLE nodes (
    name              TEXT COLLATE "C" PRIMARY KEY,
    url               TEXT COLLATE "C" NOT NULL,
    token             TEXT COLLATE "C" NOT NULL,
    source            TEXT COLLATE "C" NOT NULL CHECK (source IN ('agent', 'static')),
    interval_secs     BIGINT NOT NULL,
    driver            TEXT COLLATE "C",                    -- JSON DriverStatus; NULL = never reported
    simulated         BIGINT NOT NULL DEFAULT 0,
    gpus              TEXT COLLATE "C" NOT NULL DEFAULT '[]', -- JSON [GpuIdentity]
    last_heartbeat_ms BIGINT,                              -- NULL = a static node never heard from
    created_ms        BIGINT NOT NULL
);

-- The runs naming nodes (tag `runlens.nodes`), for "which nodes may this user watch"
-- without scanning every tag. Partial: other tags pay nothing for it.
CREATE INDEX tags_runlens_nodes ON tags (run_uuid, value) WHERE key = 'runlens.nodes';
