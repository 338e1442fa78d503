/*
 * fuzz_backend.c
 *		libFuzzer harness for the extension's own parsers and tokenizers,
 *		compiled from the real src/ files against the real server headers
 *		(backend services from pg_shim.c).  Built with AddressSanitizer and
 *		UndefinedBehaviorSanitizer by test/fuzz/run; the environment variable
 *		SIMHASH_FUZZ_TARGET picks the target:
 *
 *	type		simhash_in / simhash_out and simhash_ball_in / simhash_ball_out
 *				on arbitrary C strings: accepted exactly when the text has
 *				the documented form, the value is the one the text spells,
 *				output is the canonical lower-case form and reads back as the
 *				same value, and every rejection is 22P02 quoting the text.
 *	tokenize	to_simhash(text), simhash_ngram(text, n), simhash_shingle(text,
 *				n) on arbitrary bytes (first byte: n, see pick_n()):
 *				equal to a plain reference tokenizer written here from the
 *				contract (doc/contract.md),
 *				the same for 1-byte and 4-byte varlena headers and whatever
 *				fresh palloc memory holds, unchanged by replacing ill-formed
 *				UTF-8 with U+FFFD (maximal subparts, decoded independently
 *				here), by lower-casing ASCII letters and by a trailing space;
 *				n outside 1..64 is 22023 and nothing else ever errors.
 *	features	the tokenizers' feature table (ft_add, src/text/tokenize.c) on
 *				arbitrary byte strings (the input split at its first byte):
 *				distinct features in first-occurrence order with their
 *				counts, a consistent text and hash table (lib/simplehash.h:
 *				one bucket per feature, each found by its hash), and the
 *				fingerprint of the reference count.
 *
 * Every palloc'd block is freed after each input (pg_shim.c), so the leak
 * checker sees only the harness's own allocations.
 */
#include "simhash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_shim.h"

/* the real tokenizer source, included to reach its static feature table */
#include "text/tokenize.c"

extern PGDLLEXPORT Datum simhash_ball_in(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_ball_out(PG_FUNCTION_ARGS);

/*
 * The reference code is not instrumented for coverage: the fuzzer learns
 * nothing from it and its comparison hooks would triple the run time.
 */
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))

int			LLVMFuzzerInitialize(int *argc, char ***argv);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum
{
	T_NONE, T_TYPE, T_TOKENIZE, T_FEATURES
}			target = T_NONE;

static void
fail(const char *what, const uint8_t *data, size_t size)
{
	size_t		i;

	fprintf(stderr, "\nsimhash fuzz: %s\ninput (%zu bytes):", what, size);
	for (i = 0; i < size && i < 512; i++)
		fprintf(stderr, " %02x", data[i]);
	if (shim_error.elevel != 0)
		fprintf(stderr, "\nlast ERROR raised for this input: %s (%s)\n",
				shim_error.message, shim_error.detail);
	fprintf(stderr, "\n");
	abort();
}

/* ================= type: text input and output ================= */

/* the oracle's own digit test, by table look-up (the C code compares ranges) */
static int
hexdigit(unsigned char c)
{
	static const char digits[] = "0123456789abcdef0123456789ABCDEF";
	const char *p = c ? memchr(digits, c, sizeof(digits) - 1) : NULL;

	return p ? (int) ((p - digits) % 16) : -1;
}

/* 16 hex digits at s -> *v; false if any is not one */
static bool
parse_hex16(const char *s, uint64 *v)
{
	int			i;

	*v = 0;
	for (i = 0; i < 16; i++)
	{
		int			d = hexdigit((unsigned char) s[i]);

		if (d < 0)
			return false;
		*v = (*v << 4) | (uint64) d;
	}
	return true;
}

