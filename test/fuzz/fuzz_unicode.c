/*
 * fuzz_unicode.c
 *		libFuzzer harness for the tokenizers' Unicode layer (src/text/unicode/unicode_norm.c):
 *		arbitrary bytes, valid or not, through the streaming toNFKC_Casefold,
 *		the bulk reader, character classes and the UTF-8 encoder.  Built with
 *		AddressSanitizer and UndefinedBehaviorSanitizer by test/fuzz/run.
 *
 * Checked on every input: no out-of-bounds access or undefined behaviour
 * (the sanitizers), output code points are valid scalar values, classes are
 * in range, the bulk reader gives the same stream as the one-at-a-time one,
 * and the encoder round-trips through the normaliser (normalised output is
 * stable under a second pass, except after the 30-mark cut or U+0345, which
 * the normalisation rules of unicode_norm.h allow to differ).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unicode_norm.h"

#define MAX_OUT (1 << 20)

static uint32_t out1[MAX_OUT];
static uint32_t out2[MAX_OUT];
static unsigned char enc[MAX_OUT * 4];

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ShNormIter	it;
	uint32_t	cp;
	size_t		n1 = 0,
				n2 = 0,
				got,
				i,
				elen = 0;
	size_t		cap = 1 + (size % 97);	/* vary the bulk buffer size */
	int			marks = 0,
				skip_idem = 0;

	if (size > MAX_OUT / 20)
		return 0;				/* output can be up to 18x the input */

	sh_norm_init(&it, data, size);
	while (sh_norm_next(&it, &cp))
	{
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			abort();
		if (sh_char_class(cp) < 0 || sh_char_class(cp) > 3)
			abort();
		if (cp == 0x0345 || cp == 0x03B9)
			skip_idem = 1;
		out1[n1++] = cp;
	}
	if (sh_norm_next(&it, &cp))
		abort();				/* the end is sticky */

	sh_norm_init(&it, data, size);
	while ((got = sh_norm_read(&it, out2 + n2, cap)) > 0)
	{
		n2 += got;
		if (n2 > n1)
			abort();
	}
	if (n1 != n2 || memcmp(out1, out2, n1 * sizeof(uint32_t)) != 0)
		abort();

	for (i = 0; i < n1; i++)
	{
		int			len = sh_utf8_encode(out1[i], enc + elen);

		if (len < 1 || len > 4)
			abort();
		elen += len;
		/* runs of non-ASCII marks may meet the 30-mark cut */
		marks = (out1[i] >= 0x300 && sh_char_class(out1[i]) != 3) ? marks + 1 : 0;
		if (marks >= 30)
			skip_idem = 1;
	}

	/* normalised text normalises to itself */
	if (!skip_idem)
	{
		sh_norm_init(&it, enc, elen);
		n2 = 0;
		while (sh_norm_next(&it, &cp))
		{
			if (n2 >= n1 || out1[n2] != cp)
				abort();
			n2++;
		}
		if (n2 != n1)
			abort();
	}
	return 0;
}
