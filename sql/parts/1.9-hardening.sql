-- 1.9: hardening.  What 1.9 replaces or adds, one part a concern.

--@include parts/1.9-guard.sql

--@include parts/1.9-batch.sql

--@include parts/1.9-nearest.sql

--@include parts/1.9-messages.sql
