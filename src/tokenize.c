/*
 * tokenize.c
 *		Fingerprints of text: the default tokenizer (words and CJK bigrams),
 *		character n-grams and word shingles.
 *
 * Every tokenizer reads the text as UTF-8 after toNFKC_Casefold (Unicode
 * 15.0 tables shipped in src/unicode/unicode_tables.h), so the result depends on
 * neither the database locale, nor collation, nor libc or ICU.  Features are
 * counted (term frequency tf) and each distinct feature is added once, in
 * order of first occurrence, with weight 1 + ln(tf).
 */
#include "simhash.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "unicode_norm.h"

#define MAX_GRAM		64		/* largest n for n-grams and shingles */
#define INTERRUPT_EVERY 65536	/* code points between interrupt checks */

/* ---------- feature table: distinct features with their counts ---------- */

typedef struct Feature
{
	uint64		h;				/* XXH3_64bits of the bytes */
	uint64		tf;				/* occurrences */
	Size		off;			/* bytes at arena + off */
	uint32		len;
} Feature;

typedef struct FeatureSlot
{
	uint64		h;
	int64		idx;
} FeatureSlot;

typedef struct FeatureTable
{
	Feature    *f;				/* in order of first occurrence */
	Size		nf,
				maxf;
	FeatureSlot *slots;			/* open addressing, idx -1 = empty */
	Size		mask;
	char	   *arena;
	Size		used,
				cap;
} FeatureTable;

static void
ft_init(FeatureTable *t)
{
	t->maxf = 64;
	t->nf = 0;
	t->f = palloc(sizeof(Feature) * t->maxf);
	t->mask = 127;
	t->slots = palloc(sizeof(FeatureSlot) * (t->mask + 1));
	memset(t->slots, 0xFF, sizeof(FeatureSlot) * (t->mask + 1));
	t->cap = 1024;
	t->used = 0;
	t->arena = palloc(t->cap);
}

static void
ft_grow_slots(FeatureTable *t)
{
	Size		nslots = (t->mask + 1) * 2;
	Size		i;

	pfree(t->slots);
	t->slots = MemoryContextAllocHuge(CurrentMemoryContext,
									  sizeof(FeatureSlot) * nslots);
	memset(t->slots, 0xFF, sizeof(FeatureSlot) * nslots);
	t->mask = nslots - 1;
	for (i = 0; i < t->nf; i++)
	{
		Size		s = t->f[i].h & t->mask;

		while (t->slots[s].idx >= 0)
			s = (s + 1) & t->mask;
		t->slots[s].h = t->f[i].h;
		t->slots[s].idx = (int64) i;
	}
}

/* memcmp() == 0 without a library call for the short features of text */
static inline bool
bytes_equal(const char *a, const char *b, Size len)
{
	Size		i;

	if (len > 32)
		return memcmp(a, b, len) == 0;
	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Where features.c listens to every feature occurrence (NULL: nobody) */
static SimHashFeatureSink feature_sink = NULL;
static void *feature_sink_arg = NULL;

/* Count one occurrence of the feature bytes[0..len) */
static void
ft_add(FeatureTable *t, const char *bytes, Size len)
{
	uint64		h = simhash_feature_hash(bytes, len);
	Size		s = h & t->mask;
	int64		i;
	Feature    *f;

	if (unlikely(feature_sink != NULL))
		feature_sink(feature_sink_arg, bytes, len);
	while ((i = t->slots[s].idx) >= 0)
	{
		if (t->slots[s].h == h)
		{
			f = &t->f[i];
			if (f->len == len && bytes_equal(t->arena + f->off, bytes, len))
			{
				f->tf++;
				return;
			}
		}
		s = (s + 1) & t->mask;
	}

	if (t->nf == t->maxf)
	{
		t->maxf *= 2;
		t->f = repalloc_huge(t->f, sizeof(Feature) * t->maxf);
	}
	if (t->used + len > t->cap)
	{
		while (t->used + len > t->cap)
			t->cap *= 2;
		t->arena = repalloc_huge(t->arena, t->cap);
	}
	memcpy(t->arena + t->used, bytes, len);
	f = &t->f[t->nf];
	f->h = h;
	f->tf = 1;
	f->off = t->used;
	f->len = (uint32) len;
	t->used += len;
	t->slots[s].h = h;
	t->slots[s].idx = (int64) t->nf;
	t->nf++;
	if (t->nf * 2 > t->mask)
		ft_grow_slots(t);
}

/* The fingerprint of the table: weight 1 + ln(tf), first-occurrence order */
static SimHash
ft_fingerprint(FeatureTable *t)
{
	SimHashAccum acc;
	Size		i;

	simhash_accum_init(&acc);
	for (i = 0; i < t->nf; i++)
		simhash_accum_add(&acc, t->f[i].h, simhash_tf_weight(t->f[i].tf));
	return simhash_accum_result(&acc);
}

/* ---------- a growable byte buffer ---------- */

typedef struct Buf
{
	char	   *data;
	Size		len,
				cap;
} Buf;

static void
buf_init(Buf *b, Size cap)
{
	b->data = palloc(cap);
	b->len = 0;
	b->cap = cap;
}

static inline void
buf_reserve(Buf *b, Size extra)
{
	if (b->len + extra > b->cap)
	{
		while (b->len + extra > b->cap)
			b->cap *= 2;
		b->data = repalloc_huge(b->data, b->cap);
	}
}

static inline void
buf_put_cp(Buf *b, uint32 cp)
{
	buf_reserve(b, 4);
	if (cp < 0x80)
		b->data[b->len++] = (char) cp;
	else
		b->len += sh_utf8_encode(cp, (unsigned char *) b->data + b->len);
}

static inline void
buf_put(Buf *b, const char *s, Size n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

/* ---------- reading normalised text ---------- */

/* Classes of ASCII characters, cached from the Unicode tables */
static uint8 ascii_class[128];
static bool ascii_class_ready = false;

static inline int
char_class(uint32 cp)
{
	return cp < 0x80 ? ascii_class[cp] : sh_char_class(cp);
}

#define READ_CHUNK 256

typedef struct TextReader
{
	ShNormIter	it;
	uint32		n,				/* code points in buf */
				i;				/* next one to return */
	uint32		refills;
	uint32		buf[READ_CHUNK];
} TextReader;

static void
reader_init(TextReader *r, text *t)
{
	int			len;
	const char *u = simhash_to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &len);

	sh_norm_init(&r->it, (const unsigned char *) u, (size_t) len);
	r->n = r->i = r->refills = 0;
	if (!ascii_class_ready)
	{
		uint32		c;

		for (c = 0; c < 0x80; c++)
			ascii_class[c] = (uint8) sh_char_class(c);
		ascii_class_ready = true;
	}
}

/* Next code point of the normalised text; false at the end */
static inline bool
reader_next(TextReader *r, uint32 *cp)
{
	if (r->i == r->n)
	{
		if (++r->refills % (INTERRUPT_EVERY / READ_CHUNK) == 0)
			CHECK_FOR_INTERRUPTS();
		r->n = (uint32) sh_norm_read(&r->it, r->buf, READ_CHUNK);
		r->i = 0;
		if (r->n == 0)
			return false;
	}
	*cp = r->buf[r->i++];
	return true;
}

static int32
check_gram_size(int32 n, const char *what)
{
	if (n < 1 || n > MAX_GRAM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s size %d is out of range", what, n),
				 errdetail("It must be between 1 and %d.", MAX_GRAM)));
	return n;
}

