-- Radius search on the 64-bit column of the distributed table
-- (include/radius.sql: every spelling gives the brute-force answer)
\set w 64
\set type simhash
\set fp fp
\set q q
\set k k64
\i test/citus/include/radius.sql