/* The last ERROR was 22P02 with the message the docs give for this type */
static bool
is_syntax_error(const char *type, const char *text)
{
	char		want[sizeof(shim_error.message)];

	snprintf(want, sizeof(want), "invalid input syntax for type %s: \"%s\"",
			 type, text);
	return shim_error.sqlerrcode == ERRCODE_INVALID_TEXT_REPRESENTATION &&
		strcmp(shim_error.message, want) == 0;
}

/*
 * The documented simhash_ball form: '(', 16 hex digits, ',', white space,
 * an optional sign, decimal digits of a value in int32 range, ')'.
 */
static bool
parse_ball(const char *s, uint64 *center, int32 *radius)
{
	const char *p;
	bool		neg = false;
	int64		r = 0;
	int			ndig = 0;

	if (s[0] != '(' || strlen(s) < 18 || s[17] != ',' ||
		!parse_hex16(s + 1, center))
		return false;
	p = s + 18;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\v' ||
		   *p == '\f' || *p == '\r')
		p++;
	if (*p == '+' || *p == '-')
		neg = (*p++ == '-');
	while (*p >= '0' && *p <= '9')
	{
		if (r <= (int64) PG_INT32_MAX + 1)
			r = r * 10 + (*p - '0');
		p++;
		ndig++;
	}
	if (ndig == 0 || strcmp(p, ")") != 0)
		return false;
	if (neg)
		r = -r;
	if (r < PG_INT32_MIN || r > PG_INT32_MAX)
		return false;
	*radius = (int32) r;
	return true;
}

static void
fuzz_type(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t		len = nul ? (size_t) (nul - data) : size;
	char	   *s = malloc(len + 1);	/* exact size: no slack to read */
	uint64		v = 0;
	bool		want;
	Datum		r,
				o;
	int32		radius = 0;
	size_t		i;

	memcpy(s, data, len);
	s[len] = '\0';

	/* simhash: exactly 16 hex digits */
	want = (len == 16 && parse_hex16(s, &v));
	if (shim_call(simhash_in, 1, CStringGetDatum(s), 0, &r) != want)
		fail(want ? "simhash_in rejected 16 hex digits" :
			 "simhash_in accepted a malformed text", data, size);
	if (want)
	{
		char	   *out;

		if (DatumGetSimHash(r) != v)
			fail("simhash_in: wrong value", data, size);
		if (!shim_call(simhash_out, 1, r, 0, &o))
			fail("simhash_out failed", data, size);
		out = DatumGetCString(o);
		if (strlen(out) != 16)
			fail("simhash_out: not 16 characters", data, size);
		for (i = 0; i < 16; i++)
			if (out[i] != ((s[i] >= 'A' && s[i] <= 'F') ? s[i] + 32 : s[i]))
				fail("simhash_out: not the lower-case input", data, size);
	}
	else if (!is_syntax_error("simhash", s))
		fail("simhash_in: wrong error", data, size);
	shim_reset();

	/* simhash_ball */
	want = parse_ball(s, &v, &radius);
	if (shim_call(simhash_ball_in, 1, CStringGetDatum(s), 0, &r) != want)
		fail(want ? "simhash_ball_in rejected a well-formed ball" :
			 "simhash_ball_in accepted a malformed text", data, size);
	if (want)
	{
		SimHashBall *b = (SimHashBall *) DatumGetPointer(r);
		SimHashBall *b2;
		char		expect[64];

		if (b->center != v || b->radius != radius || b->pad != 0)
			fail("simhash_ball_in: wrong value", data, size);
		if (!shim_call(simhash_ball_out, 1, r, 0, &o))
			fail("simhash_ball_out failed", data, size);
		snprintf(expect, sizeof(expect), "(%016llx,%d)",
				 (unsigned long long) v, (int) radius);
		if (strcmp(DatumGetCString(o), expect) != 0)
			fail("simhash_ball_out: not the canonical form", data, size);
		if (!shim_call(simhash_ball_in, 1, o, 0, &r))
			fail("simhash_ball_in rejected simhash_ball_out's text", data, size);
		b2 = (SimHashBall *) DatumGetPointer(r);
		if (b2->center != v || b2->radius != radius)
			fail("simhash_ball: output does not read back", data, size);
	}
	else
	{
		/* a bad centre in a well-framed ball is reported by simhash_in */
		bool		framed = (len >= 20 && s[0] == '(' && s[17] == ',');
		uint64		dummy;
		char		hex[17];

		memcpy(hex, s + (framed ? 1 : 0), framed ? 16 : 0);
		hex[framed ? 16 : 0] = '\0';
		if ((framed && !parse_hex16(hex, &dummy)) ?
			!is_syntax_error("simhash", hex) :
			!is_syntax_error("simhash_ball", s))
			fail("simhash_ball_in: wrong error", data, size);
	}
	shim_reset();
	free(s);
}

