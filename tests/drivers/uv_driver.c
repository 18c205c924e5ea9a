/* libuv thread pool: 16 work items run on libuv's worker threads (uv_queue_work); each
 * sums a range, the after-work callbacks run on the loop thread. libuv registers a
 * pthread_atfork handler when its pool starts (glibc keeps that in libc_nonshared.a). */
#include <stdio.h>

#include <uv.h>

#define N 16
static unsigned long long result[N];
static int done;

static void work(uv_work_t *w)
{
    int i = (int)(long)w->data;
    unsigned long long s = 0;
    for (unsigned long long k = 0; k < 200000ull * (unsigned long long)(i + 1); k++)
        s += k % 7;
    result[i] = s;
}

static void after(uv_work_t *w, int status)
{
    (void)w;
    if (status == 0)
        done++;
}

int main(void)
{
    uv_loop_t *loop = uv_default_loop();
    static uv_work_t req[N];
    for (long i = 0; i < N; i++) {
        req[i].data = (void *)i;
        uv_queue_work(loop, &req[i], work, after);
    }
    uv_run(loop, UV_RUN_DEFAULT);
    for (int i = 0; i < N; i++)
        printf("item %d: %llu\n", i, result[i]);
    printf("done %d of %d\n", done, N);
    uv_loop_close(loop);
    return done == N ? 0 : 1;
}
