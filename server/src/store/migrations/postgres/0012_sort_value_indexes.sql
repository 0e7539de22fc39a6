-- Runs in the order of a metric, param or tag value: see the SQLite migration of the
-- same number.
CREATE INDEX latest_metrics_by_value ON latest_metrics (key, is_nan, value);
CREATE INDEX params_by_value ON params (key, value);
CREATE INDEX tags_by_value ON tags (key, value);
