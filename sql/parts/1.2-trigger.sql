-- ------------------------------------------------------------------
-- Insert-time deduplication: a trigger that rejects near-duplicates
-- (src/trigger.c)
-- ------------------------------------------------------------------

--@functions trigger
