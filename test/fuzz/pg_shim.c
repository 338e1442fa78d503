/*
 * pg_shim.c
 *		Backend symbols for the fuzzed extension files in a plain process.
 *
 * The extension files are compiled unchanged against the server headers;
 * this file provides what they link against.  Memory: every palloc'd block
 * is a malloc'd block of exactly the requested size (so AddressSanitizer
 * sees one byte past the end), filled with shim_fill_byte (so a read of
 * uninitialised memory changes results between two calls), and tracked so
 * that shim_reset() frees them all, as the end of a query frees its memory
 * context.  pfree or repalloc of a pointer palloc did not return aborts.
 *
 * Errors: ereport(ERROR) records the SQLSTATE, message and detail and
 * longjmps back to shim_call(); an ERROR outside shim_call() aborts.
 *
 * StringInfo grows as the backend's does (doubling, NUL-terminated, at most
 * MaxAllocSize), on palloc.
 *
 * Backend functions the fuzzed entry points never reach (aggregate and
 * array support, binary I/O, hash opclass, encoding conversion, interrupt
 * processing) abort if called, so a change that starts using one shows up
 * as a crash, not as a silently wrong shim.
 */
#include "pg_shim.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"

/* ---------- memory ---------- */

typedef struct Block
{
	void	   *p;
	Size		size;
} Block;

static Block *blocks;
static size_t nblocks,
			maxblocks;

unsigned char shim_fill_byte = 0x7F;

/* The one memory context there is; only its address is ever used */
static MemoryContextData fake_context;
MemoryContext CurrentMemoryContext = &fake_context;

static void shim_elog_oom(Size size);

static void *
track(void *p, Size size)
{
	if (nblocks == maxblocks)
	{
		maxblocks = maxblocks ? maxblocks * 2 : 256;
		blocks = realloc(blocks, maxblocks * sizeof(Block));
		if (blocks == NULL)
			abort();
	}
	blocks[nblocks].p = p;
	blocks[nblocks].size = size;
	nblocks++;
	return p;
}

static size_t
find_block(void *p)
{
	size_t		i = nblocks;

	while (i-- > 0)
		if (blocks[i].p == p)
			return i;
	fprintf(stderr, "pg_shim: pfree/repalloc of %p, which palloc did not return\n", p);
	abort();
}

