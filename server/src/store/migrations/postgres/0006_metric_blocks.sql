-- PostgreSQL copy of ../0006_metric_blocks.sql: change the two together. Same tables,
-- columns and backfill; BIGINT for INTEGER, DOUBLE PRECISION for REAL, no WITHOUT ROWID.
-- Multi-resolution summaries of metric series, so a chart reads O(pixels) rows whatever
-- the series' length (step 7 of docs/POSTGRES-PLAN.md).
--
-- At each level k of 6, 8, 10, ..., 20, block b of a series summarises its points with
-- step >> k = b (steps b * 2^k to (b + 1) * 2^k - 1): how many (re-logged steps count
-- each point), their step and timestamp extents, the first, last, minimum and maximum
-- finite points (in the order a chart reads points: step, timestamp, value; the earliest of
-- equal extremes) and the first NaN, +inf and -inf point (their value is implied). A block
-- exists only where points do. Maintained with every point insert
-- (`tracking/series/ingest.rs`); points are never updated or deleted.
CREATE TABLE metric_blocks (
    series_id   BIGINT NOT NULL REFERENCES metric_series(series_id),
    level       BIGINT NOT NULL,
    block       BIGINT NOT NULL,
    n           BIGINT NOT NULL,
    lo_step     BIGINT NOT NULL,
    hi_step     BIGINT NOT NULL,
    lo_ts       BIGINT NOT NULL,
    hi_ts       BIGINT NOT NULL,
    first_step  BIGINT,
    first_ts    BIGINT,
    first_value DOUBLE PRECISION,
    last_step   BIGINT,
    last_ts     BIGINT,
    last_value  DOUBLE PRECISION,
    min_step    BIGINT,
    min_ts      BIGINT,
    min_value   DOUBLE PRECISION,
    max_step    BIGINT,
    max_ts      BIGINT,
    max_value   DOUBLE PRECISION,
    nan_step    BIGINT,
    nan_ts      BIGINT,
    pinf_step   BIGINT,
    pinf_ts     BIGINT,
    ninf_step   BIGINT,
    ninf_ts     BIGINT,
    PRIMARY KEY (series_id, level, block)
);

-- The series' point count (`total_points` without a scan), and whether its timestamps
-- never decrease as steps grow (then a time axis reads the same blocks in the same order);
-- kept conservatively on ingest: a batch that is not appended in order clears it for good.
ALTER TABLE metric_series ADD COLUMN point_count BIGINT NOT NULL DEFAULT 0;
ALTER TABLE metric_series ADD COLUMN time_ordered BIGINT NOT NULL DEFAULT 1;

-- Backfill. Level 6 from the points: number every point within its (block, kind) four
-- ways (kind 0 finite, 1 NaN, 2 +inf, 3 -inf) and keep the rows numbered 1.
INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 6, step >> 6, count(*), min(step), max(step), min(timestamp), max(timestamp),
    max(CASE WHEN kind = 0 AND rf = 1 THEN step END),
    max(CASE WHEN kind = 0 AND rf = 1 THEN timestamp END),
    max(CASE WHEN kind = 0 AND rf = 1 THEN value END),
    max(CASE WHEN kind = 0 AND rl = 1 THEN step END),
    max(CASE WHEN kind = 0 AND rl = 1 THEN timestamp END),
    max(CASE WHEN kind = 0 AND rl = 1 THEN value END),
    max(CASE WHEN kind = 0 AND rmin = 1 THEN step END),
    max(CASE WHEN kind = 0 AND rmin = 1 THEN timestamp END),
    max(CASE WHEN kind = 0 AND rmin = 1 THEN value END),
    max(CASE WHEN kind = 0 AND rmax = 1 THEN step END),
    max(CASE WHEN kind = 0 AND rmax = 1 THEN timestamp END),
    max(CASE WHEN kind = 0 AND rmax = 1 THEN value END),
    max(CASE WHEN kind = 1 AND rf = 1 THEN step END),
    max(CASE WHEN kind = 1 AND rf = 1 THEN timestamp END),
    max(CASE WHEN kind = 2 AND rf = 1 THEN step END),
    max(CASE WHEN kind = 2 AND rf = 1 THEN timestamp END),
    max(CASE WHEN kind = 3 AND rf = 1 THEN step END),
    max(CASE WHEN kind = 3 AND rf = 1 THEN timestamp END)
