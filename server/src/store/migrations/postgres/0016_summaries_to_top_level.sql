-- PostgreSQL version of migration 16. It mirrors the SQLite file of the same name
-- (server/src/store/migrations/0016_summaries_to_top_level.sql): change the two together.

-- runlens schema, version 16: a series keeps block summaries only up to its top level, the
-- lowest level whose one block holds all its points (tracking/series/block.rs, top_level).
-- Above it each level held that same one block again. A level is above the top exactly
-- when the level below it (two powers of two lower) has a single block: those rows go.
DELETE FROM metric_summaries AS s
 WHERE s.level > 6
   AND (SELECT count(*) FROM (
          SELECT 1 FROM metric_summaries AS below
           WHERE below.series_id = s.series_id
             AND below.level = s.level - 2
           LIMIT 2) AS two) = 1;
