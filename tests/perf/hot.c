/* hot.c - 66-perf's unit: hot_spin runs long enough to be sampled; mix has no relocation,
 * so its loaded bytes are its bytes in the object. */
double hot_spin(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)(i % 7) * 0.5;
    return s;
}

int mix(int x)
{
    return x * 31 + 7;
}
