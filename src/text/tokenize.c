/*
 * tokenize.c
 *		Fingerprints of text: the default tokenizer (words and CJK bigrams),
 *		character n-grams and word shingles.
 *
 * Every tokenizer reads the text as UTF-8 after toNFKC_Casefold (Unicode
 * 15.0 tables shipped in src/text/unicode/unicode_tables.h), so the result depends on
 * neither the database locale, nor collation, nor libc or ICU.  Features are
 * counted (term frequency tf) and each distinct feature is added once, in
 * order of first occurrence, with weight 1 + ln(tf).
 */
#include "simhash.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "unicode/unicode_norm.h"

#define MAX_GRAM		64		/* largest n for n-grams and shingles */
#define INTERRUPT_EVERY 65536	/* code points between interrupt checks */

/* Append a code point, UTF-8 encoded, to a StringInfo */
static inline void
append_cp(StringInfo s, uint32 cp)
{
	if (s->len + 4 >= s->maxlen)
		enlargeStringInfo(s, 4);
	s->len += sh_utf8_encode(cp, (unsigned char *) s->data + s->len);
	s->data[s->len] = '\0';
}

/* ---------- feature table: distinct features with their counts ---------- */

/*
 * A distinct feature: its hash, its occurrences and where its bytes are in
 * the table's text.  16 bytes; the bytes themselves are not copied when the
 * features are substrings of the text (n-grams, shingles).
 */
typedef struct Feature
{
	uint64		h;				/* XXH3_64bits of the bytes */
	uint32		off;			/* bytes at text + off */
	uint32		tf;				/* occurrences */
} Feature;

/*
 * A bucket of the hash table over the features (lib/simplehash.h): the
 * feature's index in FeatureTable.f and simplehash's status in one bit (it
 * has two values, empty 0 and in use 1).  4 bytes; a text of under 1 GB has
 * fewer than 2^31 features.
 */
typedef struct FeatureBucket
{
	uint32		index:31,
				status:1;
} FeatureBucket;

#define FT_FILLFACTOR	0.75	/* buckets in use before the table grows */

/* the table's types; its functions are defined below, once it is known */
#define SH_PREFIX		ftab
#define SH_ELEMENT_TYPE FeatureBucket
#define SH_KEY_TYPE		uint32
#define SH_SCOPE		static inline
#define SH_DECLARE
#include "lib/simplehash.h"

struct FeatureTable;

/* The length in bytes of the feature whose bytes start at text + off */
typedef Size (*FeatureLenFn) (const struct FeatureTable *t, Size off);

/*
 * The distinct features of a text in order of first occurrence (f), a hash
 * table of their indexes (tab), and the text their bytes are in.  The
 * feature being counted is not in f yet: its index is nf, its bytes and
 * hash are probe, probe_len and probe_h.  f and tab may start larger than
 * their features need (presized, see ft_init()).
 */
typedef struct FeatureTable
{
	Feature    *f;				/* in order of first occurrence */
	Size		nf,
				maxf;
	ftab_hash  *tab;			/* index of f by the features' bytes */
	StringInfoData text;		/* the bytes the features point into */
	const char *probe;			/* the bytes of feature nf, being counted */
	Size		probe_len;
	uint64		probe_h;
	FeatureLenFn len_at;
	int			n;				/* n of the n-grams or shingles */
	const char *fname;			/* bounded by maintenance_work_mem, or NULL */
	bool		presized;		/* f and tab made for more features at once */
} FeatureTable;

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

/*
 * Are the features with indexes a (in f) and b the same bytes?  b is nf,
 * the feature being counted, except in the lookups of the fuzz harness.
 * Their 64-bit hashes are compared first.
 */
