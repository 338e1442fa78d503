/*
 * similar.h
 *		The similarity operator % and its setting (distance.c).
 */
#ifndef SIMHASH_SIMILAR_H
#define SIMHASH_SIMILAR_H

/* simhash.similarity_threshold's default: radius 9, 18, 36 at 64, 128, 256 bits */
#define SIMHASH_DEFAULT_SIMILARITY 0.9

extern void simhash_similarity_define_guc(void);

#endif							/* SIMHASH_SIMILAR_H */
