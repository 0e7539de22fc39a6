-- Migration 9 copied every summary into metric_summaries.
DROP TABLE metric_blocks;