static inline bool
ft_same(const FeatureTable *t, uint32 a, uint32 b)
{
	const Feature *fa = &t->f[a];
	const char *pb;
	Size		lb;

	if (likely(b == t->nf))
	{
		if (fa->h != t->probe_h)
			return false;
		pb = t->probe;
		lb = t->probe_len;
	}
	else
	{
		if (fa->h != t->f[b].h)
			return false;
		pb = t->text.data + t->f[b].off;
		lb = t->len_at(t, t->f[b].off);
	}
	return t->len_at(t, fa->off) == lb &&
		bytes_equal(t->text.data + fa->off, pb, lb);
}

/*
 * The hash table proper.  A bucket's hash is the low 32 bits of its
 * feature's XXH3 hash, already mixed: read from f, never computed again
 * (lookups and inserts are given the hash of the feature being counted).
 * The table grows only in ft_count(), which builds one twice the size after
 * freeing the old one (ft_grow_tab()), so that one bucket array is alive at
 * a time: simplehash's own growth, on reaching the fill factor or on long
 * probe runs, never happens.
 */
#define SH_PREFIX		ftab
#define SH_ELEMENT_TYPE FeatureBucket
#define SH_KEY_TYPE		uint32
#define SH_KEY			index
#define SH_HASH_KEY(tb, key) \
	((uint32) ((FeatureTable *) (tb)->private_data)->f[key].h)
#define SH_EQUAL(tb, a, b)	ft_same((FeatureTable *) (tb)->private_data, a, b)
#define SH_SCOPE		static inline
#define SH_FILLFACTOR	FT_FILLFACTOR
#define SH_GROW_MAX_DIB PG_UINT32_MAX
#define SH_GROW_MAX_MOVE PG_UINT32_MAX
#define SH_USE_NONDEFAULT_ALLOCATOR
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * Does the table fit with f's capacity fcap, a bucket array of tab_bytes and
 * text capacity textcap?  A table with a function name must stay within
 * maintenance_work_mem (16 bytes a feature, grown by half, and the bucket
 * array and the text in bytes); one without always fits.
 */
static inline bool
ft_fits(const FeatureTable *t, Size fcap, Size tab_bytes, Size textcap)
{
	Size		need = fcap * sizeof(Feature) + tab_bytes + textcap;

	return t->fname == NULL || need / 1024 <= (Size) maintenance_work_mem;
}

/* ft_fits() or 54000 */
static void
ft_check_memory(FeatureTable *t, Size fcap, Size tab_bytes, Size textcap)
{
	Size		need = fcap * sizeof(Feature) + tab_bytes + textcap;

	if (!ft_fits(t, fcap, tab_bytes, textcap))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs more than %zu MB of memory for this text",
						t->fname, need / (1024 * 1024)),
				 errdetail("It keeps the normalised text and up to 32 bytes per distinct feature in memory."),
				 errhint("Raise maintenance_work_mem (now %dkB) accordingly.",
						 maintenance_work_mem)));
}

/*
 * simplehash's allocator for the bucket array: zeroed, possibly over 1 GB,
 * and within the table's memory bound (no other bucket array is alive: see
 * ft_grow_tab()).  size is in bytes.
 */
