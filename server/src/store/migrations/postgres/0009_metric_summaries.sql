-- Block summaries in one column: see the SQLite migration of the same number.
CREATE TABLE metric_summaries (
    series_id BIGINT NOT NULL REFERENCES metric_series(series_id),
    level     BIGINT NOT NULL,
    block     BIGINT NOT NULL,
    summary   BYTEA NOT NULL,
    PRIMARY KEY (series_id, level, block)
);