/*
 * to_simhash(text) -> simhash, the default tokenizer.
 *		After toNFKC_Casefold: every maximal run of word characters (letters,
 *		marks, digits not of a CJK script) is a feature; every maximal run of
 *		CJK characters (Han, Hiragana, Katakana, Hangul) gives its
 *		overlapping character bigrams, or the character itself if the run is
 *		one character long.  Everything else separates.  Weight 1 + ln(tf).
 *		Immutable, strict, parallel safe; never errors on valid text.
 */
PG_FUNCTION_INFO_V1(simhash_from_text);
Datum
simhash_from_text(PG_FUNCTION_ARGS)
{
	TextReader	r;
	FeatureTable ft;
	Buf			word;
	char		cjk[8];			/* previous CJK character, then a bigram */
	int			prevlen = 0;
	int			runlen = 0;
	uint32		cp;

	reader_init(&r, PG_GETARG_TEXT_PP(0));
	ft_init(&ft);
	buf_init(&word, 256);

	for (;;)
	{
		bool		more;
		int			cls;

		/* fast path: ASCII word characters outside a CJK run */
		if (r.i < r.n && runlen == 0)
		{
			buf_reserve(&word, r.n - r.i);
			while (r.i < r.n && r.buf[r.i] < 0x80 &&
				   ascii_class[r.buf[r.i]] == SH_CC_WORD)
				word.data[word.len++] = (char) r.buf[r.i++];
		}

		more = reader_next(&r, &cp);
		cls = more ? char_class(cp) : SH_CC_OTHER;
		if (cls != SH_CC_WORD && word.len > 0)
		{
			ft_add(&ft, word.data, word.len);
			word.len = 0;
		}
		if (cls != SH_CC_CJK && runlen > 0)
		{
			if (runlen == 1)
				ft_add(&ft, cjk, prevlen);
			runlen = 0;
		}
		if (!more)
			break;

		if (cls == SH_CC_WORD)
			buf_put_cp(&word, cp);
		else if (cls == SH_CC_CJK)
		{
			int			len;

			if (runlen == 0)
				prevlen = sh_utf8_encode(cp, (unsigned char *) cjk);
			else
			{
				len = sh_utf8_encode(cp, (unsigned char *) cjk + prevlen);
				ft_add(&ft, cjk, prevlen + len);
				memmove(cjk, cjk + prevlen, len);
				prevlen = len;
			}
			runlen++;
		}
	}
	PG_RETURN_SIMHASH(ft_fingerprint(&ft));
}