static inline void *
ftab_allocate(ftab_hash *tb, Size size)
{
	FeatureTable *t = (FeatureTable *) tb->private_data;

	ft_check_memory(t, t->maxf, size, t->text.maxlen);
	return MemoryContextAllocExtended(tb->ctx, size,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/* simplehash's release of the bucket array */
static inline void
ftab_free(ftab_hash *tb, void *pointer)
{
	pfree(pointer);
}

/* Bytes of the table's bucket array */
static inline Size
ft_tab_bytes(const FeatureTable *t)
{
	return t->tab->size * sizeof(FeatureBucket);
}

/*
 * A hash table of nbuckets buckets (a power of 2, at most FT_FILLFACTOR of
 * them for f's features) with every feature of f in it.
 */
static void
ft_build_tab(FeatureTable *t, uint64 nbuckets)
{
	Size		i;

	/* simplehash makes nelements / SH_FILLFACTOR buckets, rounded up */
	t->tab = ftab_create(CurrentMemoryContext,
						 (uint32) (nbuckets * FT_FILLFACTOR), t);
	Assert(t->tab->size == nbuckets);
	for (i = 0; i < t->nf; i++)
	{
		bool		found;

		ftab_insert_hash(t->tab, (uint32) i, (uint32) t->f[i].h, &found);
		Assert(!found);
	}
}

/*
 * The hash table at twice the size, rebuilt from f after the old one is
 * freed: one bucket array at a time, as ft_check_memory() counts.
 */
static void
ft_grow_tab(FeatureTable *t)
{
	uint64		nbuckets = t->tab->size * 2;

	ftab_destroy(t->tab);
	t->tab = NULL;
	ft_build_tab(t, nbuckets);
}

/*
 * Most features a table is made for at once: a text that can give at most
 * this many gets room for all of them (about 420 kB), so that its table
 * never grows; a longer one gets room for this many and grows from there.
 */
#define FT_PRESIZE		16384

/* Capacity of f once it holds nf features, growing from 64 by half */
static Size
ft_fcap_for(Size nf)
{
	Size		cap = 64;

	while (cap < nf)
		cap += cap / 2;
	return cap;
}

/* Buckets for nf features: a power of 2, at least 128, FT_FILLFACTOR in use */
static uint64
ft_nbuckets_for(Size nf)
{
	uint64		nbuckets = 128;

	while (nbuckets * FT_FILLFACTOR < nf)
		nbuckets *= 2;
	return nbuckets;
}

/*
 * An empty table for features of length len_at (n: the n of n-grams and
 * shingles), bounded by maintenance_work_mem under fname (NULL: unbounded).
 * maxfeatures is what the text can give at most as far as its size tells
 * (normalisation that expands the text can exceed it: the table then
 * grows); the table starts at the sizes it would grow to for
 * Min(maxfeatures, FT_PRESIZE) features.
 */
static void
ft_init(FeatureTable *t, FeatureLenFn len_at, int n, const char *fname,
		Size maxfeatures)
{
	Size		want = Min(maxfeatures, FT_PRESIZE);

	t->len_at = len_at;
	t->n = n;
	t->fname = fname;
	t->nf = 0;
	initStringInfo(&t->text);
	/* presized only within maintenance_work_mem (always, at 1 MB or more) */
	if (!ft_fits(t, ft_fcap_for(want),
				 ft_nbuckets_for(want) * sizeof(FeatureBucket), t->text.maxlen))
		want = 0;
	t->maxf = ft_fcap_for(want);
	t->presized = (t->maxf > 64);
	t->f = palloc(sizeof(Feature) * t->maxf);
	t->tab = NULL;
	ft_build_tab(t, ft_nbuckets_for(want));
}

/*
 * A presized table gives back what it holds beyond its features: f and the
 * buckets shrink to the sizes they would have grown to from 64 features, so
 * that a text of few distinct features never needs more memory than that.
 */
static void
ft_unpresize(FeatureTable *t)
{
	Size		fcap = ft_fcap_for(t->nf);
	uint64		nbuckets = ft_nbuckets_for(t->nf);

	t->presized = false;
	if (fcap < t->maxf)
	{
		t->f = repalloc_huge(t->f, sizeof(Feature) * fcap);
		t->maxf = fcap;
	}
	if (nbuckets < t->tab->size)
	{
		ftab_destroy(t->tab);
		t->tab = NULL;
		ft_build_tab(t, nbuckets);
	}
}

/*
 * Room for extra more bytes of text, grown as enlargeStringInfo() grows it
 * (doubling, at most MaxAllocSize): 54000 if the text would reach 1 GB.
 */
static inline void
ft_text_reserve(FeatureTable *t, Size extra)
{
	Size		need = (Size) t->text.len + extra;
	Size		cap;

	if (likely(need < (Size) t->text.maxlen))
		return;
	if (need >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: text too large", t->fname ? t->fname : "to_simhash"),
				 errdetail("The normalised text and its features must stay under 1 GB.")));
	for (cap = t->text.maxlen; cap <= need; cap *= 2)
		;
	cap = Min(cap, MaxAllocSize);
	if (t->presized && !ft_fits(t, t->maxf, ft_tab_bytes(t), cap))
		ft_unpresize(t);
	ft_check_memory(t, t->maxf, ft_tab_bytes(t), cap);
	enlargeStringInfo(&t->text, (int) extra);
}

/* Append a code point, UTF-8 encoded, to the text */
static inline void
ft_text_put_cp(FeatureTable *t, uint32 cp)
{
	ft_text_reserve(t, 4);
	append_cp(&t->text, cp);
}

/*
 * Count one occurrence of the feature bytes[0..len), whose hash is h.  A
 * new feature gets the offset off; the caller has put its bytes there.
 * Returns true when the feature is new.
 */
static bool
ft_count(FeatureTable *t, uint64 h, const char *bytes, Size len, Size off)
{
	FeatureBucket *b;
	Feature    *f;
	bool		found PG_USED_FOR_ASSERTS_ONLY;

	t->probe = bytes;
	t->probe_len = len;
	t->probe_h = h;
	b = ftab_lookup_hash(t->tab, (uint32) t->nf, (uint32) h);
	if (b != NULL)
	{
		t->f[b->index].tf++;
		return false;
	}

	/* a new one: grow first, as simplehash would, but freeing the old first */
	if (unlikely(t->tab->members >= t->tab->grow_threshold))
		ft_grow_tab(t);
	ftab_insert_hash(t->tab, (uint32) t->nf, (uint32) h, &found);
	Assert(!found);

	if (t->nf == t->maxf)
	{
		Size		maxf = t->maxf + t->maxf / 2;

		ft_check_memory(t, maxf, ft_tab_bytes(t), t->text.maxlen);
		t->maxf = maxf;
		t->f = repalloc_huge(t->f, sizeof(Feature) * t->maxf);
	}
	f = &t->f[t->nf];
	f->h = h;
	f->tf = 1;
	f->off = (uint32) off;
	t->nf++;
	return true;
}

/*
 * Count the feature text[off .. off + len): a substring of the table's text,
 * not copied (n-grams and shingles).
 */
static void
ft_add_at(FeatureTable *t, Size off, Size len)
{
	const char *bytes = t->text.data + off;

	ft_count(t, simhash_feature_hash(bytes, len), bytes, len, off);
}

/* to_simhash: copies of the features, each after its 4-byte length */
static Size
copied_len(const FeatureTable *t, Size off)
{
	uint32		len;

	memcpy(&len, t->text.data + off - sizeof(uint32), sizeof(uint32));
	return len;
}

/* Count one occurrence of the feature bytes[0..len), copied if new */
static void
ft_add(FeatureTable *t, const char *bytes, Size len)
{
	uint64		h = simhash_feature_hash(bytes, len);
	Size		off;
	uint32		len32 = (uint32) len;

	/* the copy goes at the end of the text if the feature is new */
	ft_text_reserve(t, len + sizeof(uint32));
	off = t->text.len + sizeof(uint32);
	if (ft_count(t, h, bytes, len, off))
	{
		memcpy(t->text.data + t->text.len, &len32, sizeof(uint32));
		memcpy(t->text.data + off, bytes, len);
		t->text.len = off + len;
		t->text.data[t->text.len] = '\0';
	}
}

/* Where features.c reads the finished table (NULL: nobody) */
static SimHashFeatureSink feature_sink = NULL;
static void *feature_sink_arg = NULL;
static const char *feature_sink_fname = NULL;	/* the SQL function called */

/*
 * Add the table's features to acc: weight 1 + ln(tf), first-occurrence
 * order.  Words above the first hash each feature's bytes again with their
 * own seed.
 */
static void
ft_fingerprint(FeatureTable *t, SimHashAccum *acc)
{
	Size		i;

	if (unlikely(feature_sink != NULL))
		for (i = 0; i < t->nf; i++)
			feature_sink(feature_sink_arg, t->text.data + t->f[i].off,
						 t->len_at(t, t->f[i].off), t->f[i].tf);

	if (acc->nwords == 1)
		for (i = 0; i < t->nf; i++)
			simhash_accum_add(acc, t->f[i].h,
							  acc->binary ? 1.0 : simhash_tf_weight(t->f[i].tf));
	else
		for (i = 0; i < t->nf; i++)
			simhash_accum_add_bytes(acc, t->f[i].h, t->text.data + t->f[i].off,
									t->len_at(t, t->f[i].off),
									acc->binary ? 1.0 : simhash_tf_weight(t->f[i].tf));
}

/* ---------- reading normalised text ---------- */

/*
 * Character class of a normalised code point; the classes of the 128 ASCII
 * code points are read once from the Unicode tables into a small array.
 */
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
	Size		nbytes;			/* of the text, UTF-8, before normalisation */
	uint32		buf[READ_CHUNK];
} TextReader;

