-- Bad-input catalogue: every public function and operator of the extension
-- fed malformed, empty, NULL, huge, NaN/Infinity, negative, zero and
-- mismatched inputs.  Each case shows its result ("= value") or its error
-- ("SQLSTATE: message [detail] {hint}"), which must be the one documented in
-- doc/simhash.md (Errors, Tables 1, 6 and 7) and the README.  Where a result
-- can be derived from the documented rules it is computed a second way and
-- compared, so the expected file states facts, not recordings.  The file
-- ends with a trivial query: the backend survived everything before it.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- every case run through pg_temp.try() is logged here, for the summary
CREATE TEMP TABLE badinput_cases (n serial, q text, result text);

-- show(s): s printable on one line and in ASCII, so the output does not
-- depend on the client encoding: backslash, control characters (\n, \t,
-- \r, \xNN) and non-ASCII characters (\uXXXX, \UXXXXXXXX) escaped; cut after lim
-- characters (with the length); NULL as NULL
CREATE FUNCTION pg_temp.show(s text, lim integer DEFAULT 60) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN s IS NULL THEN 'NULL' ELSE
		coalesce((SELECT string_agg(CASE WHEN c = '' THEN ''
										 WHEN c = '\' THEN '\\'
										 WHEN c = E'\n' THEN '\n'
										 WHEN c = E'\t' THEN '\t'
										 WHEN c = E'\r' THEN '\r'
										 WHEN ascii(c) < 32 OR ascii(c) = 127 THEN '\x' || lpad(to_hex(ascii(c)), 2, '0')
										 WHEN ascii(c) > 65535 THEN '\U' || lpad(to_hex(ascii(c)), 8, '0')
										 WHEN ascii(c) > 127 THEN '\u' || lpad(to_hex(ascii(c)), 4, '0')
										 ELSE c END, '' ORDER BY i)
				  FROM regexp_split_to_table(left(s, lim), '') WITH ORDINALITY x(c, i)), '')
		|| CASE WHEN length(s) > lim THEN '...(' || length(s) || ' chars)' ELSE '' END END
$$;

-- try(q): run q; "= first column of the first row" (NULL if none), "ok" for
-- a statement that returns nothing, or "SQLSTATE: message [detail] {hint}".
-- With full_error = false an error shows its SQLSTATE alone: for errors
-- PostgreSQL raises whose text differs between majors (15..18).
CREATE FUNCTION pg_temp.try(q text, full_error boolean DEFAULT true) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	v text;
	r text;
	st text;
	msg text;
	det text;
	hnt text;
BEGIN
	BEGIN
		IF q ~* '^\s*(select|values|with|table|execute)\M' THEN
			EXECUTE q INTO v;
			r := '= ' || pg_temp.show(v, 100);
		ELSE
			EXECUTE q;
			r := 'ok';
		END IF;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
			det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
		r := st || CASE WHEN NOT full_error THEN '' ELSE ': ' || pg_temp.show(msg, 120)
			|| CASE WHEN det <> '' THEN ' [' || det || ']' ELSE '' END
			|| CASE WHEN hnt <> '' THEN ' {' || hnt || '}' ELSE '' END END;
	END;
	INSERT INTO badinput_cases (q, result) VALUES (q, r);
	RETURN r;
END $$;

-- one-character flags of a boolean: t, f, n (NULL)
CREATE FUNCTION pg_temp.tf(b boolean) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN b THEN 't' WHEN NOT b THEN 'f' ELSE 'n' END $$;

-- ======================================================================
-- 1. Text input of simhash: exactly 16 hex digits, nothing else (22P02)
-- ======================================================================

-- every wrong length: 0..15, 17, 32 and a long one; 16 is the only valid one
SELECT len, pg_temp.try(format('SELECT %L::simhash', left(repeat('f3a90c1e00b2d47f', 7000), len))) AS result
FROM unnest(ARRAY[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 32, 100000]) WITH ORDINALITY u(len, n)
ORDER BY n;

-- every kind of non-hex character, replacing the first or the last digit
-- (the length stays 16 characters, so the digit test must catch it; the
-- multibyte ones make 17..19 bytes)
SELECT pg_temp.show(c) AS ch, octet_length(c) AS bytes, pos,
       pg_temp.try(format('SELECT %L::simhash',
                          CASE pos WHEN 'first' THEN c || right('f3a90c1e00b2d47f', 15)
                                   ELSE left('f3a90c1e00b2d47f', 15) || c END)) AS result
FROM unnest(ARRAY['g', 'z', 'G', 'Z', '-', '+', '.', ',', '_', '/', ':', '@', '`', '~',
                  ' ', E'\t', E'\n', E'\r', chr(11), chr(1), chr(127),
                  U&'\00e9', U&'\00a0', U&'\20ac', U&'\ff10', U&'\ff41', U&'\0663', U&'\+01f600'])
     WITH ORDINALITY u(c, n),
     unnest(ARRAY['first', 'last']) WITH ORDINALITY p(pos, m)
ORDER BY n, m;

-- signs, prefixes, suffixes and white space: all 22P02; upper and mixed
-- case, all zeros and all ones are valid
SELECT pg_temp.show(s) AS input, pg_temp.try(format('SELECT %L::simhash', s)) AS result
FROM unnest(ARRAY[
	'+' || left('f3a90c1e00b2d47f', 15), '-' || left('f3a90c1e00b2d47f', 15),
	'+f3a90c1e00b2d47f', '-f3a90c1e00b2d47f', '-0000000000000000',
	'0x' || left('f3a90c1e00b2d47f', 14), '0xf3a90c1e00b2d47f', '0Xf3a90c1e00b2d47f',
	'\xf3a90c1e00b2d47f', '\x' || left('f3a90c1e00b2d47f', 14),
	'x' || left('f3a90c1e00b2d47f', 15), 'xf3a90c1e00b2d47f',
	'#' || left('f3a90c1e00b2d47f', 15), left('f3a90c1e00b2d47f', 15) || 'h',
	' f3a90c1e00b2d47f', 'f3a90c1e00b2d47f ', 'f3a90c1e 00b2d47f', 'f3a90c1e 00b2d47',
	E'\tf3a90c1e00b2d47f', E'f3a90c1e00b2d47f\n', E'\nf3a90c1e00b2d47f', E'f3a90c1e00b2d47f\r\n',
	'                ', '', 'f3a9-0c1e-00b2-d47f', '{f3a90c1e00b2d47f}', '(f3a90c1e00b2d47f)',
	'F3A90C1E00B2D47F', 'f3A90c1E00B2d47F', '0000000000000000', 'ffffffffffffffff', 'FFFFFFFFFFFFFFFF'])
     WITH ORDINALITY u(s, n)
ORDER BY n;

-- the same input function through other paths: simhash_in(cstring),
-- text and varchar casts (I/O), char(n) (its padding is white space), arrays,
-- text-format parameters; NULL is NULL everywhere
SELECT pg_temp.try($q$SELECT simhash_in('f3a90c1e00b2d47g')$q$) AS simhash_in_bad,
       pg_temp.try($q$SELECT simhash_in('F3A90C1E00B2D47F')$q$) AS simhash_in_upper,
       pg_temp.try($q$SELECT simhash_in(NULL)$q$) AS simhash_in_null;
SELECT pg_temp.try($q$SELECT 'f3a90c1e00b2d47'::text::simhash$q$) AS text_short,
       pg_temp.try($q$SELECT 'f3a90c1e00b2d47f'::varchar::simhash$q$) AS varchar_ok,
       pg_temp.try($q$SELECT 'f3a90c1e00b2d47f'::char(20)::simhash$q$) AS char20_padded,
       pg_temp.try($q$SELECT NULL::text::simhash$q$) AS text_null;
SELECT pg_temp.try($q$SELECT '{f3a90c1e00b2d47f,f3a90c1e00b2d47}'::simhash[]$q$) AS array_bad_element,
       pg_temp.try($q$SELECT '{f3a90c1e00b2d47f,NULL}'::simhash[]$q$) AS array_null_element;
PREPARE badinput_text_param(simhash) AS SELECT $1;
SELECT pg_temp.try($q$EXECUTE badinput_text_param('0xf3a90c1e00b2d4')$q$) AS text_param_bad,
       pg_temp.try($q$EXECUTE badinput_text_param(NULL)$q$) AS text_param_null;
