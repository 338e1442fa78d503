-- bench/index/skipped.sql: a note for each method of table method that will
-- not run (active false, with why), then only the others are kept
\pset format unaligned
\pset tuples_only on
SELECT format('note: %s skipped: %s', label, why) FROM method WHERE NOT active ORDER BY ord;
\pset format aligned
\pset tuples_only off
DELETE FROM method WHERE NOT active;