static void
reader_init(TextReader *r, text *t)
{
	int			len;
	const char *u = simhash_to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &len);

	sh_norm_init(&r->it, (const unsigned char *) u, (size_t) len);
	r->n = r->i = r->refills = 0;
	r->nbytes = (Size) len;
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

/* ---------- n-grams and shingles: a window over the last n units ---------- */

/*
 * The offsets in the table's text of the last n units (characters of
 * simhash_ngram, tokens of simhash_shingle) and how many there were.
 */
typedef struct GramWindow
{
	Size		start[MAX_GRAM];
	Size		count;
} GramWindow;

/* What tells simhash_ngram and simhash_shingle apart at the start */
typedef struct GramKind
{
	const char *what;			/* "n-gram" or "shingle", for errors */
	const char *names[3];		/* the SQL names at 64, 128 and 256 bits */
	FeatureLenFn len_at;		/* the length of the feature at an offset */
	int			unit_bytes;		/* least bytes a unit takes, with its separator */
} GramKind;

/* A gram tokenizer's state: its reader, its feature table, its window */
typedef struct Gram
{
	TextReader	r;
	FeatureTable ft;
	GramWindow	w;
} Gram;

/*
 * Start simhash_ngram or simhash_shingle: n (argument 1) must be in
 * 1..MAX_GRAM (22023, "what size N is out of range"), then the reader of
 * argument 0, an empty table of n-unit features bounded by
 * maintenance_work_mem under the function's name, and an empty window.  A
 * unit takes at least unit_bytes bytes of the text, so there are at most
 * 1 + bytes / unit_bytes features.
 */
