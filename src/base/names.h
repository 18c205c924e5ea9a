/*
 * names.h - names made of parts (a prefix and a function name, "global:" and a global's
 * name), of any length. A name a lookup compares is never cut to fit a buffer: two names
 * that share their first N bytes are two names, whatever N is. The runtime and TVM-FFI
 * build every such name with objrt_name_join or compare it in parts with objrt_name_is.
 */
#ifndef OBJRT_NAMES_H
#define OBJRT_NAMES_H

#include <stdbool.h>

/* a, b and c (NULL is empty) joined in a new string the caller frees; NULL when out of
 * memory. */
char *objrt_name_join(const char *a, const char *b, const char *c);
/* Whether name is exactly a followed by b (NULL is empty), without building the string. */
bool objrt_name_is(const char *name, const char *a, const char *b);

#endif
