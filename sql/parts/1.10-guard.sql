-- 1.10: the verification stage in the guard of simhash_distributed_guard.
-- A guard made with a signature column and a threshold registers each
-- row's signature beside its fingerprint, and a new row conflicts only
-- with a registry row within k bits whose signature is at least threshold
-- alike by minhash_jaccard: the check reads the registry rows of the block
-- keys under their lock rows, as before, so the race-freedom argument is
-- unchanged.  Its view trigger has nine arguments (the signature column
-- and the threshold last), its table trigger seven (the signature column
-- last); guards made without verification, and by 1.8 and 1.9, keep their
-- seven and six and work as before.

-- One write through a guarded view (see the ten-argument form, now a call
-- of this one): sig_column and threshold (text, as the trigger holds it)
-- both NULL for a guard without verification.  A row whose fingerprint or
-- signature is NULL is written and not registered: it conflicts with none.
--@include parts/guard-write.sql version=1.10

-- The form the view triggers of guards without verification call (one
-- body for both)
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_write(op text, newrow jsonb, oldrow jsonb,
	relation text, registry text, id_column name, fp_column name, fptype text,
	k text, action text,
	OUT stored jsonb, OUT conflict_id bigint, OUT conflict_fp text, OUT new_fp text,
	OUT distance integer)
RETURNS record
--@language sql VOLATILE PARALLEL UNSAFE
	SELECT w.stored, w.conflict_id, w.conflict_fp, w.new_fp, w.distance
	FROM @extschema@.simhash_guard_write(op, newrow, oldrow, relation, registry, id_column, fp_column,
		fptype, k, action, NULL::name, NULL::text) w;
END;

-- The table trigger (see 1.9): with a seventh argument, the signature
-- column, an UPDATE that changes the signature without the view fails as
-- one of the fingerprint does.  Updating the registry instead would let in
-- a signature no one checked: a new one can make the row a near-duplicate.
--@include parts/guard-table-trigger.sql version=1.10

-- Sets up a guard (see 1.9's five-argument form, now a call of this one),
-- with verification when sig_column and threshold are given: a minhash
-- column of the table, registered beside the fingerprint, and the least
-- minhash_jaccard of two rows that conflict.  Both NULL: no verification;
-- another argument NULL: NULL, as a strict function.
--@include parts/guard-setup.sql version=1.10

-- The five-argument form: a guard without verification, as 1.9 made it
CREATE OR REPLACE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text DEFAULT 'reject')
RETURNS regclass
--@language sql VOLATILE STRICT PARALLEL UNSAFE
	SELECT @extschema@.simhash_distributed_guard(relation, id_column, fp_column, k, action,
		NULL::name, NULL::double precision);
END;

-- simhash_guard_check (see 1.9), which also checks the signature column of
-- a guard with verification and compares the registry's signatures with
-- the table's.
--@include parts/guard-check.sql version=1.10
