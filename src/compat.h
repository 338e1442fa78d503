/*
 * compat.h
 *		The one place where simhash adapts to PostgreSQL major versions.
 *
 * Supported majors: 15, 16, 17 and 18.  Every PG_VERSION_NUM guard of the
 * C code lives here; each says what changed and in which major.
 */
#ifndef SIMHASH_COMPAT_H
#define SIMHASH_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "simhash needs PostgreSQL 15 or later"
#endif

/* 16 moved the varlena macros (VARDATA_ANY, VARSIZE_ANY_EXHDR) to varatt.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 16 added the copy argument of tuplesort_getdatum (pass-by-value here) */
#if PG_VERSION_NUM >= 160000
#define simhash_tuplesort_getdatum(state, val, isnull) \
	tuplesort_getdatum((state), true, false, (val), (isnull), NULL)
#else
#define simhash_tuplesort_getdatum(state, val, isnull) \
	tuplesort_getdatum((state), true, (val), (isnull), NULL)
#endif

/* 18 gave vacuum_delay_point an is_analyze argument */
#if PG_VERSION_NUM >= 180000
#define simhash_vacuum_delay_point() vacuum_delay_point(false)
#else
#define simhash_vacuum_delay_point() vacuum_delay_point()
#endif

#endif							/* SIMHASH_COMPAT_H */