DEALLOCATE badinput_text_param;
-- text-format COPY reads with the same function
CREATE TABLE badinput_copy (fp simhash);
SELECT pg_temp.try($q$COPY badinput_copy FROM PROGRAM 'printf ''f3a90c1e00b2d47\n'''$q$) AS copy_text_short,
       pg_temp.try($q$COPY badinput_copy FROM PROGRAM 'printf ''\\N\nF3A90C1E00B2D47F\n'''$q$) AS copy_text_null_and_upper;
SELECT fp FROM badinput_copy ORDER BY fp NULLS FIRST;
DROP TABLE badinput_copy;

-- ======================================================================
-- 2. Text input of simhash_ball: (16 hex digits,int4 radius) (22P02)
-- ======================================================================

SELECT pg_temp.show(s) AS input, pg_temp.try(format('SELECT %L::simhash_ball', s)) AS result
FROM unnest(ARRAY[
	'(f3a90c1e00b2d47f,3)', '(F3A90C1E00B2D47F,0)', '(f3a90c1e00b2d47f,-3)', '(f3a90c1e00b2d47f,+3)',
	'(f3a90c1e00b2d47f, 3)', E'(f3a90c1e00b2d47f,\t3)', E'(f3a90c1e00b2d47f,\n3)',
	'(f3a90c1e00b2d47f,2147483647)', '(f3a90c1e00b2d47f,-2147483648)',
	'(f3a90c1e00b2d47f,2147483648)', '(f3a90c1e00b2d47f,-2147483649)',
	'(f3a90c1e00b2d47f,99999999999999999999)',
	'(f3a90c1e00b2d47f,3 )', ' (f3a90c1e00b2d47f,3)', '(f3a90c1e00b2d47f,3) ',
	'(f3a90c1e00b2d47f,)', '(f3a90c1e00b2d47f, )', '(f3a90c1e00b2d47f)', '(f3a90c1e00b2d47f,3',
	'f3a90c1e00b2d47f,3)', '(f3a90c1e00b2d47f,3))', '(f3a90c1e00b2d47f,3,4)', '(f3a90c1e00b2d47f;3)',
	'(f3a90c1e00b2d47f,3.5)', '(f3a90c1e00b2d47f,1e3)', '(f3a90c1e00b2d47f,0x10)', '(f3a90c1e00b2d47f,three)',
	'[f3a90c1e00b2d47f,3]', '(f3a90c1e00b2d47,33)', '(f3a90c1e00b2d47,3)', '(f3a90c1e00b2d47f0,3)',
	'(zzzzzzzzzzzzzzzz,3)', '(0xf3a90c1e00b2d4,3)', '( f3a90c1e00b2d47,3)', '(', '()', ''])
     WITH ORDINALITY u(s, n)
ORDER BY n;
SELECT pg_temp.try($q$SELECT simhash_ball_in('(f3a90c1e00b2d47f,x)')$q$) AS ball_in_bad,
       pg_temp.try($q$SELECT simhash_ball_in(NULL)$q$) AS ball_in_null;
-- the GiST storage type cannot be written at all (0A000), even validly shaped
SELECT pg_temp.try($q$SELECT '(0000000000000000,ffffffffffffffff)'::simhash_gist_key$q$) AS gist_key_in,
       pg_temp.try($q$SELECT ''::simhash_gist_key$q$) AS gist_key_in_empty,
       pg_temp.try($q$SELECT simhash_gist_key_in(NULL)$q$) AS gist_key_in_null;

-- ======================================================================
-- 3. Binary input (simhash_recv, simhash_ball_recv): COPY ... (FORMAT
--    binary) of one field of the given bytes; shorter than 8 (12) bytes is
--    08P01, longer 22P03, a NULL field is NULL
-- ======================================================================