static void
gram_begin(FunctionCallInfo fcinfo, const SimHashAccum *acc,
		   const GramKind *kind, Gram *g)
{
	int32		n = PG_GETARG_INT32(1);
	const char *fname = kind->names[acc->nwords == 1 ? 0 : acc->nwords == 2 ? 1 : 2];

	if (n < 1 || n > MAX_GRAM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s size %d is out of range", kind->what, n),
				 errdetail("It must be between 1 and %d.", MAX_GRAM)));
	reader_init(&g->r, PG_GETARG_TEXT_PP(0));
	/* errors name the function the user called: a feature list's own */
	if (feature_sink_fname != NULL)
		fname = feature_sink_fname;
	ft_init(&g->ft, kind->len_at, n, fname, 1 + g->r.nbytes / kind->unit_bytes);
	g->w.count = 0;
}

/*
 * A unit that starts at offset unit_start has just ended at the end of the
 * text: count the feature of the last n units, once there are n.
 */
static void
gram_unit_done(FeatureTable *t, GramWindow *w, Size unit_start)
{
	Size		n = (Size) t->n;

	w->start[w->count % n] = unit_start;
	w->count++;
	if (w->count >= n)
		ft_add_at(t, w->start[w->count % n], t->text.len - w->start[w->count % n]);
}

/* The fingerprint; fewer than n units make one feature, the whole text */
static void
gram_end(FeatureTable *t, GramWindow *w, SimHashAccum *acc)
{
	if (w->count > 0 && w->count < (Size) t->n)
		ft_add_at(t, 0, t->text.len);
	ft_fingerprint(t, acc);
}

