-- Radius search on the 256-bit column of the distributed table
-- (include/radius.sql: every spelling gives the brute-force answer)
\set w 256
\set type simhash256
\set fp fp256
\set q q256
\set k k256
\i test/citus/include/radius.sql
