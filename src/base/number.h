/*
 * number.h - the one way objrt reads a number a person typed: the value of a command-line
 * option (`objrt run --page-size`, `objrt call --repeat`) or of an environment variable
 * (OBJRT_GRAPH_MAX_BYTES).
 *
 * strtoul alone takes "-1" for its largest value, skips leading blanks and accepts an
 * empty string as 0, so a typo can switch a limit off or ask for 2^64 of something. Here
 * a number is digits only: decimal, or hexadecimal after "0x" (a leading 0 is not octal),
 * with no sign, no blank and no suffix, and it must lie in [min, max]. A refusal's text
 * quotes what was typed (escaped, as every name in a message: escape.h), so the message
 * shows the user's own spelling, not a converted value.
 */
#ifndef OBJRT_NUMBER_H
#define OBJRT_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* text as a number in [min, max] into *out: 0; or -1 with why (whylen bytes) set to
 * "'TEXT': expected a whole number from MIN to MAX" (or "... is past MAX"). */
int objrt_number(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *why,
                 size_t whylen);

#endif
