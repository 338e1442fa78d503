-- Radius search on the 128-bit column of the distributed table
-- (include/radius.sql: every spelling gives the brute-force answer)
\set w 128
\set type simhash128
\set fp fp128
\set q q128
\set k k128
\i test/citus/include/radius.sql
