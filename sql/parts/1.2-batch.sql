-- ------------------------------------------------------------------
-- 1.2: simhash_group_pairs, near-duplicate pairs with each set of rows
-- sharing one fingerprint collapsed into one group
-- ------------------------------------------------------------------

--@functions group_pairs
