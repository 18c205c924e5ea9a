/* discard.c - two objects with a COMDAT group of the same signature, "dup_fn" (built
 * twice: -DSECOND gives the second copy one more symbol, only_in_second, in its group,
 * and a caller of it). Linked first-then-second, the second group is dropped, so
 * only_in_second (a global) is defined only in a discarded section: ld refuses that
 * ("defined in discarded section"). Linked
 * second-then-first, the second's group is kept and both link. */
#if defined(__x86_64__)
#define RET7 "movl $7, %eax\nret\n"
#define RET9 "movl $9, %eax\nret\n"
#else
#define RET7 "mov w0, #7\nret\n"
#define RET9 "mov w0, #9\nret\n"
#endif
__asm__(".section .text.dup_fn,\"axG\",%progbits,dup_fn,comdat\n"
        ".weak dup_fn\n.type dup_fn,%function\ndup_fn:\n" RET7 ".size dup_fn, .-dup_fn\n"
#ifdef SECOND
        ".globl only_in_second\n.type only_in_second,%function\nonly_in_second:\n" RET9
        ".size only_in_second, .-only_in_second\n"
#endif
        ".text\n");
int dup_fn(void);
#ifdef SECOND
int only_in_second(void);
int second_call(void) { return dup_fn() + only_in_second(); }
#else
#include <stdio.h>
int second_call(void);
int main(void) { printf("%d\n", dup_fn() + second_call()); return 0; }
#endif
