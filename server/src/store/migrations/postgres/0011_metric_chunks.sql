-- Lowest-level blocks' points in one value: see the SQLite migration of the same number.
CREATE TABLE metric_chunks (
    series_id BIGINT NOT NULL REFERENCES metric_series(series_id),
    block     BIGINT NOT NULL,
    points    BYTEA NOT NULL,
    PRIMARY KEY (series_id, block)
);
