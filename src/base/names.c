/* names.c - names of any length built and compared in parts (names.h). */
#include <stdlib.h>
#include <string.h>
#include "base/names.h"

char *objrt_name_join(const char *a, const char *b, const char *c)
{
    size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0, lc = c ? strlen(c) : 0;
    char *s = malloc(la + lb + lc + 1);
    if (!s)
        return NULL;
    memcpy(s, a ? a : "", la);
    memcpy(s + la, b ? b : "", lb);
    memcpy(s + la + lb, c ? c : "", lc);
    s[la + lb + lc] = '\0';
    return s;
}

bool objrt_name_is(const char *name, const char *a, const char *b)
{
    size_t la = a ? strlen(a) : 0;
    if (la && strncmp(name, a, la) != 0)
        return false;
    return strcmp(name + la, b ? b : "") == 0;
}
