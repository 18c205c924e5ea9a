/* undef25.c - a program missing 25 symbols u00..u24: ld names all 25, objrt names the
 * first 20 and says "and 5 more". */
#define X(n) extern int u##n(void);
#define ALL X(00) X(01) X(02) X(03) X(04) X(05) X(06) X(07) X(08) X(09) X(10) X(11) X(12) \
            X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24)
ALL
#undef X
#define X(n) + u##n()
int main(void) { return 0 ALL; }
