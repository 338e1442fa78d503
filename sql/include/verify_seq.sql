-- Shared by guard_verify.sql and test/citus/cases/72 (\i): the temporary
-- table verify_seq (n, body), the order in which rows are offered to a
-- guard with verification.  Texts: 30 of 30 words and variants with 2 to
-- 16 words replaced (close fingerprints, alike signatures, both fading
-- together), and six topics repeated with tails of their own (close
-- fingerprints, signatures alike or not): rows within 40 bits of an
-- earlier one that verification keeps
CREATE TEMP TABLE verify_words AS
SELECT i, 'w' || i || substr(md5(i::text), 1, 3) AS w FROM generate_series(1, 400) i;
CREATE TEMP TABLE verify_base AS
SELECT d, (SELECT string_agg(w, ' ' ORDER BY g) FROM generate_series(1, 30) g
           JOIN verify_words ON i = 1 + (d * 131 + g * 37 + g * g * 7) % 400) AS body
FROM generate_series(1, 30) d;
CREATE TEMP TABLE verify_seq AS
SELECT row_number() OVER (ORDER BY (d * 7 + j * 13) % 41, d, j) AS n, body FROM (
	SELECT d, 0 AS j, body FROM verify_base
	UNION ALL
	SELECT b.d, j, (SELECT string_agg(CASE WHEN g <= j THEN 'x' || g || 'y' || b.d
	                                       ELSE split_part(b.body, ' ', g) END, ' ' ORDER BY g)
	                FROM generate_series(1, 30) g)
	FROM verify_base b, generate_series(2, 16, 2) j WHERE (b.d + j) % 3 <> 0
	UNION ALL
	SELECT 100 + t, m, repeat('topic' || t || 'a topic' || t || 'b topic' || t || 'c ', 40) ||
		(SELECT string_agg('tail' || ((t * 5 + m * 3 + g) % 9), ' ') FROM generate_series(1, 1 + m % 5) g)
	FROM generate_series(1, 6) t, generate_series(1, 12) m) s;
