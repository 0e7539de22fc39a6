-- Block summaries in one column (charts under 50 ms at 10,000,000 points).
-- metric_blocks kept a summary in 23 columns; a chart reads about 15,000 summaries, and
-- handing over 23 columns a row was half of a 10M-point chart's time on SQLite. Same
-- key, same rows; `summary` is the block's summary in the form of Block::encode
-- (tracking/series/block.rs). The migration's data step (store/repack.rs)
-- copies every row of metric_blocks here; migration 10 then drops metric_blocks.
CREATE TABLE metric_summaries (
    series_id INTEGER NOT NULL REFERENCES metric_series(series_id),
    level     INTEGER NOT NULL,
    block     INTEGER NOT NULL,
    summary   BLOB NOT NULL,
    PRIMARY KEY (series_id, level, block)
) WITHOUT ROWID;
