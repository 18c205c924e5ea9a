/* Non-PIC code: a 32-bit absolute address of its own data (the unit must lie below 4 GiB)
 * and a PC-relative read of host data (the unit must lie within 2 GiB of libc). */
static int x;
extern int optind;
long addr(void) { return (long)&x; }
int main(void) { return optind + (addr() != 0); }
