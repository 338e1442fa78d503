-- ------------------------------------------------------------------
-- Insert-time deduplication: a trigger that rejects near-duplicates
-- (src/guard/trigger.c)
-- ------------------------------------------------------------------

--@functions trigger