/* ================= reference tokenizers ================= */

/* Growable arrays, harness-owned (malloc) */
typedef struct CpArray
{
	uint32	   *v;
	size_t		n,
				cap;
} CpArray;

static NO_COVERAGE void
cp_push(CpArray *a, uint32 c)
{
	if (a->n == a->cap)
	{
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = realloc(a->v, a->cap * sizeof(uint32));
		if (a->v == NULL)
			abort();
	}
	a->v[a->n++] = c;
}

/* Features as they occur, before counting */
typedef struct RefFeatures
{
	char	   *bytes;
	size_t		used,
				cap;
	size_t	   *off;
	size_t	   *len;
	size_t		n,
				max;
} RefFeatures;

static NO_COVERAGE void
rf_begin(RefFeatures *r)
{
	if (r->n == r->max)
	{
		r->max = r->max ? r->max * 2 : 64;
		r->off = realloc(r->off, r->max * sizeof(size_t));
		r->len = realloc(r->len, r->max * sizeof(size_t));
		if (r->off == NULL || r->len == NULL)
			abort();
	}
	r->off[r->n] = r->used;
	r->len[r->n] = 0;
	r->n++;
}

static NO_COVERAGE void
rf_put(RefFeatures *r, const char *b, size_t len)
{
	if (r->bytes == NULL || r->used + len > r->cap)
	{
		if (r->cap == 0)
			r->cap = 1024;
		while (r->used + len > r->cap)
			r->cap *= 2;
		r->bytes = realloc(r->bytes, r->cap);
		if (r->bytes == NULL)
			abort();
	}
	memcpy(r->bytes + r->used, b, len);
	r->used += len;
	r->len[r->n - 1] += len;
}