-- copy_binary(table, field): a COPY BINARY stream of one row with one field
-- (NULL: a NULL field), written by printf with octal escapes
CREATE FUNCTION pg_temp.copy_binary(tbl text, field bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	stream bytea := '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
		|| int2send(1::smallint)
		|| CASE WHEN field IS NULL THEN int4send(-1)
				ELSE int4send(length(field)) || field END
		|| int2send(-1::smallint);
	oct text;
BEGIN
	SELECT string_agg('\' || (b >> 6) || ((b >> 3) & 7) || (b & 7), '' ORDER BY i) INTO oct
	FROM (SELECT i, get_byte(stream, i) AS b FROM generate_series(0, length(stream) - 1) i) x;
	RETURN pg_temp.try(format('COPY %I FROM PROGRAM %L (FORMAT binary)', tbl, 'printf ''' || oct || ''''));
END $$;

CREATE TABLE badinput_bin (fp simhash);
SELECT pg_temp.show(encode(f, 'hex')) AS field, length(f) AS bytes, pg_temp.copy_binary('badinput_bin', f) AS result
FROM unnest(ARRAY['\x'::bytea, '\x01'::bytea, '\xf3a90c1e00b2d4'::bytea, '\xf3a90c1e00b2d47f'::bytea,
                  '\xf3a90c1e00b2d47f00'::bytea, '\xf3a90c1e00b2d47ff3a90c1e00b2d47f'::bytea,
                  '\xffffffffffffffff'::bytea, NULL]) WITH ORDINALITY u(f, n)
ORDER BY n;
-- exactly the two valid rows and the NULL one arrived, big-endian
SELECT fp FROM badinput_bin ORDER BY fp NULLS FIRST;

CREATE TABLE badinput_bin_ball (b simhash_ball);
SELECT pg_temp.show(encode(f, 'hex')) AS field, length(f) AS bytes, pg_temp.copy_binary('badinput_bin_ball', f) AS result
FROM unnest(ARRAY['\x'::bytea, '\xf3a90c1e00b2d47f'::bytea, '\xf3a90c1e00b2d47f000000'::bytea,
                  '\xf3a90c1e00b2d47f00000003'::bytea, '\xf3a90c1e00b2d47f0000000300'::bytea,
                  '\x0000000000000000ffffffff'::bytea, '\x000000000000000080000000'::bytea,
                  '\x00000000000000007fffffff'::bytea, NULL]) WITH ORDINALITY u(f, n)
ORDER BY n;
-- the valid ones: radius 3, -1, INT_MIN, INT_MAX (any radius is a ball)
SELECT b FROM badinput_bin_ball ORDER BY b::text NULLS FIRST;
DROP TABLE badinput_bin, badinput_bin_ball;

-- ======================================================================
-- 4. Casts: bit and bit varying of exactly 64 bits, bytea of exactly 8
--    bytes (22023); bigint keeps the 64 bits; no other casts (42846)
-- ======================================================================

SELECT bits, CASE WHEN bits > 0 THEN pg_temp.try(format('SELECT repeat(%L, %s)::bit(%s)::simhash', '1', bits, bits))
                  ELSE 'bit(0) is not a type' END AS from_bit,
       pg_temp.try(format('SELECT repeat(%L, %s)::varbit::simhash', '1', bits)) AS from_varbit
FROM unnest(ARRAY[0, 1, 8, 63, 64, 65, 128, 100000]) WITH ORDINALITY u(bits, n)
ORDER BY n;
SELECT pg_temp.try($q$SELECT B''::simhash$q$) AS empty_bit_literal,
       pg_temp.try($q$SELECT simhash(NULL::bit)$q$) AS bit_null,
       pg_temp.try($q$SELECT ('1' || repeat('0', 63))::varbit::simhash$q$) AS varbit_top_bit;
SELECT bytes, pg_temp.try(format('SELECT decode(repeat(%L, %s), %L)::simhash', 'a5', bytes, 'hex')) AS from_bytea
FROM unnest(ARRAY[0, 1, 7, 8, 9, 16, 1000000]) WITH ORDINALITY u(bytes, n)
ORDER BY n;
SELECT pg_temp.try($q$SELECT simhash(NULL::bytea)$q$) AS bytea_null,
       pg_temp.try($q$SELECT simhash('\x0000000000000001'::bytea)$q$) AS bytea_one;
-- bigint: every value is valid, two's complement
SELECT v, pg_temp.try(format('SELECT (%s)::bigint::simhash', v)) AS to_simhash,
       pg_temp.try(format('SELECT (%s)::bigint::simhash::bigint = (%s)::bigint', v, v)) AS round_trip
FROM unnest(ARRAY['-9223372036854775808', '-1', '0', '1', '9223372036854775807']) WITH ORDINALITY u(v, n)
ORDER BY n;
SELECT pg_temp.try($q$SELECT (9223372036854775808)::bigint::simhash$q$) AS beyond_bigint;
-- no cast from or to other types
SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	'SELECT 1::simhash', 'SELECT 1::smallint::simhash', 'SELECT 1.5::simhash', 'SELECT 1.5::float8::simhash',
	'SELECT true::simhash', 'SELECT ''f3a90c1e00b2d47f''::simhash::integer',
	'SELECT ''f3a90c1e00b2d47f''::simhash::numeric', 'SELECT ''f3a90c1e00b2d47f''::simhash::simhash_ball',
	'SELECT ''(f3a90c1e00b2d47f,3)''::simhash_ball::simhash',
	-- simhash to bit: plain bit is bit(1), the first bit; bit(64) all of them
	'SELECT ''f3a90c1e00b2d47f''::simhash::bit', 'SELECT ''f3a90c1e00b2d47f''::simhash::bit(64)',
	'SELECT ''f3a90c1e00b2d47f''::simhash::bytea', 'SELECT ''f3a90c1e00b2d47f''::simhash::bigint',
	'SELECT ''f3a90c1e00b2d47f''::simhash::text', 'SELECT ''f3a90c1e00b2d47f''::simhash::varchar(4)'])
     WITH ORDINALITY u(q, n)
ORDER BY n;
-- assignment: text to simhash is explicit only; simhash to text is allowed
CREATE TABLE badinput_assign (fp simhash, t text);
SELECT pg_temp.try($q$INSERT INTO badinput_assign (fp) VALUES ('f3a90c1e00b2d47f'::text)$q$) AS text_to_simhash_assignment,
       pg_temp.try($q$INSERT INTO badinput_assign (t) VALUES ('f3a90c1e00b2d47f'::simhash)$q$) AS simhash_to_text_assignment,
       pg_temp.try($q$INSERT INTO badinput_assign (fp) VALUES (12345::bigint)$q$) AS bigint_to_simhash_assignment;
DROP TABLE badinput_assign;

-- ======================================================================
-- 5. Distance, radius, ball and segment: any integer is accepted where
--    documented; never an error except the segment number (22023)
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	'SELECT hamming_distance(''0000000000000000'', ''ffffffffffffffff'')',
	'SELECT hamming_distance_int(''8000000000000000'', ''7fffffffffffffff'')',
	'SELECT ''f3a90c1e00b2d47f''::simhash <-> ''f3a90c1e00b2d47f''',
	'SELECT ''0000000000000000''::simhash <#> ''ffffffffffffffff''',
	'SELECT simhash_cmp(''0000000000000000'', ''ffffffffffffffff'')',
	'SELECT simhash_cmp(''7fffffffffffffff'', ''8000000000000000'')',
	'SELECT simhash_cmp(''ffffffffffffffff'', ''ffffffffffffffff'')',
	'SELECT ''8000000000000000''::simhash > ''7fffffffffffffff''',
	-- simhash_within: k < 0 always false, k >= 64 always true
	'SELECT simhash_within(''f3a90c1e00b2d47f'', ''f3a90c1e00b2d47f'', 0)',
	'SELECT simhash_within(''f3a90c1e00b2d47f'', ''f3a90c1e00b2d47f'', -1)',
	'SELECT simhash_within(''f3a90c1e00b2d47f'', ''f3a90c1e00b2d47f'', -2147483648)',
	'SELECT simhash_within(''0000000000000000'', ''ffffffffffffffff'', 63)',
	'SELECT simhash_within(''0000000000000000'', ''ffffffffffffffff'', 64)',
	'SELECT simhash_within(''0000000000000000'', ''ffffffffffffffff'', 2147483647)',
	'SELECT simhash_within(''0000000000000000'', ''ffffffffffffffff'', 2147483648)',
	-- simhash_ball: any radius; negative contains nothing, >= 64 everything
	'SELECT simhash_ball(''f3a90c1e00b2d47f'', -2147483648)',
	'SELECT simhash_ball(''f3a90c1e00b2d47f'', 2147483647)',
	'SELECT ''f3a90c1e00b2d47f''::simhash <@ simhash_ball(''f3a90c1e00b2d47f'', -1)',
	'SELECT ''f3a90c1e00b2d47f''::simhash <@ simhash_ball(''f3a90c1e00b2d47f'', 0)',
	'SELECT ''0000000000000000''::simhash <@ simhash_ball(''ffffffffffffffff'', 63)',
	'SELECT ''0000000000000000''::simhash <@ simhash_ball(''ffffffffffffffff'', 64)',
	'SELECT simhash_ball(''ffffffffffffffff'', 2147483647) @> ''0000000000000000''::simhash',
	'SELECT simhash_ball(''0000000000000000'', -2147483648) @> ''0000000000000000''::simhash',
	'SELECT ''0000000000000000''::simhash <@ ''(ffffffffffffffff,-2147483648)''',
	'SELECT simhash_in_ball(''0000000000000000'', ''(0000000000000000,0)'')',
	'SELECT simhash_ball_contains(''(0000000000000000,-1)'', ''0000000000000000'')',
	-- the distance domain has no CHECK: any integer casts
	'SELECT (-5)::simhash_distance', 'SELECT 2147483647::simhash_distance',
	'SELECT (''0000000000000000''::simhash <-> ''ffffffffffffffff'')::integer + 0'])
     WITH ORDINALITY u(q, n)
ORDER BY n;
-- simhash_segment: 0..3 only; segments of f3a90c1e00b2d47f are f3a9, 0c1e, 00b2, d47f
SELECT i, pg_temp.try(format('SELECT simhash_segment(%L, %s)', 'f3a90c1e00b2d47f', i)) AS result,
       CASE WHEN i BETWEEN 0 AND 3
            THEN ('x' || substr('f3a90c1e00b2d47f', 4 * i + 1, 4))::bit(16)::integer END AS expected
FROM unnest(ARRAY[-2147483648, -1, 0, 1, 2, 3, 4, 64, 2147483647]) WITH ORDINALITY u(i, n)
ORDER BY n;

-- ======================================================================
-- 6. Distance comparisons with an integer, smallint, bigint or distance
--    (an untyped literal or parameter) radius, on
--    either side: they must compare exactly as plain integers do, whether
--    the radius is a literal, a column, or a parameter of a generic plan,
--    including the extremes of each type and NULL (strict: NULL).  Their
--    support function rewrites them into simhash_within(); the rewrite must
--    not change any answer.
-- ======================================================================

-- pairs at distance 0, 3 and 64
CREATE TABLE badinput_pairs (a simhash, b simhash);
INSERT INTO badinput_pairs VALUES
	('f3a90c1e00b2d47f', 'f3a90c1e00b2d47f'),
	('f3a90c1e00b2d47f', 'f3a90c1e00b2d478'),
	('0000000000000000', 'ffffffffffffffff');

-- cmp_flags(v, typ, mode): for each pair (by distance) the twelve
-- comparisons d < k, k < d, d <= k, k <= d, d = k, k = d, d <> k, k <> d,
-- d >= k, k >= d, d > k, k > d as t/f/n, with k = v::typ given as a
-- literal, as a column (a value known only at run time), or as the
-- parameter of a generic plan; mode plain computes the truth with
-- PostgreSQL's own bigint comparisons (no support function, no rewrite)
CREATE FUNCTION pg_temp.cmp_flags(v text, typ text, mode text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	op text;
	d text := CASE mode WHEN 'plain' THEN '(a <-> b)::integer::bigint' ELSE 'a <-> b' END;
	k text := CASE mode WHEN 'literal' THEN quote_nullable(v) || '::' || typ
						WHEN 'column' THEN 'x.v::' || typ
						WHEN 'generic' THEN '$1'
						ELSE '(' || quote_nullable(v) || '::' || typ || ')::bigint' END;
	parts text[] := '{}';
	q text;
	r text;
BEGIN
	FOREACH op IN ARRAY ARRAY['<', '<=', '=', '<>', '>=', '>'] LOOP
		parts := parts || format('pg_temp.tf(%s %s %s)', d, op, k)
					   || format('pg_temp.tf(%s %s %s)', k, op, d);
	END LOOP;
	q := format('SELECT string_agg(%s, %L ORDER BY a <-> b) FROM badinput_pairs, (SELECT %s::text AS v OFFSET 0) x',
				array_to_string(parts, ' || '), ' ', quote_nullable(v));
	IF mode <> 'generic' THEN
		RETURN pg_temp.try(q);
	END IF;
	EXECUTE format('PREPARE badinput_cmp(%s) AS %s', typ, q);
	PERFORM set_config('plan_cache_mode', 'force_generic_plan', false);
	r := pg_temp.try(format('EXECUTE badinput_cmp(%s)', quote_nullable(v)));
	PERFORM set_config('plan_cache_mode', 'auto', false);
	EXECUTE 'DEALLOCATE badinput_cmp';
	RETURN r;
END $$;

-- each mode must give the plain answer ("same")
SELECT typ, pg_temp.show(v) AS k, substr(plain, 3) AS plain_flags_d0_d3_d64,
       CASE WHEN lit = plain THEN 'same' ELSE lit END AS literal,
       CASE WHEN col = plain THEN 'same' ELSE col END AS "column",
       CASE WHEN gen = plain THEN 'same' ELSE gen END AS generic
FROM (SELECT typ, v, n,
             pg_temp.cmp_flags(v, typ, 'plain') AS plain,
             pg_temp.cmp_flags(v, typ, 'literal') AS lit,
             pg_temp.cmp_flags(v, typ, 'column') AS col,
             pg_temp.cmp_flags(v, typ, 'generic') AS gen
      FROM unnest(ARRAY[
		'integer:-2147483648', 'integer:-2147483647', 'integer:-1', 'integer:0', 'integer:3',
		'integer:64', 'integer:65', 'integer:2147483647', 'integer:',
		'smallint:-32768', 'smallint:-1', 'smallint:0', 'smallint:3', 'smallint:64', 'smallint:32767', 'smallint:',
		'bigint:-9223372036854775808', 'bigint:-2147483649', 'bigint:-1', 'bigint:0', 'bigint:3',
		'bigint:64', 'bigint:65', 'bigint:2147483648', 'bigint:9223372036854775807', 'bigint:',
		-- an untyped radius takes the distance type
		'simhash_distance:-2147483648', 'simhash_distance:-1', 'simhash_distance:0', 'simhash_distance:3',
		'simhash_distance:64', 'simhash_distance:2147483647', 'simhash_distance:'])
	       WITH ORDINALITY u(c, n),
	       LATERAL (SELECT split_part(c, ':', 1) AS typ, nullif(split_part(c, ':', 2), '') AS v) s) x
ORDER BY n;

-- ======================================================================
-- 7. The same comparisons answered by each index (GIN, GIN compact, GiST):
--    extreme radii of each type must give the sequential answer, through
--    the index (a negative radius reads nothing, k >= 16 makes GIN scan
--    everything); NULL radii match nothing
-- ======================================================================

-- operator classes and their options: simhash_gin_ops takes a boolean
-- "compact" (22023 otherwise), simhash_gist_ops none (22023); GIN and GiST
-- are the default classes since 1.1; no class for other access methods
CREATE TABLE badinput_opts (fp simhash);
-- options given to a class that takes none: PostgreSQL's 22023, whose
-- message names the class schema-qualified from 17 on
SELECT q AS query, pg_temp.try(q, full_error => false) AS result
FROM unnest(ARRAY[
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gist (fp simhash_gist_ops(compact = true))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING btree (fp simhash_ops(compact = true))$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;
SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gin_ops(compact = maybe))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gin_ops(compact = 2))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gin_ops(compact = ''))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gin_ops(compression = true))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gin_ops(compact = true, compact = false))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING spgist (fp)$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING brin (fp)$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gist_ops)$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin ((fp::text))$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp simhash_gin_ops(compact = on))$$,
	$$DROP INDEX badinput_opts_i$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gin (fp)$$,
	$$DROP INDEX badinput_opts_i$$,
	$$CREATE INDEX badinput_opts_i ON badinput_opts USING gist (fp)$$,
	$$SELECT opcname FROM pg_opclass c JOIN pg_index i ON c.oid = i.indclass[0] WHERE i.indexrelid = 'badinput_opts_i'::regclass$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;
