/*
 * unit.c - one small unit for t_pack: code, read-only data (tab), a writable global (g),
 * zero-filled data (scratch), and a call into and a read of an earlier unit (prev,
 * prev_g: bound by the harness with objrt_define). Compiled once per variant V with
 *   -DV=v -DNTAB=n -DNSTEP=s [-DTAB_ALIGN=a] [-DG_ALIGN=a] -include tab.h
 * where tab.h defines TAB, the NTAB values (k * 7 + V) % 101. t_pack.c computes what f
 * returns with the same formulas.
 */
#ifndef TAB_ALIGN
#define TAB_ALIGN 4
#endif
#ifndef G_ALIGN
#define G_ALIGN 4
#endif

extern int prev(int x);
extern int prev_g;

static const int tab[NTAB] __attribute__((aligned(TAB_ALIGN))) = { TAB };
int g __attribute__((aligned(G_ALIGN))) = 1000 + V;
static int scratch[NTAB];

#define STEP(s) if ((s) < NSTEP) acc += tab[(u + (s)) % NTAB] ^ (s);
#define STEP4(s) STEP(s) STEP(s + 1) STEP(s + 2) STEP(s + 3)

int f(int x)
{
    unsigned u = (unsigned)x;
    int acc = g + prev_g + tab[u % NTAB] * (V + 1);
    STEP4(0) STEP4(4) STEP4(8) STEP4(12) STEP4(16) STEP4(20)
    scratch[u % NTAB] = acc;
    return scratch[u % NTAB] + prev(x);
}
