-- 1.9: nearest.  simhash_nearest_radius no longer describes itself as the
-- radius of a second, nearest-neighbour query: that query is planned
-- before the radius is known, and for a query far from every row it read
-- the whole table through the index (doc/performance.md); simhash_nearest
-- returns the rows.  The same text as the functions.tsv rows, so that an
-- update from 1.8 and a fresh install describe them alike.
COMMENT ON FUNCTION @extschema@.simhash_nearest_radius(regclass, name, @extschema@.simhash, integer) IS
'the smallest radius within which at least n rows of the relation have the column near the query (0..64): the distance of the n-th nearest row; for the rows use simhash_nearest (a second query within this radius is planned before the radius is known and can read the whole table through the index)';
--@widths 128 256
COMMENT ON FUNCTION @extschema@.simhash_nearest_radius(regclass, name, @extschema@.{type}, integer) IS
'the smallest radius within which at least n rows of the relation have the {type} column near the query (0..{bits}): the distance of the n-th nearest row; for the rows use simhash_nearest (a second query within this radius is planned before the radius is known and can read the whole table through the index)';
--@end
