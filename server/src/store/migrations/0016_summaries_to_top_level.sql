-- runlens schema, version 16: a series keeps block summaries only up to its top level, the
-- lowest level whose one block holds all its points (tracking/series/block.rs, top_level).
-- Above it each level held that same one block again. A level is above the top exactly
-- when the level below it (two powers of two lower) has a single block: those rows go.
DELETE FROM metric_summaries
 WHERE level > 6
   AND (SELECT count(*) FROM (
          SELECT 1 FROM metric_summaries AS below
           WHERE below.series_id = metric_summaries.series_id
             AND below.level = metric_summaries.level - 2
           LIMIT 2)) = 1;