FROM (
    SELECT series_id, step, timestamp, value, kind,
        row_number() OVER (PARTITION BY series_id, step >> 6, kind ORDER BY step, timestamp, value) AS rf,
        row_number() OVER (PARTITION BY series_id, step >> 6, kind ORDER BY step DESC, timestamp DESC, value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, step >> 6, kind ORDER BY value, step, timestamp) AS rmin,
        row_number() OVER (PARTITION BY series_id, step >> 6, kind ORDER BY value DESC, step, timestamp) AS rmax
    FROM (
        SELECT series_id, step, timestamp, value,
            CASE WHEN is_nan <> 0 THEN 1
                 WHEN value > 1.7976931348623157e308 THEN 2
                 WHEN value < -1.7976931348623157e308 THEN 3
                 ELSE 0 END AS kind
        FROM metric_points
    ) p
) w
GROUP BY series_id, step >> 6;

-- Each higher level from the one below (four blocks each): the same picks over the
-- blocks' own picks.
INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 8, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 6
) w
GROUP BY series_id, block >> 2;

INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 10, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 8
) w
GROUP BY series_id, block >> 2;

INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 12, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 10
) w
GROUP BY series_id, block >> 2;

INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 14, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 12
) w
GROUP BY series_id, block >> 2;

INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 16, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 14
) w
GROUP BY series_id, block >> 2;

INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 18, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 16
) w
GROUP BY series_id, block >> 2;

INSERT INTO metric_blocks (series_id, level, block, n, lo_step, hi_step, lo_ts, hi_ts,
    first_step, first_ts, first_value, last_step, last_ts, last_value,
    min_step, min_ts, min_value, max_step, max_ts, max_value,
    nan_step, nan_ts, pinf_step, pinf_ts, ninf_step, ninf_ts)
SELECT series_id, 20, block >> 2, sum(n), min(lo_step), max(hi_step), min(lo_ts), max(hi_ts),
    max(CASE WHEN rf = 1 THEN first_step END),
    max(CASE WHEN rf = 1 THEN first_ts END),
    max(CASE WHEN rf = 1 THEN first_value END),
    max(CASE WHEN rl = 1 THEN last_step END),
    max(CASE WHEN rl = 1 THEN last_ts END),
    max(CASE WHEN rl = 1 THEN last_value END),
    max(CASE WHEN rmin = 1 THEN min_step END),
    max(CASE WHEN rmin = 1 THEN min_ts END),
    max(CASE WHEN rmin = 1 THEN min_value END),
    max(CASE WHEN rmax = 1 THEN max_step END),
    max(CASE WHEN rmax = 1 THEN max_ts END),
    max(CASE WHEN rmax = 1 THEN max_value END),
    max(CASE WHEN rnan = 1 THEN nan_step END),
    max(CASE WHEN rnan = 1 THEN nan_ts END),
    max(CASE WHEN rpinf = 1 THEN pinf_step END),
    max(CASE WHEN rpinf = 1 THEN pinf_ts END),
    max(CASE WHEN rninf = 1 THEN ninf_step END),
    max(CASE WHEN rninf = 1 THEN ninf_ts END)
FROM (
    SELECT b.*,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY first_step IS NULL, first_step, first_ts, first_value) AS rf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY last_step IS NULL, last_step DESC, last_ts DESC, last_value DESC) AS rl,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY min_value IS NULL, min_value, min_step, min_ts) AS rmin,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY max_value IS NULL, max_value DESC, max_step, max_ts) AS rmax,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY nan_step IS NULL, nan_step, nan_ts) AS rnan,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY pinf_step IS NULL, pinf_step, pinf_ts) AS rpinf,
        row_number() OVER (PARTITION BY series_id, block >> 2 ORDER BY ninf_step IS NULL, ninf_step, ninf_ts) AS rninf
    FROM metric_blocks b
    WHERE level = 18
) w
GROUP BY series_id, block >> 2;

-- The counts from the top level, and the order flag from the points in step order: a
-- series is time-ordered unless a point's timestamp is older than one of an earlier step.
UPDATE metric_series SET point_count = coalesce(
    (SELECT sum(n) FROM metric_blocks b
      WHERE b.series_id = metric_series.series_id AND b.level = 20), 0);
UPDATE metric_series SET time_ordered = 0 WHERE series_id IN (
    SELECT series_id FROM (
        SELECT series_id, timestamp,
            max(timestamp) OVER (PARTITION BY series_id ORDER BY step, timestamp
                                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
        FROM metric_points
    ) w
    WHERE timestamp < before
);
