/*
 * swift_demangle_stub.c
 *		Preloaded after the ASan runtime by test/asan/run, to get past a hang
 *		at server start.
 *
 * PostgreSQL links libp11-kit (through gnutls and ldap), whose constructor
 * calls newlocale() before the preloaded ASan runtime has initialised.
 * newlocale() holds glibc's locale lock while it mallocs; that first
 * malloc initialises ASan, which probes for an optional Swift demangler
 * with dlsym() and, when the symbol is missing, clears the error with
 * dlerror(); dlerror() translates the message with gettext, which takes
 * and releases the same locale lock, corrupting it, and the process hangs
 * at its next locale call (bindtextdomain in postgres, freelocale at exit
 * in psql).  With this symbol present the probe succeeds and no message is
 * translated.  ASan calls it only to demangle Swift names, which a C
 * program never has; returning NULL means "not a Swift name".
 */
#include <stddef.h>
#include <stdint.h>

char	   *swift_demangle(const char *mangled, size_t mangled_len, char *out,
						   size_t *out_len, uint32_t flags);

char *
swift_demangle(const char *mangled, size_t mangled_len, char *out,
			   size_t *out_len, uint32_t flags)
{
	return NULL;
}
