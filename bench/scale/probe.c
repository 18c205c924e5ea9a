/* A unit with 30 host references (libc functions), for bench/scale and tests/scale. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef void (*fp)(void);
fp probe_refs[] = {
    (fp)strlen, (fp)strcmp, (fp)strncmp, (fp)strchr, (fp)strrchr, (fp)strstr, (fp)memcpy,
    (fp)memmove, (fp)memset, (fp)memcmp, (fp)memchr, (fp)malloc, (fp)calloc, (fp)realloc,
    (fp)free, (fp)printf, (fp)fprintf, (fp)snprintf, (fp)puts, (fp)fputs, (fp)fopen,
    (fp)fclose, (fp)fread, (fp)fwrite, (fp)atoi, (fp)strtol, (fp)qsort, (fp)abort,
    (fp)toupper, (fp)getenv,
};
int probe(void) { return (int)strlen("probe"); }
