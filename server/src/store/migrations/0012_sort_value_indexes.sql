-- Runs in the order of a metric, param or tag value: a runs search ordered
-- first by one walks these indexes a rank at a time (tracking/search/runs.rs,
-- `ranked_rows`) and stops when its page is full, instead of looking up and sorting every
-- matching run's value (0.2-0.4 s a page at 100,000 runs).
CREATE INDEX latest_metrics_by_value ON latest_metrics (key, is_nan, value);
CREATE INDEX params_by_value ON params (key, value);
CREATE INDEX tags_by_value ON tags (key, value);
