/* undef3_member.c - an archive member that references miss_two. */
int miss_two(void);
int member_fn(void) { return miss_two() * 10; }
