/* undef3.c - a program missing three symbols: miss_one and miss_three referenced here,
 * miss_two only by an archive member (undef3_member.c) that main pulls, so the error must
 * name "lib.a(member.o)" for it. Built with -DDEFINE_THEM it defines all three (the
 * control that links). */
#include <stdio.h>
#ifdef DEFINE_THEM
int miss_one(void) { return 1; }
int miss_two(void) { return 2; }
int miss_three = 3;
#else
extern int miss_one(void), miss_three;
#endif
int member_fn(void);
int main(void) { printf("%d\n", miss_one() + miss_three + member_fn()); return 0; }
