-- runlens schema, version 15: an experiment's latest run end from the end of an index, as
-- its latest run start already is (`runs_by_experiment`), so an experiment's summary does
-- not read every run. Partial (ended runs only), so that only a query that says
-- `end_time IS NOT NULL` can use it: the runs table's queries keep `runs_by_experiment`.
CREATE INDEX IF NOT EXISTS runs_by_experiment_end ON runs (experiment_id, lifecycle_stage, end_time)
    WHERE end_time IS NOT NULL;
