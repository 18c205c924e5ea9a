/* native.c - unit.c linked natively: the value the loaded unit must compute. */
#include <stdio.h>
#include <stdlib.h>

int unit_compute(int n);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    printf("unit_compute(%d) = %d\n", n, unit_compute(n));
    return 0;
}
