/* escape.c - names from inputs made safe to print (escape.h says what and why). */
#include <stdint.h>
#include <string.h>

#include "base/escape.h"

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 when it is not one
 * (or encodes a C1 control, which terminals may obey). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!k || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||   /* overlong, surrogate */
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f) ||   /* overlong, > U+10FFFF */
        (c == 0xc2 && s[1] <= 0x9f))                                  /* C1 controls */
        return 0;
    return k;
}

const char *objrt_escape_n(const char *s, size_t n, char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    if (len < 4)
        return len ? (buf[0] = '\0', buf) : buf;
    if (!s)
        s = "(null)", n = 6;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0, mark = 0;                 /* mark: the last character end with space for "..." */
    for (size_t i = 0; i < n;) {
        size_t k = p[i] >= 0x20 && p[i] < 0x7f ? 1 : p[i] >= 0x80 ? utf8_len(p + i, n - i) : 0;
        if (o + (k ? k : 4) > len - 1) {    /* the rest does not fit: "..." for it */
            memcpy(buf + mark, "...", 4);
            return buf;
        }
        if (k) {
            memcpy(buf + o, p + i, k);
            o += k;
            i += k;
        } else {
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[p[i] >> 4];
            buf[o++] = hex[p[i] & 15];
            i++;
        }
        if (o <= len - 4)
            mark = o;
    }
    buf[o] = '\0';
    return buf;
}

const char *objrt_escape(const char *s, char *buf, size_t len)
{
    return objrt_escape_n(s, s ? strlen(s) : 0, buf, len);
}