DROP TABLE badinput_opts;

CREATE TABLE badinput_gin (id integer, fp simhash);
INSERT INTO badinput_gin SELECT i, hashint8extended(i, 11)::simhash FROM generate_series(1, 2000) i;
-- the query itself, its neighbour at 3 bits, its complement, and a NULL
INSERT INTO badinput_gin VALUES (0, 'f3a90c1e00b2d47f'), (2001, 'f3a90c1e00b2d478'),
	(2002, '0c56f3e1ff4d2b80'), (2003, NULL);
CREATE TABLE badinput_gin_compact AS TABLE badinput_gin;
CREATE TABLE badinput_gist AS TABLE badinput_gin;
CREATE INDEX ON badinput_gin USING gin (fp simhash_gin_ops);
CREATE INDEX ON badinput_gin_compact USING gin (fp simhash_gin_ops(compact = true));
CREATE INDEX ON badinput_gist USING gist (fp simhash_gist_ops);
ANALYZE badinput_gin, badinput_gin_compact, badinput_gist;

-- idx_count(table, condition with K, k, typ, mode): the count of rows
-- meeting the condition, K being k::typ as a literal or as the parameter
-- of a generic plan, and whether the plan fell back to a sequential scan
CREATE FUNCTION pg_temp.idx_count(tbl text, cond text, v text, typ text, mode text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	q text := format('SELECT count(*) FROM %I WHERE %s', tbl,
					 replace(cond, 'K', CASE mode WHEN 'generic' THEN '$1'
											ELSE quote_nullable(v) || '::' || typ END));
	line text;
	seq boolean := false;
	r text;
BEGIN
	IF mode = 'generic' THEN
		EXECUTE format('PREPARE badinput_idx(%s) AS %s', typ, q);
		PERFORM set_config('plan_cache_mode', 'force_generic_plan', false);
		q := format('EXECUTE badinput_idx(%s)', quote_nullable(v));
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		seq := seq OR line ~ 'Seq Scan';
	END LOOP;
	r := pg_temp.try(q);
	IF mode = 'generic' THEN
		PERFORM set_config('plan_cache_mode', 'auto', false);
		EXECUTE 'DEALLOCATE badinput_idx';
	END IF;
	RETURN CASE WHEN seq THEN r || ' (seq scan)' ELSE r END;
END $$;

-- idx_all(cond, k, typ, mode): "same" when the three indexes all give the
-- plain count (and none fell back to a sequential scan), else each answer
CREATE FUNCTION pg_temp.idx_all(cond text, v text, typ text, mode text, plain bigint) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t text;
	r text;
	out text[] := '{}';
	ok boolean := true;
BEGIN
	FOREACH t IN ARRAY ARRAY['badinput_gin', 'badinput_gin_compact', 'badinput_gist'] LOOP
		r := pg_temp.idx_count(t, cond, v, typ, mode);
		ok := ok AND r = '= ' || plain;
		out := out || (substr(t, 10) || ' ' || r);
	END LOOP;
	RETURN CASE WHEN ok THEN 'same' ELSE array_to_string(out, ', ') END;
END $$;

-- plain: the count by PostgreSQL's own bigint comparison of the distance
SET enable_seqscan = off;
SELECT cond, typ, pg_temp.show(v) AS k, plain,
       pg_temp.idx_all(c, v, typ, 'literal', plain) AS literal,
       pg_temp.idx_all(c, v, typ, 'generic', plain) AS generic
FROM unnest(ARRAY['fp <-> q <= K', 'fp <-> q < K', 'fp <-> q = K', 'K >= q <-> fp',
                  'simhash_within(fp, q, K)', 'fp <@ simhash_ball(q, K)'])
       WITH ORDINALITY o(cond, n),
     LATERAL (SELECT replace(cond, 'q', '''f3a90c1e00b2d47f''::simhash') AS c) cc,
     unnest(ARRAY['integer:-2147483648', 'integer:-1', 'integer:0', 'integer:3', 'integer:16',
                  'integer:64', 'integer:65', 'integer:2147483647', 'integer:',
                  'smallint:-32768', 'smallint:32767',
                  'bigint:-9223372036854775808', 'bigint:-2147483649', 'bigint:2147483648',
                  'bigint:9223372036854775807', 'bigint:',
                  'simhash_distance:-2147483648', 'simhash_distance:3', 'simhash_distance:2147483647',
                  'simhash_distance:'])
       WITH ORDINALITY u(kc, m),
     LATERAL (SELECT split_part(kc, ':', 1) AS typ, nullif(split_part(kc, ':', 2), '') AS v) s,
     LATERAL (SELECT count(*) AS plain FROM badinput_gin
              WHERE CASE WHEN cond LIKE '%< K' THEN (fp <-> 'f3a90c1e00b2d47f')::integer::bigint < v::bigint
                         WHEN cond LIKE '%= K' AND cond NOT LIKE '%<= K'
                              THEN (fp <-> 'f3a90c1e00b2d47f')::integer::bigint = v::bigint
                         ELSE (fp <-> 'f3a90c1e00b2d47f')::integer::bigint <= v::bigint END) p
-- the functions take only an integer radius
WHERE typ = 'integer' OR cond LIKE '%<->%'
ORDER BY n, m;
RESET enable_seqscan;
DROP TABLE badinput_gin, badinput_gin_compact, badinput_gist;

-- ======================================================================
-- 8. Text fingerprints: to_simhash(text), simhash_ngram, simhash_shingle.
--    Valid text never errors; empty text or text without features gives
--    0000000000000000; n outside 1..64 is 22023.  "= true" rows check a
--    documented equivalence (a text whose features are known equals the
--    fingerprint of that feature list).
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	-- no features: empty, white space, punctuation, symbols, unassigned,
	-- private use and noncharacters, default-ignorable characters only
	$$SELECT to_simhash('')$$,
	$$SELECT to_simhash(E' \t\n\r  ')$$,
	$$SELECT to_simhash('!?.,;:-()[]{}''"/\@#$%^&*_+=|~`<>')$$,
	$$SELECT to_simhash(U&'\0378\E000\FFFF\+10FFFF\+0E01EF')$$,
	$$SELECT to_simhash(U&'\00AD\200B\200D\FEFF')$$,
	$$SELECT to_simhash(repeat('.', 1000000))$$,
	$$SELECT to_simhash(NULL::text)$$,
	-- huge inputs: a million times one word is that word alone (weight
	-- 1 + ln(1e6) > 0); a one-megabyte word is one feature
	$$SELECT to_simhash(repeat('ab ', 1000000)) = to_simhash(ARRAY['ab'])$$,
	$$SELECT to_simhash(repeat('a', 1000000)) = to_simhash(ARRAY[repeat('a', 1000000)])$$,
	$$SELECT to_simhash(repeat(U&'\4E00', 2)) = to_simhash(ARRAY[repeat(U&'\4E00', 2)])$$,
	-- a long run of combining marks (cut into Stream-Safe segments): no crash
	$$SELECT to_simhash('a' || repeat(U&'\0301', 100000)) IS NOT NULL$$,
	$$SELECT to_simhash(repeat(U&'\FDFA', 10000)) IS NOT NULL$$,
	-- NUL cannot be in text: these fail before any simhash function runs
	$$SELECT to_simhash(chr(0))$$,
	$$SELECT to_simhash(convert_from('\x610062'::bytea, 'UTF8'))$$,
	$$SELECT to_simhash(convert_from('\xff'::bytea, 'UTF8'))$$,
	-- n-grams: n in 1..64, shorter text is one feature, empty is no feature
	$$SELECT simhash_ngram('abc', -2147483648)$$,
	$$SELECT simhash_ngram('abc', -1)$$,
	$$SELECT simhash_ngram('abc', 0)$$,
	$$SELECT simhash_ngram('abc', 65)$$,
	$$SELECT simhash_ngram('abc', 2147483647)$$,
	$$SELECT simhash_ngram('', 0)$$,
	$$SELECT simhash_ngram(NULL, 0)$$,
	$$SELECT simhash_ngram('abc', NULL)$$,
	$$SELECT simhash_ngram('abc', 1) = to_simhash(ARRAY['a', 'b', 'c'])$$,
	$$SELECT simhash_ngram('abc', 64) = to_simhash(ARRAY['abc'])$$,
	$$SELECT simhash_ngram('ab') = to_simhash(ARRAY['ab'])$$,
	$$SELECT simhash_ngram('', 1)$$,
	$$SELECT simhash_ngram(E' \t\n ', 1)$$,
	$$SELECT simhash_ngram(E'  a \t ', 3) = to_simhash(ARRAY['a'])$$,
	$$SELECT simhash_ngram(E'a \t\n b', 3) = to_simhash(ARRAY['a b'])$$,
	$$SELECT simhash_ngram(U&'\FB03', 3) = to_simhash(ARRAY['ffi'])$$,
	$$SELECT simhash_ngram(repeat('a', 1000000), 3) = to_simhash(ARRAY['aaa'])$$,
	-- the longest n-gram: 64 characters of 4 bytes each
	$$SELECT simhash_ngram(repeat(U&'\+01F600', 1000), 64) = to_simhash(ARRAY[repeat(U&'\+01F600', 64)])$$,
	-- shingles: n in 1..64, fewer tokens are one feature, none gives 0
	$$SELECT simhash_shingle('a b c', -2147483648)$$,
	$$SELECT simhash_shingle('a b c', -1)$$,
	$$SELECT simhash_shingle('a b c', 65)$$,
	$$SELECT simhash_shingle('a b c', 2147483647)$$,
	$$SELECT simhash_shingle(NULL, 3)$$,
	$$SELECT simhash_shingle('a b c', NULL)$$,
	$$SELECT simhash_shingle('', 1)$$,
	$$SELECT simhash_shingle('!!! ???', 1)$$,
	$$SELECT simhash_shingle('a b c', 1) = to_simhash(ARRAY['a', 'b', 'c'])$$,
	$$SELECT simhash_shingle('a, b; c', 64) = to_simhash(ARRAY['a b c'])$$,
	$$SELECT simhash_shingle(U&'\8FD1\4F3C', 1) = to_simhash(ARRAY[U&'\8FD1', U&'\4F3C'])$$,
	$$SELECT simhash_shingle(repeat('x ', 100000), 64) = to_simhash(ARRAY[rtrim(repeat('x ', 64))])$$,
	$$SELECT simhash_shingle(repeat('y', 100000) || ' z', 2) = to_simhash(ARRAY[repeat('y', 100000) || ' z'])$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;

-- ======================================================================
-- 9. Feature arrays: to_simhash(text[]) and to_simhash(text[], float8[]).
--    Empty arrays give 0000000000000000; a multi-dimensional array is
--    2202E, a NULL element 22004 (naming it), lengths that differ 2202E,
--    a NaN or infinite weight 22023, a sum beyond double precision 22003.
--    ('{{}}' is not here: 15 and 16 reject it as a literal, 17 reads it as
--    the empty array, which is '{}' below.)
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	$$SELECT to_simhash('{}'::text[])$$,
	$$SELECT to_simhash(NULL::text[])$$,
	$$SELECT to_simhash(ARRAY[''])$$,
	$$SELECT to_simhash('{{a}}'::text[])$$,
	$$SELECT to_simhash('{{{a,b}},{{c,d}}}'::text[])$$,
	$$SELECT to_simhash(ARRAY[NULL::text])$$,
	$$SELECT to_simhash(ARRAY['a', 'b', NULL])$$,
	$$SELECT to_simhash('[5:6]={a,b}'::text[]) = to_simhash(ARRAY['a', 'b'])$$,
	$$SELECT to_simhash('[-3:-2]={a,b}'::text[]) = to_simhash(ARRAY['a', 'b'])$$,
	$$SELECT to_simhash(array_fill('a'::text, ARRAY[1000000])) = to_simhash(ARRAY['a'])$$,
	$$SELECT to_simhash(ARRAY[repeat('q', 1000000)]) IS NOT NULL$$,
	-- weighted: shapes
	$$SELECT to_simhash('{}'::text[], '{}'::float8[])$$,
	$$SELECT to_simhash('{}'::text[], ARRAY[1.0])$$,
	$$SELECT to_simhash(ARRAY['a'], '{}'::float8[])$$,
	$$SELECT to_simhash(NULL::text[], ARRAY[1.0])$$,
	$$SELECT to_simhash(ARRAY['a'], NULL::float8[])$$,
	$$SELECT to_simhash('{{a}}'::text[], '{{1}}'::float8[])$$,
	$$SELECT to_simhash(ARRAY['a'], '{{1}}'::float8[])$$,
	$$SELECT to_simhash(ARRAY['a', NULL], ARRAY[1.0, 2.0])$$,
	$$SELECT to_simhash(ARRAY['a', 'b'], ARRAY[1.0, NULL])$$,
	$$SELECT to_simhash(ARRAY['a', 'b', 'c'], ARRAY[1.0, 2.0])$$,
	$$SELECT to_simhash('[0:1]={a,b}'::text[], '[7:8]={2,3}'::float8[]) = to_simhash(ARRAY['a', 'b'], ARRAY[2, 3])$$,
	-- weighted: values.  Zero weights tie every bit (0); a negative weight
	-- flips every bit of the feature's hash; any positive weight, however
	-- small or large, gives the hash itself
	$$SELECT to_simhash(ARRAY['hello'], ARRAY[0.0])$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY['-0'::float8])$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY[-1.0]) = (~to_simhash(ARRAY['hello'])::bigint)::simhash$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY['4.9e-324'::float8]) = to_simhash(ARRAY['hello'])$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY['1.7976931348623157e308'::float8]) = to_simhash(ARRAY['hello'])$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY['-1.7976931348623157e308'::float8]) = (~to_simhash(ARRAY['hello'])::bigint)::simhash$$,
	$$SELECT to_simhash(ARRAY['a', 'a'], ARRAY[1e308, -1e308])$$,
	$$SELECT to_simhash(ARRAY['a', 'a'], ARRAY[-1.7e308, -1.7e308])$$,
	$$SELECT to_simhash(ARRAY['a', 'a', 'a'], ARRAY[1.7e308, 1.7e308, -1.7e308])$$,
	$$SELECT to_simhash(ARRAY['a'], ARRAY['NaN'::float8])$$,
	$$SELECT to_simhash(ARRAY['a'], ARRAY['-Infinity'::float8])$$,
	$$SELECT to_simhash(ARRAY['a', 'b'], ARRAY[1, 'Infinity'::float8])$$,
	$$SELECT to_simhash(ARRAY['a', 'b'], ARRAY[1.7e308, 'NaN'::float8])$$,
	-- other numeric element types convert implicitly to double precision
	$$SELECT to_simhash(ARRAY['hello'], ARRAY[2]) = to_simhash(ARRAY['hello'])$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY[2.5::numeric]) = to_simhash(ARRAY['hello'])$$,
	$$SELECT to_simhash(ARRAY['hello'], ARRAY['NaN'::numeric])$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;

-- ======================================================================
-- 10. Vectors: to_simhash(float8[]) dense and to_simhash(int[], float8[])
--     sparse (real[] converts exactly).  Same shape errors as above;
--     dimensions < 1 or repeated are 22023.
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	$$SELECT to_simhash('{}'::float8[])$$,
	$$SELECT to_simhash('{}'::real[])$$,
	$$SELECT to_simhash(NULL::float8[])$$,
	$$SELECT to_simhash(ARRAY[0, 0, 0]::float8[])$$,
	$$SELECT to_simhash('{{1,2},{3,4}}'::float8[])$$,
	$$SELECT to_simhash(ARRAY[NULL, 1]::float8[])$$,
	$$SELECT to_simhash(ARRAY['NaN']::real[])$$,
	$$SELECT to_simhash(ARRAY['-Infinity']::float8[])$$,
	$$SELECT to_simhash(ARRAY[1, 'Infinity']::real[])$$,
	$$SELECT to_simhash(ARRAY[1.7e308, 1.7e308, 1.7e308]::float8[])$$,
	$$SELECT to_simhash(ARRAY['3.4028235e38', '3.4028235e38']::real[]) = to_simhash(ARRAY[1, 1]::float8[])$$,
	-- negated values flip every bit (1, 2, 4: no sum can be 0, a tie)
	$$SELECT to_simhash(ARRAY[-1, -2, -4]::float8[]) = (~to_simhash(ARRAY[1, 2, 4]::float8[])::bigint)::simhash$$,
	$$SELECT to_simhash('[0:2]={1,2,3}'::float8[]) = to_simhash(ARRAY[1, 2, 3]::float8[])$$,
	$$SELECT to_simhash('[-5:-3]={1,2,3}'::float8[]) = to_simhash(ARRAY[1, 2, 3]::float8[])$$,
	$$SELECT to_simhash(ARRAY[1, 2, 3]) = to_simhash(ARRAY[1, 2, 3]::float8[])$$,
	-- sparse: shapes
	$$SELECT to_simhash('{}'::integer[], '{}'::float8[])$$,
	$$SELECT to_simhash(ARRAY[1], '{}'::float8[])$$,
	$$SELECT to_simhash(ARRAY[1, 2], ARRAY[1.0, 2.0, 3.0])$$,
	$$SELECT to_simhash('{{1}}'::integer[], ARRAY[1.0])$$,
	$$SELECT to_simhash(ARRAY[1], '{{1}}'::float8[])$$,
	$$SELECT to_simhash(ARRAY[NULL, 1], ARRAY[1.0, 2.0])$$,
	$$SELECT to_simhash(ARRAY[1, 2], ARRAY[1.0, NULL])$$,
	$$SELECT to_simhash(NULL::integer[], ARRAY[1.0])$$,
	-- sparse: dimensions
	$$SELECT to_simhash(ARRAY[0], ARRAY[1.0])$$,
	$$SELECT to_simhash(ARRAY[3, -2147483648], ARRAY[1.0, 2.0])$$,
	$$SELECT to_simhash(ARRAY[2147483647, 1, 2147483647], ARRAY[1.0, 2.0, 3.0])$$,
	$$SELECT to_simhash(ARRAY[7, 7], ARRAY[0.0, 0.0])$$,
	$$SELECT to_simhash(ARRAY[2147483647], ARRAY[1.0]) IS NOT NULL$$,
	$$SELECT to_simhash(ARRAY[3, 1, 2], ARRAY[3.0, 1.0, 2.0]) = to_simhash(ARRAY[1, 2, 3]::float8[])$$,
	$$SELECT to_simhash(ARRAY[5], ARRAY[0.0])$$,
	-- sparse: values (checked before the dimensions)
	$$SELECT to_simhash(ARRAY[1], ARRAY['NaN']::real[])$$,
	$$SELECT to_simhash(ARRAY[0], ARRAY['Infinity']::float8[])$$,
	-- large values whose sums stay finite keep their signs (and ties)
	$$SELECT to_simhash(ARRAY[1, 2], ARRAY[8e307, 8e307]) = to_simhash(ARRAY[1, 2], ARRAY[1.0, 1.0])$$,
	$$SELECT to_simhash(ARRAY[1, 2, 3], ARRAY[1.7e308, 1.7e308, 1.7e308])$$,
	-- a million dimensions, dense and as sparse pairs in reverse order
	$$SELECT to_simhash(array_agg(i % 7 - 3.0 ORDER BY i)) = to_simhash(array_agg(i ORDER BY i DESC), array_agg(i % 7 - 3.0 ORDER BY i DESC)) FROM generate_series(1, 1000000) i$$,
	-- dimension arrays are integer[]: bigint[] and numeric[] do not convert
	$$SELECT to_simhash(ARRAY[1::bigint], ARRAY[1.0])$$,
	$$SELECT to_simhash(ARRAY[1.5], ARRAY[1.0])$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;

-- ======================================================================
-- 11. tsvector: lexemes weighted by their number of positions, 1 when
--     stripped; an empty tsvector gives 0000000000000000
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	$$SELECT to_simhash(''::tsvector)$$,
	$$SELECT to_simhash(to_tsvector('simple', ''))$$,
	$$SELECT to_simhash(to_tsvector('simple', '!!! ...'))$$,
	$$SELECT to_simhash(NULL::tsvector)$$,
	$$SELECT to_simhash('hello'::tsvector) = to_simhash(ARRAY['hello'])$$,
	$$SELECT to_simhash('hello:1,2,3'::tsvector) = to_simhash(ARRAY['hello'], ARRAY[3])$$,
	$$SELECT to_simhash(strip('hello:1,2,3 world:4'::tsvector)) = to_simhash(ARRAY['hello', 'world'])$$,
	$$SELECT to_simhash('a:1A b:2D'::tsvector) = to_simhash('a:1 b:2'::tsvector)$$,
	$$SELECT to_simhash(to_tsvector('simple', repeat('lexeme ', 100000))) = to_simhash(ARRAY['lexeme'])$$,
	$$SELECT to_simhash(array_to_tsvector(array_agg('w' || i))) IS NOT NULL FROM generate_series(1, 100000) i$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;

-- ======================================================================
-- 12. simhash_agg: no rows or only NULL rows give NULL; a row with weight 0
--     is a row (ties: 0000000000000000); NaN or infinite weights 22023;
--     sums beyond double precision 22003
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	$$SELECT simhash_agg(t) FROM (SELECT 'a'::text WHERE false) v(t)$$,
	$$SELECT simhash_agg(t, 1.0) FROM (SELECT 'a'::text WHERE false) v(t)$$,
	$$SELECT count(*) FROM (SELECT g, simhash_agg(t) FROM (SELECT 1, 'a'::text WHERE false) v(g, t) GROUP BY g) x$$,
	$$SELECT simhash_agg(t, w) FROM (VALUES (NULL::text, 'NaN'::float8), ('a', NULL)) v(t, w)$$,
	$$SELECT simhash_agg(t, w) FROM (VALUES ('a', 0.0::float8)) v(t, w)$$,
	$$SELECT simhash_agg(t, w) = to_simhash(ARRAY['a', 'b'], ARRAY[1.5, -2.0]) FROM (VALUES ('a', 1.5::float8), (NULL, 9.0), ('b', -2.0)) v(t, w)$$,
	$$SELECT simhash_agg(t, w) FROM (VALUES ('a', 'Infinity'::float8)) v(t, w)$$,
	$$SELECT simhash_agg(t, w) FROM (VALUES ('a', 1.0::float8), ('b', '-Infinity')) v(t, w)$$,
	$$SELECT simhash_agg(t, w) FROM (VALUES ('a', 1.7e308::float8), ('a', 1.7e308)) v(t, w)$$,
	$$SELECT simhash_agg(t, w) FROM (VALUES ('a', -1.7e308::float8), ('a', -1.7e308)) v(t, w)$$,
	$$SELECT simhash_agg(t, w ORDER BY w) FROM (VALUES ('a', 1e308::float8), ('a', -1e308)) v(t, w)$$,
	$$SELECT simhash_agg('') = to_simhash(ARRAY[''])$$,
	$$SELECT simhash_agg(NULL::text)$$,
	$$SELECT simhash_agg(i::text) = to_simhash(array_agg(i::text ORDER BY i)) FROM generate_series(1, 100000) i$$,
	$$SELECT simhash_agg('x', 1.0) FILTER (WHERE false)$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;

-- ======================================================================
-- 13. simhash_pairs and simhash_clusters: k in 0..16 (22023); the query
--     runs read-only as one cursor and must return (id, fp) rows; NULL
--     arguments give no rows
-- ======================================================================

CREATE TABLE badinput_docs (id bigint, fp simhash);
INSERT INTO badinput_docs VALUES (1, 'f3a90c1e00b2d47f'), (2, 'f3a90c1e00b2d478'), (3, '0c56f3e1ff4d2b80');
CREATE DOMAIN badinput_fp AS simhash;

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	-- radius
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', -2147483648)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', -1)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', 17)$$,
	$$SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM badinput_docs', 2147483647)$$,
	$$SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM badinput_docs', -1)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', NULL)$$,
	$$SELECT count(*) FROM simhash_pairs(NULL, 3)$$,
	$$SELECT count(*) FROM simhash_clusters(NULL, NULL)$$,
	$$SELECT string_agg(format('(%s,%s,%s)', id1, id2, distance), ' ' ORDER BY id1, id2) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', 0)$$,
	$$SELECT string_agg(format('(%s,%s,%s)', id1, id2, distance), ' ' ORDER BY id1, id2) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', 3)$$,
	$$SELECT string_agg(format('(%s,%s,%s)', id1, id2, distance), ' ' ORDER BY id1, id2) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', 16)$$,
	$$SELECT string_agg(format('(%s,%s)', id, cluster_id), ' ' ORDER BY id) FROM simhash_clusters('SELECT id, fp FROM badinput_docs', 16)$$,
	-- the query: not one read-only statement
	$$SELECT count(*) FROM simhash_pairs('', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('   ', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs; SELECT id, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('CREATE TABLE badinput_never (id bigint)', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('INSERT INTO badinput_docs VALUES (9, NULL) RETURNING id, fp', 3)$$,
	$$SELECT count(*) FROM simhash_clusters('WITH d AS (DELETE FROM badinput_docs RETURNING id, fp) SELECT * FROM d', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs WHERE id = $1', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs FOR UPDATE', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id / 0, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM', 3)$$,
	-- the query: wrong columns (42804), unless it returns no rows
	$$SELECT count(*) FROM simhash_pairs('SELECT', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id::numeric, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id::text, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp::text FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp::bigint FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp::badinput_fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id::text, fp::text FROM badinput_docs WHERE false', 3)$$,
	-- ids: integer and smallint accepted, NULL id with a fingerprint 22004,
	-- NULL fingerprints skipped, extreme and repeated ids
	$$SELECT count(*) FROM simhash_pairs('SELECT id::integer, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_clusters('SELECT id::smallint, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT NULL::bigint, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_clusters('SELECT NULL::bigint, fp FROM badinput_docs', 3)$$,
	$$SELECT count(*) FROM simhash_clusters('SELECT NULL::bigint, NULL::simhash FROM badinput_docs', 3)$$,
	$$SELECT string_agg(format('(%s,%s,%s)', id1, id2, distance), ' ' ORDER BY id1, id2) FROM simhash_pairs('VALUES (9223372036854775807::bigint, ''f3a90c1e00b2d47f''::simhash), (-9223372036854775808, ''f3a90c1e00b2d47f'')', 0)$$,
	$$SELECT string_agg(format('(%s,%s)', id, cluster_id), ' ' ORDER BY id) FROM simhash_clusters('VALUES (9223372036854775807::bigint, ''f3a90c1e00b2d47f''::simhash), (-9223372036854775808, ''f3a90c1e00b2d47f'')', 0)$$,
	$$SELECT count(*) FROM simhash_pairs('VALUES (5::bigint, ''f3a90c1e00b2d47f''::simhash), (5, ''f3a90c1e00b2d47f'')', 0)$$,
	$$SELECT string_agg(format('(%s,%s)', id, cluster_id), ' ' ORDER BY id) FROM simhash_clusters('VALUES (5::bigint, ''f3a90c1e00b2d47f''::simhash), (5, ''0c56f3e1ff4d2b80'')', 0)$$,
	-- mismatched argument types
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', 3.0)$$,
	$$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM badinput_docs', 3::bigint)$$,
	$$SELECT count(*) FROM simhash_pairs(42, 3)$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;
-- nothing above changed the table
SELECT id, fp FROM badinput_docs ORDER BY id;

-- ======================================================================
-- 14. Settings.  simhash has one setting, simhash.batch_kernel (since
--     1.11; a loop the CPU lacks is 22023); maintenance_work_mem bounds
--     the batch functions (54000 beyond it, unless they spill)
-- ======================================================================

SELECT name, setting, enumvals, context FROM pg_settings WHERE name LIKE 'simhash.%';
SELECT pg_temp.try($q$SET simhash.batch_kernel = 'sse'$q$) AS unknown_loop,
       pg_temp.try($q$SET simhash.batch_kernel = ''$q$) AS empty_loop,
       pg_temp.try($q$SET simhash.batch_kernel = 'portable'$q$) AS portable_loop;
RESET simhash.batch_kernel;
-- the prefix is reserved once the library is loaded (it is by now): a name
-- under it is an error, never accepted as a custom variable
SELECT pg_temp.try($q$SET simhash.k = 'not a number'$q$) AS reserved_prefix,
       pg_temp.try($q$SELECT to_simhash(ARRAY['hello'])$q$) AS unchanged;
SET maintenance_work_mem = '1MB';
-- simhash_pairs and simhash_clusters spill to temporary files beyond it
-- (since 1.11; sql/batch_spill.sql); the other forms fail
SELECT pg_temp.try($q$SELECT count(*) FROM simhash_pairs('SELECT i, hashint8extended(i, 3)::simhash FROM generate_series(1, 50000) i', 0)$q$) AS pairs_50000_rows_1mb;
SELECT pg_temp.try($q$SELECT count(*) FROM simhash_clusters('SELECT i, hashint8extended(i, 3)::simhash FROM generate_series(1, 25000) i', 0)$q$) AS clusters_25000_rows_1mb;
SELECT pg_temp.try($q$SELECT count(*) FROM simhash_group_pairs('SELECT i, hashint8extended(i, 3)::simhash FROM generate_series(1, 50000) i', 0)$q$) AS group_pairs_50000_rows_1mb;
SELECT pg_temp.try($q$SELECT count(*) FROM simhash_clusters('SELECT i, hashint8extended(i, 3)::simhash, to_minhash(i::text) FROM generate_series(1, 25000) i', 0, 0.5)$q$) AS verified_clusters_25000_rows_1mb;
SELECT pg_temp.try($q$SELECT count(*) FROM simhash_pairs('SELECT i, hashint8extended(i, 3)::simhash FROM generate_series(1, 20000) i', 0)$q$) AS pairs_20000_rows_1mb;
-- it bounds the n-gram and shingle tokenizers too: a long text of few
-- distinct features needs little more than the text itself (1 MB here, the
-- table starts larger for a long text and gives that back), one whose text
-- alone needs 2 MB fails
SET maintenance_work_mem = '1100kB';
SELECT pg_temp.try($q$SELECT simhash_ngram(repeat('a', 600000), 3) = to_simhash(ARRAY['aaa'])$q$) AS ngram_600000_bytes_1100kb,
       pg_temp.try($q$SELECT simhash_shingle(repeat('a ', 300000), 3) = to_simhash(ARRAY['a a a'])$q$) AS shingle_600000_bytes_1100kb,
       pg_temp.try($q$SELECT simhash_ngram(repeat('a', 1100000), 3)$q$, full_error => false) AS ngram_1100000_bytes_1100kb;
RESET maintenance_work_mem;
-- below the minimum on every major (1MB up to 16, 64kB from 17): 22023
SELECT pg_temp.try($q$SET maintenance_work_mem = '32kB'$q$, full_error => false) AS below_minimum;

-- ======================================================================
-- 15. Mismatched argument types: no form takes them (42883), two untyped
--     literals fit two forms (42725), simhash_ball has no equality or order
-- ======================================================================

SELECT q AS query, pg_temp.try(q) AS result
FROM unnest(ARRAY[
	$$SELECT to_simhash(1)$$,
	$$SELECT to_simhash(1.5)$$,
	$$SELECT to_simhash(NULL)$$,
	$$SELECT to_simhash('{a}', '{1}')$$,
	$$SELECT to_simhash(ARRAY[1], ARRAY['a'])$$,
	$$SELECT to_simhash(ARRAY[true])$$,
	$$SELECT to_simhash('hello'::bytea)$$,
	$$SELECT to_simhash(ARRAY['a'], ARRAY[1.0], ARRAY[2.0])$$,
	$$SELECT simhash_ngram('abc', 3.5)$$,
	$$SELECT simhash_ngram('abc', 3::bigint)$$,
	$$SELECT simhash_shingle(ARRAY['a', 'b'], 2)$$,
	$$SELECT simhash_segment('f3a90c1e00b2d47f', 1::bigint)$$,
	$$SELECT simhash_segment('f3a90c1e00b2d47f', 1::smallint)$$,
	$$SELECT simhash_ball('f3a90c1e00b2d47f', 3::smallint)$$,
	$$SELECT simhash_ball('f3a90c1e00b2d47f', 3::bigint)$$,
	$$SELECT hamming_distance('abc', 'def')$$,
	$$SELECT hamming_distance(1::bigint, 2::bigint)$$,
	$$SELECT 'f3a90c1e00b2d47f'::simhash <-> 3$$,
	$$SELECT 'f3a90c1e00b2d47f'::simhash <-> 'f3a90c1e00b2d47'$$,
	$$SELECT 'f3a90c1e00b2d47f'::simhash = 'not hex'$$,
	$$SELECT 'f3a90c1e00b2d47f'::simhash <@ 3$$,
	$$SELECT 'f3a90c1e00b2d47f'::simhash <-> 'f3a90c1e00b2d47f' <= 3.5$$,
	$$SELECT 'f3a90c1e00b2d47f'::simhash <-> 'f3a90c1e00b2d47f' <= '3'$$,
	$$SELECT simhash_ball('f3a90c1e00b2d47f', 3) = simhash_ball('f3a90c1e00b2d47f', 3)$$,
	$$SELECT count(DISTINCT simhash_ball('f3a90c1e00b2d47f', i)) FROM generate_series(1, 3) i$$,
	$$SELECT simhash_ball('f3a90c1e00b2d47f', i) FROM generate_series(1, 3) i ORDER BY 1 LIMIT 1$$,
	$$SELECT simhash('some text')$$])
     WITH ORDINALITY u(q, n)
ORDER BY n;

-- ======================================================================
-- 16. NULL everywhere, from the catalog: every function of the extension
--     that SQL can call (no internal arguments, not an aggregate) called
--     with each argument NULL in turn, the others valid.  All are strict:
--     NULL (set-returning functions: no rows), but simhash_nearest, whose
--     row argument is a NULL of the table's type (NULL::badinput_docs, a
--     simhash column: the wide queries are 42804).  Then every operator
--     with each operand NULL: NULL.
-- ======================================================================

-- a valid value of each argument type
CREATE FUNCTION pg_temp.sample(t regtype) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE t::text
		WHEN 'simhash' THEN '''f3a90c1e00b2d47f''::simhash'
		WHEN 'simhash_ball' THEN '''(f3a90c1e00b2d47f,3)''::simhash_ball'
		WHEN 'simhash128' THEN 'to_simhash128(''a'')' WHEN 'simhash256' THEN 'to_simhash256(''a'')'
		WHEN 'minhash' THEN 'to_minhash(''a'')'
		WHEN 'simhash128_ball' THEN 'simhash_ball(to_simhash128(''a''), 3)'
		WHEN 'simhash256_ball' THEN 'simhash_ball(to_simhash256(''a''), 3)'
		WHEN 'double precision' THEN '0.5::float8'
		WHEN 'simhash_distance' THEN '3::simhash_distance'
		WHEN 'integer' THEN '3' WHEN 'smallint' THEN '3::smallint' WHEN 'bigint' THEN '3::bigint'
		WHEN 'text' THEN '''SELECT id, fp FROM badinput_docs''::text'
		WHEN 'text[]' THEN 'ARRAY[''a'']' WHEN 'double precision[]' THEN 'ARRAY[1.0::float8]'
		WHEN 'integer[]' THEN 'ARRAY[1]' WHEN 'tsvector' THEN '''a''::tsvector'
		WHEN 'bit' THEN 'repeat(''1'', 64)::bit(64)' WHEN 'bytea' THEN '''\x0102030405060708''::bytea'
		WHEN 'cstring' THEN '''f3a90c1e00b2d47f''::cstring'
		WHEN 'regclass' THEN '''badinput_docs''::regclass' WHEN 'name' THEN '''fp''::name'
		WHEN 'anyelement' THEN 'NULL::badinput_docs'
		WHEN 'bigint[]' THEN 'ARRAY[1, 2]::bigint[]'
		WHEN 'simhash[]' THEN 'ARRAY[''f3a90c1e00b2d47f'', ''f3a90c1e00b2d47e'']::simhash[]'
		WHEN 'simhash128[]' THEN 'ARRAY[to_simhash128(''a''), to_simhash128(''b'')]'
		WHEN 'simhash256[]' THEN 'ARRAY[to_simhash256(''a''), to_simhash256(''b'')]'
		WHEN 'jsonb' THEN '''{}''::jsonb' WHEN 'regtype' THEN '''simhash''::regtype'
		WHEN 'boolean' THEN 'true'
		ELSE 'no sample for ' || t::text END
$$;

SELECT p.oid::regprocedure AS function,
       string_agg(pg_temp.try(format(CASE WHEN p.proretset THEN 'SELECT count(*) FROM %s(%s)' ELSE 'SELECT %s(%s)' END,
                                     p.oid::regproc,
                                     (SELECT string_agg(CASE WHEN a.i = nul.i AND a.t <> 'anyelement'::regtype
                                                             THEN 'NULL::' || format_type(a.t, NULL)
                                                             ELSE pg_temp.sample(a.t) END, ', ' ORDER BY a.i)
                                      FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, i)))),
                  ' | ' ORDER BY nul.i) AS results_with_each_argument_null
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash',
     generate_series(1, p.pronargs) nul(i)
WHERE p.prokind = 'f' AND NOT 'internal'::regtype = ANY (p.proargtypes::oid[])
GROUP BY p.oid
ORDER BY p.oid::regprocedure::text;

SELECT o.oid::regoperator AS operator,
       pg_temp.try(format('SELECT NULL::%s OPERATOR(%s) %s', format_type(o.oprleft, NULL), o.oprname,
                          pg_temp.sample(o.oprright))) AS left_null,
       pg_temp.try(format('SELECT %s OPERATOR(%s) NULL::%s', pg_temp.sample(o.oprleft), o.oprname,
                          format_type(o.oprright, NULL))) AS right_null
FROM pg_operator o
JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
ORDER BY o.oid::regoperator::text;

DROP TABLE badinput_docs, badinput_pairs;
DROP DOMAIN badinput_fp;

-- ======================================================================
-- Summary: how many cases ran, and which SQLSTATEs they met.  No internal
-- error (class XX) and no crash: the backend still answers.
-- ======================================================================

SELECT count(*) AS cases,
       count(*) FILTER (WHERE result ~ '^[0-9A-Z]{5}(: |$)') AS errors,
       count(*) FILTER (WHERE result !~ '^[0-9A-Z]{5}(: |$)') AS results
FROM badinput_cases;
SELECT substr(result, 1, 5) AS sqlstate, count(*) AS cases
FROM badinput_cases WHERE result ~ '^[0-9A-Z]{5}(: |$)'
GROUP BY 1 ORDER BY 1;
SELECT 'alive' AS backend;
