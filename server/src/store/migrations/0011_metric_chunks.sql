-- The points of each lowest-level block of a series (steps b * 64 to b * 64 + 63), packed
-- in one value (tracking/series/chunks.rs): a chart reads the block straddling a pixel
-- column's boundary as one row instead of up to 64 (those reads were half a
-- 10,000,000-point chart's statement time on PostgreSQL). Written with every point insert;
-- a block of more than 256 points, or one that had points before this migration, has no
-- chunk, and a chart reads its points from metric_points.
CREATE TABLE metric_chunks (
    series_id INTEGER NOT NULL REFERENCES metric_series(series_id),
    block     INTEGER NOT NULL,
    points    BLOB NOT NULL,
    PRIMARY KEY (series_id, block)
) WITHOUT ROWID;