/* UTF-8 of a scalar value (RFC 3629) */
static NO_COVERAGE int
enc_utf8(uint32 c, char *out)
{
	if (c < 0x80)
	{
		out[0] = (char) c;
		return 1;
	}
	if (c < 0x800)
	{
		out[0] = (char) (0xC0 | (c >> 6));
		out[1] = (char) (0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000)
	{
		out[0] = (char) (0xE0 | (c >> 12));
		out[1] = (char) (0x80 | ((c >> 6) & 0x3F));
		out[2] = (char) (0x80 | (c & 0x3F));
		return 3;
	}
	out[0] = (char) (0xF0 | (c >> 18));
	out[1] = (char) (0x80 | ((c >> 12) & 0x3F));
	out[2] = (char) (0x80 | ((c >> 6) & 0x3F));
	out[3] = (char) (0x80 | (c & 0x3F));
	return 4;
}

static NO_COVERAGE void
rf_put_cp(RefFeatures *r, uint32 c)
{
	char		b[4];

	rf_put(r, b, enc_utf8(c, b));
}

static RefFeatures *sort_rf;

/* Order: bytes (length first), then position */
static NO_COVERAGE int
rf_cmp(const void *a, const void *b)
{
	size_t		i = *(const size_t *) a,
				j = *(const size_t *) b;
	int			c;

	if (sort_rf->len[i] != sort_rf->len[j])
		return sort_rf->len[i] < sort_rf->len[j] ? -1 : 1;
	c = memcmp(sort_rf->bytes + sort_rf->off[i], sort_rf->bytes + sort_rf->off[j],
			   sort_rf->len[i]);
	if (c != 0)
		return c;
	return (i > j) - (i < j);
}

/*
 * Count the features: tf[i] is the number of occurrences of feature i if i
 * is its first occurrence, else 0.  Returns the number of distinct ones.
 */
static NO_COVERAGE size_t
rf_count(RefFeatures *r, uint64 **tfp)
{
	size_t	   *idx = malloc(sizeof(size_t) * (r->n + 1));
	uint64	   *tf = calloc(r->n + 1, sizeof(uint64));
	size_t		i,
				j,
				ndistinct = 0;

	for (i = 0; i < r->n; i++)
		idx[i] = i;
	sort_rf = r;
	qsort(idx, r->n, sizeof(size_t), rf_cmp);
	for (i = 0; i < r->n; i = j)
	{
		for (j = i + 1; j < r->n && r->len[idx[j]] == r->len[idx[i]] &&
			 memcmp(r->bytes + r->off[idx[j]], r->bytes + r->off[idx[i]],
					r->len[idx[i]]) == 0; j++)
			;
		tf[idx[i]] = j - i;		/* idx[i] is the first position */
		ndistinct++;
	}
	free(idx);
	*tfp = tf;
	return ndistinct;
}

/*
 * The contract's fingerprint: distinct features, first-occurrence order.
 * The features are freed: every caller is done with them.
 */
static NO_COVERAGE uint64
rf_fingerprint(RefFeatures *r)
{
	uint64	   *tf;
	SimHashAccum acc;
	size_t		i;
	uint64		fp;

	rf_count(r, &tf);
	simhash_accum_init(&acc);
	for (i = 0; i < r->n; i++)
		if (tf[i] > 0)
			simhash_accum_add(&acc,
							  XXH3_64bits(r->bytes + r->off[i], r->len[i]),
							  simhash_tf_weight(tf[i]));
	fp = simhash_accum_result(&acc);
	free(tf);
	free(r->bytes);
	free(r->off);
	free(r->len);
	memset(r, 0, sizeof(*r));
	return fp;
}

/* toNFKC_Casefold of the bytes, as code points (the Unicode layer) */
static NO_COVERAGE void
normalise(const uint8_t *s, size_t len, CpArray *out)
{
	ShNormIter	it;
	uint32_t	c;

	sh_norm_init(&it, s, len);
	while (sh_norm_next(&it, &c))
		cp_push(out, c);
}

#define CLS(c)	sh_char_class(c)

/* to_simhash(text): word runs; CJK runs give bigrams, or the lone char */
static NO_COVERAGE uint64
ref_text(const CpArray *t)
{
	RefFeatures r = {0};
	size_t		i = 0,
				j,
				k;

	while (i < t->n)
	{
		int			c = CLS(t->v[i]);

		for (j = i; j < t->n && CLS(t->v[j]) == c; j++)
			;
		if (c == SH_CC_WORD)
		{
			rf_begin(&r);
			for (k = i; k < j; k++)
				rf_put_cp(&r, t->v[k]);
		}
		else if (c == SH_CC_CJK && j - i == 1)
		{
			rf_begin(&r);
			rf_put_cp(&r, t->v[i]);
		}
		else if (c == SH_CC_CJK)
		{
			for (k = i; k + 1 < j; k++)
			{
				rf_begin(&r);
				rf_put_cp(&r, t->v[k]);
				rf_put_cp(&r, t->v[k + 1]);
			}
		}
		i = j;
	}
	return rf_fingerprint(&r);
}

/* simhash_ngram: white space runs -> one U+0020, ends trimmed, n-grams */
static NO_COVERAGE uint64
ref_ngram(const CpArray *t, int n)
{
	CpArray		c = {0};
	RefFeatures r = {0};
	size_t		i,
				k;
	bool		space = false;
	uint64		fp;

	for (i = 0; i < t->n; i++)
	{
		if (CLS(t->v[i]) == SH_CC_SPACE)
			space = true;
		else
		{
			if (space && c.n > 0)
				cp_push(&c, 0x20);
			space = false;
			cp_push(&c, t->v[i]);
		}
	}
	for (i = 0; i + n <= c.n; i++)
	{
		rf_begin(&r);
		for (k = 0; k < (size_t) n; k++)
			rf_put_cp(&r, c.v[i + k]);
	}
	if (c.n > 0 && c.n < (size_t) n)
	{
		rf_begin(&r);
		for (k = 0; k < c.n; k++)
			rf_put_cp(&r, c.v[k]);
	}
	fp = rf_fingerprint(&r);
	free(c.v);
	return fp;
}

/* simhash_shingle: tokens (word runs, single CJK chars) n at a time */
static NO_COVERAGE uint64
ref_shingle(const CpArray *t, int n)
{
	size_t	   *start = malloc(sizeof(size_t) * (t->n + 1));
	size_t	   *end = malloc(sizeof(size_t) * (t->n + 1));
	size_t		ntok = 0,
				i = 0,
				j,
				k,
				m;
	RefFeatures r = {0};
	uint64		fp;

	while (i < t->n)
	{
		int			c = CLS(t->v[i]);

		if (c == SH_CC_WORD)
		{
			for (j = i; j < t->n && CLS(t->v[j]) == SH_CC_WORD; j++)
				;
			start[ntok] = i;
			end[ntok++] = j;
			i = j;
		}
		else
		{
			if (c == SH_CC_CJK)
			{
				start[ntok] = i;
				end[ntok++] = i + 1;
			}
			i++;
		}
	}
	/* n consecutive tokens joined by U+0020; fewer than n make one */
	for (i = 0; i == 0 || i + n <= ntok; i++)
	{
		size_t		count = Min(ntok, (size_t) n);

		if (count == 0 || i + count > ntok)
			break;
		rf_begin(&r);
		for (k = 0; k < count; k++)
		{
			if (k > 0)
				rf_put(&r, " ", 1);
			for (m = start[i + k]; m < end[i + k]; m++)
				rf_put_cp(&r, t->v[m]);
		}
	}
	fp = rf_fingerprint(&r);
	free(start);
	free(end);
	return fp;
}

/*
 * Ill-formed UTF-8 -> U+FFFD per maximal subpart (Unicode 15.0, section
 * 3.9, Table 3-7): the bytes that could still begin a well-formed sequence
 * become one U+FFFD, a byte that cannot begin one becomes one U+FFFD.
 */
static NO_COVERAGE size_t
substitute_fffd(const uint8_t *s, size_t len, uint8_t *out)
{
	size_t		i = 0,
				o = 0;

	while (i < len)
	{
		uint8_t		b = s[i];
		int			need;
		uint8_t		lo = 0x80,
					hi = 0xBF;
		size_t		k;

		if (b < 0x80)
		{
			out[o++] = b;
			i++;
			continue;
		}
		if (b >= 0xC2 && b <= 0xDF)
			need = 1;
		else if (b >= 0xE0 && b <= 0xEF)
		{
			need = 2;
			lo = (b == 0xE0) ? 0xA0 : 0x80;
			hi = (b == 0xED) ? 0x9F : 0xBF;
		}
		else if (b >= 0xF0 && b <= 0xF4)
		{
			need = 3;
			lo = (b == 0xF0) ? 0x90 : 0x80;
			hi = (b == 0xF4) ? 0x8F : 0xBF;
		}
		else
			need = 0;			/* 80..C1, F5..FF: never a lead byte */

		/* how far the sequence stays well-formed */
		for (k = 1; need > 0 && k <= (size_t) need && i + k < len; k++)
		{
			uint8_t		lo_k = (k == 1) ? lo : 0x80,
						hi_k = (k == 1) ? hi : 0xBF;

			if (s[i + k] < lo_k || s[i + k] > hi_k)
				break;
		}
		if (need > 0 && k == (size_t) need + 1)
		{
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		}
		else
		{
			out[o++] = 0xEF;
			out[o++] = 0xBF;
			out[o++] = 0xBD;
			i += (need > 0) ? k : 1;
		}
	}
	return o;
}

/* ================= tokenize ================= */

typedef struct Fps
{
	uint64		text,
				ngram,
				shingle;
	bool		ngram_ok,
				shingle_ok;
} Fps;

/* A text datum of exactly the needed size, 1-byte header if asked and possible */
static text *
make_text(const uint8_t *s, size_t len, bool short_header)
{
	char	   *t;

	if (short_header && len + 1 <= VARATT_SHORT_MAX)
	{
		t = malloc(1 + len);
		SET_VARSIZE_SHORT(t, 1 + len);
		memcpy(t + 1, s, len);
	}
	else
	{
		t = malloc(VARHDRSZ + len);
		SET_VARSIZE(t, VARHDRSZ + len);
		memcpy(t + VARHDRSZ, s, len);
	}
	return (text *) t;
}

static const uint8_t *cur_data;
static size_t cur_size;

static void
check_gram_error(int n, const char *what)
{
	char		want[128];

	snprintf(want, sizeof(want), "%s size %d is out of range", what, n);
	if (shim_error.sqlerrcode != ERRCODE_INVALID_PARAMETER_VALUE ||
		strcmp(shim_error.message, want) != 0)
		fail("n out of range: wrong error", cur_data, cur_size);
}

/*
 * fn(t, n) for simhash_ngram or simhash_shingle: raises an error exactly when
 * n is outside 1..MAX_GRAM, and then the documented one.  Returns whether it
 * succeeded, with the fingerprint in *out.
 */
static bool
call_gram(PGFunction fn, const char *name, const char *what, text *t, int n,
		  SimHash *out)
{
	bool		n_ok = (n >= 1 && n <= MAX_GRAM);
	Datum		r;
	bool		ok = shim_call(fn, 2, PointerGetDatum(t), Int32GetDatum(n), &r);
	char		msg[64];

	if (ok != n_ok)
	{
		snprintf(msg, sizeof(msg), n_ok ? "%s raised an error" :
				 "%s accepted n out of range", name);
		fail(msg, cur_data, cur_size);
	}
	if (ok)
		*out = DatumGetSimHash(r);
	else
		check_gram_error(n, what);
	shim_reset();
	return ok;
}

static Fps
fingerprints(const uint8_t *s, size_t len, int n, bool short_header,
			 unsigned char fill)
{
	text	   *t = make_text(s, len, short_header);
	Fps			f = {0};
	Datum		r;

	shim_fill_byte = fill;
	if (!shim_call(simhash_from_text, 1, PointerGetDatum(t), 0, &r))
		fail("to_simhash(text) raised an error", cur_data, cur_size);
	f.text = DatumGetSimHash(r);
	shim_reset();

	f.ngram_ok = call_gram(simhash_ngram, "simhash_ngram", "n-gram", t, n,
						   &f.ngram);
	f.shingle_ok = call_gram(simhash_shingle, "simhash_shingle", "shingle", t, n,
							 &f.shingle);
	free(t);
	return f;
}

static void
same_fps(Fps a, Fps b, const char *why)
{
	char		msg[256];

	if (a.text != b.text || a.ngram != b.ngram || a.shingle != b.shingle)
	{
		snprintf(msg, sizeof(msg),
				 "%s: text %016llx/%016llx ngram %016llx/%016llx shingle %016llx/%016llx",
				 why, (unsigned long long) a.text, (unsigned long long) b.text,
				 (unsigned long long) a.ngram, (unsigned long long) b.ngram,
				 (unsigned long long) a.shingle, (unsigned long long) b.shingle);
		fail(msg, cur_data, cur_size);
	}
}

/*
 * n from the first byte: half the time 1..8 (the sizes people use, and
 * cheap), else 1..64, sometimes out of range
 */
static int
pick_n(uint8_t b)
{
	static const int bad[] = {0, -1, 65, 66, -64, 1000, PG_INT32_MIN, PG_INT32_MAX};

	if (b < 128)
		return 1 + b % 8;
	if (b < 240)
		return 1 + b % MAX_GRAM;
	return bad[(b - 240) % lengthof(bad)];
}

static void
fuzz_tokenize(const uint8_t *data, size_t size)
{
	const uint8_t *s = data + 1;
	size_t		len = size - 1;
	int			n;
	Fps			a,
				b;
	CpArray		cps = {0};
	uint8_t    *alt;
	size_t		altlen,
				i;

	if (size < 1)
		return;
	n = pick_n(data[0]);
	cur_data = data;
	cur_size = size;

	a = fingerprints(s, len, n, false, 0x00);

	/* the contract, from a plain reference tokenizer */
	normalise(s, len, &cps);
	b.text = ref_text(&cps);
	b.ngram = a.ngram_ok ? ref_ngram(&cps, n) : 0;
	b.shingle = a.shingle_ok ? ref_shingle(&cps, n) : 0;
	free(cps.v);
	same_fps(a, b, "differs from the reference tokenizer");

	/* same result again, other header, other garbage in fresh memory */
	b = fingerprints(s, len, n, true, 0xFF);
	same_fps(a, b, "not deterministic (varlena header or uninitialised memory)");

	/* ill-formed UTF-8 reads as U+FFFD */
	alt = malloc(len * 3 + 1);
	altlen = substitute_fffd(s, len, alt);
	if (altlen != len || memcmp(alt, s, len) != 0)
	{
		b = fingerprints(alt, altlen, n, false, 0x5A);
		same_fps(a, b, "ill-formed UTF-8 is not read as U+FFFD");
	}

	/* ASCII letters are case-folded */
	for (i = 0; i < len; i++)
		alt[i] = (s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i];
	if (memcmp(alt, s, len) != 0)
	{
		b = fingerprints(alt, len, n, false, 0xA5);
		same_fps(a, b, "ASCII case changes the fingerprint");
	}

	/* a trailing space ends the last token and is trimmed */
	memcpy(alt, s, len);
	alt[len] = ' ';
	b = fingerprints(alt, len + 1, n, false, 0x00);
	same_fps(a, b, "a trailing space changes the fingerprint");
	free(alt);
}

/* ================= features: the feature table ================= */

typedef struct FtRun
{
	FeatureTable ft;
	RefFeatures *r;
	Size		maxfeatures;
	uint64		fp;
} FtRun;

static void
ft_run(void *arg)
{
	FtRun	   *run = arg;
	SimHashAccum acc;
	size_t		i;

	/*
	 * to_simhash's table: each new feature copied after its 4-byte length;
	 * presized for as many features as there are bytes, or not at all
	 */
	ft_init(&run->ft, copied_len, 0, NULL, run->maxfeatures);
	for (i = 0; i < run->r->n; i++)
		ft_add(&run->ft, run->r->bytes + run->r->off[i], run->r->len[i]);
	simhash_accum_init(&acc);
	ft_fingerprint(&run->ft, &acc);
	run->fp = simhash_accum_result(&acc);
}

static void
fuzz_features(const uint8_t *data, size_t size)
{
	RefFeatures r = {0};
	FtRun		run;
	uint64	   *tf;
	size_t		ndistinct,
				i,
				k,
				start,
				used = 0,
				nonempty = 0;
	FeatureTable *t = &run.ft;

	if (size < 1)
		return;
	/* data[1..] split at every occurrence of data[0] */
	for (start = i = 1; i <= size; i++)
		if (i == size || data[i] == data[0])
		{
			rf_begin(&r);
			rf_put(&r, (const char *) data + start, i - start);
			start = i + 1;
		}
	ndistinct = rf_count(&r, &tf);

	run.r = &r;
	run.maxfeatures = (data[0] & 1) ? size : 0;
	if (!shim_try(ft_run, &run))
		fail("the feature table raised an error", data, size);

	if (t->nf != ndistinct || t->nf > t->maxf)
		fail("feature table: wrong number of features", data, size);
	for (i = 0, k = 0; i < r.n; i++)
	{
		Feature    *f;
		Size		flen;

		if (tf[i] == 0)
			continue;
		f = &t->f[k++];
		if (f->off < sizeof(uint32) || f->off > (Size) t->text.len)
			fail("feature table: feature outside the text", data, size);
		flen = t->len_at(t, f->off);
		if (flen != r.len[i] || f->tf != tf[i] ||
			memcmp(t->text.data + f->off, r.bytes + r.off[i], r.len[i]) != 0 ||
			f->h != XXH3_64bits(r.bytes + r.off[i], r.len[i]))
			fail("feature table: wrong feature or count", data, size);
		if (f->off + flen > (Size) t->text.len)
			fail("feature table: feature outside the text", data, size);
		used += sizeof(uint32) + flen;
	}
	if ((Size) t->text.len != used || t->text.len >= t->text.maxlen ||
		t->text.data[t->text.len] != '\0')
		fail("feature table: text size", data, size);

	/* the hash table: one bucket per feature, each found by its hash */
	if ((t->tab->size & (t->tab->size - 1)) != 0 || t->tab->size < 128 ||
		t->tab->members != t->nf || t->nf > t->tab->size * FT_FILLFACTOR ||
		t->maxf < t->nf || t->maxf != ft_fcap_for(t->maxf) ||
		(!t->presized && (t->maxf != ft_fcap_for(t->nf) ||
						  t->tab->size != ft_nbuckets_for(t->nf))))
		fail("feature table: hash table size", data, size);
	for (i = 0; i < t->tab->size; i++)
		if (t->tab->data[i].status == ftab_SH_IN_USE)
		{
			nonempty++;
			if (t->tab->data[i].index >= t->nf)
				fail("feature table: bad bucket", data, size);
		}
		else if (t->tab->data[i].status != ftab_SH_EMPTY)
			fail("feature table: bad bucket status", data, size);
	if (nonempty != t->nf)
		fail("feature table: bucket count", data, size);
	for (k = 0; k < t->nf; k++)
	{
		FeatureBucket *b = ftab_lookup_hash(t->tab, (uint32) k, (uint32) t->f[k].h);

		if (b == NULL || b->index != k)
			fail("feature table: feature not found by its hash", data, size);
	}
	if (run.fp != rf_fingerprint(&r))
		fail("feature table: wrong fingerprint", data, size);

	shim_reset();
	free(tf);
}

/* ================= entry points ================= */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *t = getenv("SIMHASH_FUZZ_TARGET");

	if (t && strcmp(t, "type") == 0)
		target = T_TYPE;
	else if (t && strcmp(t, "tokenize") == 0)
		target = T_TOKENIZE;
	else if (t && strcmp(t, "features") == 0)
		target = T_FEATURES;
	else
	{
		fprintf(stderr, "set SIMHASH_FUZZ_TARGET to type, tokenize or features\n");
		exit(2);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&shim_error, 0, sizeof(shim_error));
	switch (target)
	{
		case T_TYPE:
			fuzz_type(data, size);
			break;
		case T_TOKENIZE:
			fuzz_tokenize(data, size);
			break;
		case T_FEATURES:
			fuzz_features(data, size);
			break;
		case T_NONE:
			abort();
	}
	if (shim_live_blocks() != 0)
		fail("palloc'd memory left after a reset", data, size);
	return 0;
}
