/* perf_host.c - 66-perf's host: loads FILE, runs hot_spin(N) and prints its pid and the
 * result (the pid names the /tmp/perf-<pid>.map and jit-<pid>.dump it may write).
 *   perf_host FILE N                                                                    */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <objrt.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    objrt_ctx *ctx = objrt_new();
    const char *files[] = { argv[1] };
    objrt_unit *u = objrt_load(ctx, files, 1);
    if (!u) {
        fprintf(stderr, "%s\n", objrt_error(ctx));
        return 1;
    }
    double (*spin)(long) = (double (*)(long))objrt_unit_sym(u, "hot_spin");
    printf("pid %d\nhot_spin = %g\n", (int)getpid(), spin(atol(argv[2])));
    objrt_unload(u);
    objrt_free(ctx);
    return 0;
}
