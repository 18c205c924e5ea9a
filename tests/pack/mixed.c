/*
 * mixed.c - units a pack_small context must place on their own pages, or may pack only
 * where their references allow (t_mixed.c), one per -D:
 *   BIG       a 40000-byte table: bigger than a group may be to share pages
 *   TLS       thread-local data: its module is built over the unit's own image
 *   FAR_DATA  -fno-pic, a PC-relative reference to `near`, bound to host data far from
 *             the arena: the arena's address does not satisfy it, own pages in reach do
 *   NEAR_DATA -fno-pic, the same reference bound to a packed unit's g: the arena's
 *             address satisfies it, so the unit is packed
 * Each defines int m(int x), checked by t_mixed.c.
 */
#if defined(BIG)
static const unsigned char big[40000] = { [0] = 3, [39999] = 5 };
int m(int x) { return big[(unsigned)x * 39999u % 40000u] + x; }
#elif defined(TLS)
static __thread int t = 7;
int m(int x) { t += x; return t; }
#else
extern int near;
int m(int x) { return near + x; }
#endif