/* malloc of a size palloc would accept, or the ERROR palloc would raise */
static void *
checked_malloc(Size size, bool huge)
{
	void	   *p;

	if (huge ? !AllocHugeSizeIsValid(size) : !AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", (size_t) size);
	p = malloc(size);
	if (p == NULL && size > 0)
		shim_elog_oom(size);
	return p;
}

static void *
alloc_block(Size size, bool huge)
{
	void	   *p = checked_malloc(size, huge);

	memset(p, shim_fill_byte, size);
	return track(p, size);
}

static void *
realloc_block(void *pointer, Size size, bool huge)
{
	size_t		i = find_block(pointer);
	Size		old = blocks[i].size;
	void	   *p;

	/* always move, so a stale pointer to the old block is a use after free */
	p = checked_malloc(size, huge);
	memcpy(p, pointer, Min(old, size));
	if (size > old)
		memset((char *) p + old, shim_fill_byte, size - old);
	free(pointer);
	blocks[i].p = p;
	blocks[i].size = size;
	return p;
}

void *
palloc(Size size)
{
	return alloc_block(size, false);
}

void *
palloc0(Size size)
{
	void	   *p = alloc_block(size, false);

	memset(p, 0, size);
	return p;
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return alloc_block(size, false);
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return alloc_block(size, true);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return palloc0(size);
}

void *
MemoryContextAllocExtended(MemoryContext context, Size size, int flags)
{
	void	   *p = alloc_block(size, (flags & MCXT_ALLOC_HUGE) != 0);

	if (flags & MCXT_ALLOC_ZERO)
		memset(p, 0, size);
	return p;
}

void *
repalloc(void *pointer, Size size)
{
	return realloc_block(pointer, size, false);
}

void *
repalloc_huge(void *pointer, Size size)
{
	return realloc_block(pointer, size, true);
}

void
pfree(void *pointer)
{
	size_t		i = find_block(pointer);

	free(pointer);
	blocks[i] = blocks[--nblocks];
}

char *
psprintf(const char *fmt,...)
{
	va_list		ap;
	int			n;
	char	   *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	s = palloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	return s;
}

void
shim_reset(void)
{
	size_t		i;

	for (i = 0; i < nblocks; i++)
		free(blocks[i].p);
	nblocks = 0;
}

size_t
shim_live_blocks(void)
{
	return nblocks;
}

/* ---------- errors ---------- */

ShimError	shim_error;
static sigjmp_buf *error_jmp = NULL;
static int	pending_elevel;

bool
errstart(int elevel, const char *domain)
{
	if (elevel < ERROR)
		return false;			/* notices and warnings are not reported */
	pending_elevel = elevel;
	memset(&shim_error, 0, sizeof(shim_error));
	shim_error.elevel = elevel;
	shim_error.sqlerrcode = ERRCODE_INTERNAL_ERROR;	/* as elog() leaves it */
	return true;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

int
errcode(int sqlerrcode)
{
	shim_error.sqlerrcode = sqlerrcode;
	return 0;
}

/*
 * errmsg(), errmsg_internal(), errdetail(), errhint(): each formats its
 * arguments (printf-style) into its field of shim_error, truncating at the
 * field's size, and returns 0 as elog.c's do.
 */
#define SHIM_ERROR_FIELD_FUNCTION(name, field) \
int \
name(const char *fmt,...) \
{ \
	va_list		ap; \
\
	va_start(ap, fmt); \
	vsnprintf(shim_error.field, sizeof(shim_error.field), fmt, ap); \
	va_end(ap); \
	return 0; \
}

SHIM_ERROR_FIELD_FUNCTION(errmsg, message)
SHIM_ERROR_FIELD_FUNCTION(errmsg_internal, message)
SHIM_ERROR_FIELD_FUNCTION(errdetail, detail)
SHIM_ERROR_FIELD_FUNCTION(errhint, hint)

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (pending_elevel >= ERROR)
	{
		if (error_jmp == NULL)
		{
			fprintf(stderr, "pg_shim: ERROR outside a call at %s:%d: %s\n",
					filename, lineno, shim_error.message);
			abort();
		}
		siglongjmp(*error_jmp, 1);
	}
}

static void
shim_elog_oom(Size size)
{
	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("out of memory"),
			 errdetail("Failed on request of size %zu.", (size_t) size)));
}

bool
shim_call(PGFunction fn, int nargs, Datum a0, Datum a1, Datum *result)
{
	LOCAL_FCINFO(fcinfo, 2);
	sigjmp_buf	jb;
	Datum		r;

	if (sigsetjmp(jb, 0) != 0)
	{
		error_jmp = NULL;
		return false;
	}
	error_jmp = &jb;
	InitFunctionCallInfoData(*fcinfo, NULL, nargs, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = a0;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = a1;
	fcinfo->args[1].isnull = false;
	r = fn(fcinfo);
	error_jmp = NULL;
	if (fcinfo->isnull)
	{
		fprintf(stderr, "pg_shim: a function returned NULL\n");
		abort();
	}
	*result = r;
	return true;
}

bool
shim_try(void (*fn) (void *), void *arg)
{
	sigjmp_buf	jb;

	if (sigsetjmp(jb, 0) != 0)
	{
		error_jmp = NULL;
		return false;
	}
	error_jmp = &jb;
	fn(arg);
	error_jmp = NULL;
	return true;
}

/* ---------- fmgr ---------- */

/* As in fmgr.c: call with no flinfo; a NULL result is an error there too */
Datum
DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, 1, collation, NULL, NULL);
	fcinfo->args[0].value = arg1;
	fcinfo->args[0].isnull = false;
	result = (*func) (fcinfo);
	if (fcinfo->isnull)
		elog(ERROR, "function %p returned NULL", (void *) func);
	return result;
}

/*
 * The harness builds plain 4-byte and 1-byte header varlenas; compressed
 * or external ones would need the real detoaster.
 */
