/* A small unit for bench/scale and tests/suites/37-scale.sh: code, read-only data and
 * writable data, so that packed it takes a chunk of each kind. */
static const int filler_table[4] = { 3, 5, 7, 11 };
int filler_calls;
int filler(int x)
{
    filler_calls++;
    return x + filler_table[x & 3];
}