/* n-grams: the feature at off is n characters long, or ends the text */
static Size
ngram_len(const FeatureTable *t, Size off)
{
	const unsigned char *p = (const unsigned char *) t->text.data;
	Size		i = off;
	int			c;

	for (c = 0; c < t->n && i < t->text.len; c++)
		i += p[i] < 0x80 ? 1 : p[i] < 0xE0 ? 2 : p[i] < 0xF0 ? 3 : 4;
	return i - off;
}

/* shingles: the feature at off is n tokens long, or ends the text */
static Size
shingle_len(const FeatureTable *t, Size off)
{
	const char *p = t->text.data;
	Size		i = off;
	int			c;

	for (c = 0; c < t->n && i < t->text.len; c++)
	{
		const char *sp;

		if (c > 0)
			i++;				/* the U+0020 between two tokens */
		sp = memchr(p + i, ' ', t->text.len - i);
		i = sp ? (Size) (sp - p) : t->text.len;
	}
	return i - off;
}

/* A character takes a byte or more; a token and the U+0020 after it, 2 */
static const GramKind ngram_kind = {"n-gram",
	{"simhash_ngram", "simhash128_ngram", "simhash256_ngram"}, ngram_len, 1};
static const GramKind shingle_kind = {"shingle",
	{"simhash_shingle", "simhash128_shingle", "simhash256_shingle"}, shingle_len, 2};

/*
 * to_simhash(text) -> simhash, the default tokenizer.
 *		After toNFKC_Casefold: every maximal run of word characters (letters,
 *		marks, digits not of a CJK script) is a feature; every maximal run of
 *		CJK characters (Han, Hiragana, Katakana, Hangul) gives its
 *		overlapping character bigrams, or the character itself if the run is
 *		one character long.  Everything else separates.  Weight 1 + ln(tf).
 *		Immutable, strict, parallel safe; never errors on valid text.
 */
