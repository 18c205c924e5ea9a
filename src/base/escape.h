/*
 * escape.h - the one way a name from an input is printed: errors (error.c, the runtime's
 * last error), crash reports (crash.c), the perf map (perfmap.c) and the layout report.
 *
 * A symbol, section or file name is bytes chosen by whoever made the input. Printed raw,
 * an escape sequence can clear or rewrite the terminal and a newline can forge an
 * `objrt:` line of its own. objrt_escape copies `s` into `buf` (`len` bytes, at least 4)
 * with every byte that is not printable shown as \xNN: the C0 controls and DEL, bytes
 * that are not part of well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF), and the C1 controls U+0080..U+009F (which some terminals obey
 * as well). Printable ASCII and well-formed UTF-8 are kept as they are, so the result of
 * escaping is itself unchanged by escaping (a message may pass through two sinks). A
 * result that does not fit ends in "..." at a character boundary. Returns buf.
 * Async-signal-safe: no allocation, no locale, no lock (the crash handler uses it).
 */
#ifndef OBJRT_ESCAPE_H
#define OBJRT_ESCAPE_H

#include <stddef.h>

/* Room for a name in a message: longer ones end in "...". */
#define OBJRT_ESC_MAX 1024

const char *objrt_escape(const char *s, char *buf, size_t len);
/* The same for the first n bytes of s (NUL bytes among them shown as \x00). */
const char *objrt_escape_n(const char *s, size_t n, char *buf, size_t len);

#endif