struct varlena *
pg_detoast_datum(struct varlena *datum)
{
	if (VARATT_IS_EXTENDED(datum))
		abort();
	return datum;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	if (VARATT_IS_COMPRESSED(datum) || VARATT_IS_EXTERNAL(datum))
		abort();
	return datum;
}

/* The harness plays a UTF8 database: no conversion is ever needed */
int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

volatile sig_atomic_t InterruptPending = false;

/* the server's default, 64 MB: bounds the n-gram and shingle tables */
int			maintenance_work_mem = 65536;

/* ---------- never reached from the fuzzed entry points ---------- */

#define NOT_REACHED(what) \
	do { \
		fprintf(stderr, "pg_shim: %s is not provided\n", what); \
		abort(); \
	} while (0)

char *
pg_server_to_any(const char *s, int len, int encoding)
{
	NOT_REACHED("pg_server_to_any");
}

void
ProcessInterrupts(void)
{
	NOT_REACHED("ProcessInterrupts");
}

int
AggCheckCallContext(FunctionCallInfo fcinfo, MemoryContext *aggcontext)
{
	NOT_REACHED("AggCheckCallContext");
}

void
deconstruct_array(ArrayType *array, Oid elmtype, int elmlen, bool elmbyval,
				  char elmalign, Datum **elemsp, bool **nullsp, int *nelemsp)
{
	NOT_REACHED("deconstruct_array");
}

Datum
DirectFunctionCall2Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2)
{
	NOT_REACHED("DirectFunctionCall2Coll");
}

Datum
hashint8(PG_FUNCTION_ARGS)
{
	NOT_REACHED("hashint8");
}

Datum
hashint8extended(PG_FUNCTION_ARGS)
{
	NOT_REACHED("hashint8extended");
}

/* the wide types' hash support (simhash_type.c), never fuzzed */
uint32
hash_bytes(const unsigned char *k, int keylen)
{
	NOT_REACHED("hash_bytes");
}

uint64
hash_bytes_extended(const unsigned char *k, int keylen, uint64 seed)
{
	NOT_REACHED("hash_bytes_extended");
}

int
ssup_datum_unsigned_cmp(Datum x, Datum y, SortSupport ssup)
{
	NOT_REACHED("ssup_datum_unsigned_cmp");
}

/* ---------- StringInfo (lib/stringinfo.h), as the backend's behaves ---------- */

void
initStringInfo(StringInfo str)
{
	str->maxlen = 1024;
	str->data = palloc(str->maxlen);
	resetStringInfo(str);
}

void
resetStringInfo(StringInfo str)
{
	str->data[0] = '\0';
	str->len = 0;
	str->cursor = 0;
}

/* Room for needed more bytes and a NUL: doubling, at most MaxAllocSize */
void
enlargeStringInfo(StringInfo str, int needed)
{
	Size		want;
	Size		cap;

	if (needed < 0 || (Size) needed >= MaxAllocSize - (Size) str->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("out of memory"),
				 errdetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.",
						   str->len, needed)));
	want = (Size) str->len + needed + 1;
	if (want <= (Size) str->maxlen)
		return;
	for (cap = 2 * (Size) str->maxlen; cap < want; cap *= 2)
		;
	cap = Min(cap, MaxAllocSize);
	str->data = repalloc(str->data, cap);
	str->maxlen = (int) cap;
}

void
appendStringInfoChar(StringInfo str, char ch)
{
	if (str->len + 1 >= str->maxlen)
		enlargeStringInfo(str, 1);
	str->data[str->len++] = ch;
	str->data[str->len] = '\0';
}

void
pq_begintypsend(StringInfo buf)
{
	NOT_REACHED("pq_begintypsend");
}

bytea *
pq_endtypsend(StringInfo buf)
{
	NOT_REACHED("pq_endtypsend");
}

int64
pq_getmsgint64(StringInfo msg)
{
	NOT_REACHED("pq_getmsgint64");
}

unsigned int
pq_getmsgint(StringInfo msg, int b)
{
	NOT_REACHED("pq_getmsgint");
}