/*
 * simhash_ngram(text, n integer DEFAULT 3) -> simhash
 *		Overlapping n-grams of characters after toNFKC_Casefold, with every
 *		run of white space turned into one U+0020 and leading and trailing
 *		white space dropped.  A text shorter than n characters is one
 *		feature; an empty one gives 0000000000000000.  Weight 1 + ln(tf).
 *		Error: n outside 1..64 is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_ngram);
Datum
simhash_ngram(PG_FUNCTION_ARGS)
{
	int32		n = check_gram_size(PG_GETARG_INT32(1), "n-gram");
	TextReader	r;
	FeatureTable ft;
	uint32		ring[MAX_GRAM];
	Size		count = 0;		/* characters taken so far */
	bool		pending_space = false;
	char		gram[MAX_GRAM * 4];
	uint32		cp;

	reader_init(&r, PG_GETARG_TEXT_PP(0));
	ft_init(&ft);

	while (reader_next(&r, &cp))
	{
		int			k;

		if (char_class(cp) == SH_CC_SPACE)
		{
			pending_space = (count > 0);
			continue;
		}
		for (k = pending_space ? 0 : 1; k < 2; k++)
		{
			uint32		c = (k == 0) ? 0x20 : cp;

			ring[count % n] = c;
			count++;
			if (count >= (Size) n)
			{
				int			len = 0;
				int			j;

				for (j = 0; j < n; j++)
					len += sh_utf8_encode(ring[(count + j) % n],
										  (unsigned char *) gram + len);
				ft_add(&ft, gram, len);
			}
		}
		pending_space = false;
	}
	if (count > 0 && count < (Size) n)
	{
		int			len = 0;
		Size		j;

		for (j = 0; j < count; j++)
			len += sh_utf8_encode(ring[j], (unsigned char *) gram + len);
		ft_add(&ft, gram, len);
	}
	PG_RETURN_SIMHASH(ft_fingerprint(&ft));
}

/*
 * simhash_shingle(text, n integer DEFAULT 3) -> simhash
 *		Word shingles: the tokens of the default tokenizer (word runs, and
 *		each CJK character on its own) taken n at a time, joined by one
 *		U+0020.  Fewer than n tokens make one shingle; none gives
 *		0000000000000000.  Weight 1 + ln(tf).  Error: n outside 1..64 is
 *		22023.
 */
PG_FUNCTION_INFO_V1(simhash_shingle);
Datum
simhash_shingle(PG_FUNCTION_ARGS)
{
	int32		n = check_gram_size(PG_GETARG_INT32(1), "shingle");
	TextReader	r;
	FeatureTable ft;
	Buf			tok[MAX_GRAM];
	Buf			shingle;
	Buf			cur;
	Size		ntok = 0;
	uint32		cp;
	int			i;

	reader_init(&r, PG_GETARG_TEXT_PP(0));
	ft_init(&ft);
	for (i = 0; i < n; i++)
		buf_init(&tok[i], 64);
	buf_init(&shingle, 256);
	buf_init(&cur, 64);

	for (;;)
	{
		bool		more = reader_next(&r, &cp);
		int			cls = more ? char_class(cp) : SH_CC_OTHER;
		int			ntake = 0;	/* tokens completed by this character */
		int			t;

		if (cls != SH_CC_WORD && cur.len > 0)
			ntake = 1;
		if (cls == SH_CC_CJK)
			ntake++;

		for (t = 0; t < ntake; t++)
		{
			Buf		   *slot = &tok[ntok % n];

			slot->len = 0;
			if (t == 0 && cur.len > 0)
			{
				buf_put(slot, cur.data, cur.len);
				cur.len = 0;
			}
			else
				buf_put_cp(slot, cp);
			ntok++;
			if (ntok >= (Size) n)
			{
				int			j;

				shingle.len = 0;
				for (j = 0; j < n; j++)
				{
					Buf		   *b = &tok[(ntok + j) % n];

					if (j > 0)
						buf_put(&shingle, " ", 1);
					buf_put(&shingle, b->data, b->len);
				}
				ft_add(&ft, shingle.data, shingle.len);
			}
		}
		if (!more)
			break;
		if (cls == SH_CC_WORD)
			buf_put_cp(&cur, cp);
	}
	if (ntok > 0 && ntok < (Size) n)
	{
		Size		j;

		shingle.len = 0;
		for (j = 0; j < ntok; j++)
		{
			if (j > 0)
				buf_put(&shingle, " ", 1);
			buf_put(&shingle, tok[j].data, tok[j].len);
		}
		ft_add(&ft, shingle.data, shingle.len);
	}
	PG_RETURN_SIMHASH(ft_fingerprint(&ft));
}

/*
 * simhash_set_feature_sink(sink, arg)
 *		Until reset with NULL, every tokenizer above calls sink(arg, bytes,
 *		len) for each feature occurrence it counts, in the order it counts
 *		them, with the feature's UTF-8 bytes (valid only during the call).
 *		features.c lists features this way without a tokenizer of its own;
 *		the caller resets the sink on error (PG_FINALLY).
 */
void
simhash_set_feature_sink(SimHashFeatureSink sink, void *arg)
{
	feature_sink = sink;
	feature_sink_arg = arg;
}