static void
fill_text(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	TextReader	r;
	FeatureTable ft;
	StringInfoData word;		/* the word being read */
	char		cjk[8];			/* previous CJK character, then a bigram */
	int			prevlen = 0;
	int			runlen = 0;
	uint32		cp = 0;

	reader_init(&r, PG_GETARG_TEXT_PP(0));
	/* a word and a separator take 2 bytes or more, a CJK bigram 3 */
	ft_init(&ft, copied_len, 0, NULL, 1 + r.nbytes / 2);
	initStringInfo(&word);

	for (;;)
	{
		bool		more;
		int			cls;

		more = reader_next(&r, &cp);
		cls = more ? char_class(cp) : SH_CC_OTHER;
		if (cls != SH_CC_WORD && word.len > 0)
		{
			ft_add(&ft, word.data, word.len);
			resetStringInfo(&word);
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
			append_cp(&word, cp);
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
	ft_fingerprint(&ft, acc);
}

/*
 * simhash_ngram(text, n integer DEFAULT 3) -> simhash
 *		Overlapping n-grams of characters after toNFKC_Casefold, with every
 *		run of white space turned into one U+0020 and leading and trailing
 *		white space dropped.  A text shorter than n characters is one
 *		feature; an empty one gives 0000000000000000.  Weight 1 + ln(tf).
 *		The characters are kept once, UTF-8 encoded, and each distinct
 *		n-gram as its hash, count and offset (16 bytes, plus at most 16 of
 *		hash slots): at most about 28 bytes per character.  Errors:
 *		doc/simhash.md.
 */
static void
fill_ngram(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	Gram		g;
	bool		pending_space = false;
	uint32		cp;

	gram_begin(fcinfo, acc, &ngram_kind, &g);
	while (reader_next(&g.r, &cp))
	{
		int			k;

		if (char_class(cp) == SH_CC_SPACE)
		{
			pending_space = (g.w.count > 0);
			continue;
		}
		/* the pending U+0020, then the character: each ends an n-gram */
		for (k = pending_space ? 0 : 1; k < 2; k++)
		{
			Size		unit_start = g.ft.text.len;

			ft_text_put_cp(&g.ft, (k == 0) ? 0x20 : cp);
			gram_unit_done(&g.ft, &g.w, unit_start);
		}
		pending_space = false;
	}
	gram_end(&g.ft, &g.w, acc);
}

/*
 * simhash_shingle(text, n integer DEFAULT 3) -> simhash
 *		Word shingles: the tokens of the default tokenizer (word runs, and
 *		each CJK character on its own) taken n at a time, joined by one
 *		U+0020.  Fewer than n tokens make one shingle; none gives
 *		0000000000000000.  Weight 1 + ln(tf).  The tokens are kept once,
 *		joined by U+0020, and each distinct shingle as its hash, count and
 *		offset, as in simhash_ngram.  Errors: doc/simhash.md.
 */
static void
fill_shingle(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	Gram		g;
	bool		in_word = false;
	Size		word_start = 0;

	gram_begin(fcinfo, acc, &shingle_kind, &g);
	for (;;)
	{
		uint32		cp;
		bool		more = reader_next(&g.r, &cp);
		int			cls = more ? char_class(cp) : SH_CC_OTHER;

		/* a word ends before any other character; a CJK one is a token */
		if (cls != SH_CC_WORD && in_word)
		{
			gram_unit_done(&g.ft, &g.w, word_start);
			in_word = false;
		}
		if (!more)
			break;
		if (cls == SH_CC_WORD || cls == SH_CC_CJK)
		{
			Size		tokstart;

			if (!in_word)
			{
				if (g.ft.text.len > 0)
				{
					ft_text_reserve(&g.ft, 1);
					appendStringInfoChar(&g.ft.text, ' ');
				}
				tokstart = g.ft.text.len;
			}
			else
				tokstart = word_start;
			ft_text_put_cp(&g.ft, cp);
			if (cls == SH_CC_CJK)
				gram_unit_done(&g.ft, &g.w, tokstart);
			else if (!in_word)
			{
				in_word = true;
				word_start = tokstart;
			}
		}
	}
	gram_end(&g.ft, &g.w, acc);
}

/* The SQL functions: each tokenizer at 64, 128 and 256 bits, weighted and binary */
SIMHASH_WIDTHS(simhash_from_text, simhash128_from_text, simhash256_from_text,
			   fill_text)
SIMHASH_BINARY_WIDTHS(simhash_binary_from_text, simhash128_binary_from_text,
					  simhash256_binary_from_text, fill_text)
SIMHASH_WIDTHS(simhash_ngram, simhash128_ngram, simhash256_ngram, fill_ngram)
SIMHASH_BINARY_WIDTHS(simhash_ngram_binary, simhash128_ngram_binary,
					  simhash256_ngram_binary, fill_ngram)
SIMHASH_WIDTHS(simhash_shingle, simhash128_shingle, simhash256_shingle,
			   fill_shingle)
SIMHASH_BINARY_WIDTHS(simhash_shingle_binary, simhash128_shingle_binary,
					  simhash256_shingle_binary, fill_shingle)

/*
 * simhash_set_feature_sink(sink, arg, fname)
 *		Until reset with NULL, every tokenizer above calls sink(arg, bytes,
 *		len, tf) for each distinct feature of the fingerprint it computes, in
 *		order of first occurrence, with the feature's UTF-8 bytes (valid only
 *		during the call) and its count: the table the fingerprint is summed
 *		from.  features.c lists features this way, neither tokenizing nor
 *		counting again; the caller resets the sink on error (PG_FINALLY).
 *		fname, the SQL function called, replaces the tokenizer's name in
 *		its errors.
 */
void
simhash_set_feature_sink(SimHashFeatureSink sink, void *arg, const char *fname)
{
	feature_sink = sink;
	feature_sink_arg = arg;
	feature_sink_fname = fname;
}
