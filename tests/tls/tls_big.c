/* A 1 MiB thread-local block: each thread's copy (dynamic TLS, malloc'ed by glibc on first
 * use) is easy to see in malloc's statistics (tls_host --exit). */
__thread char big[1 << 20];

int touch_big(int i)
{
    big[i & 0xfffff] = (char)i;
    return big[0];
}
