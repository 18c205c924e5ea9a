/* nonshared_host UNIT.o keep|unload: loads the unit, lets it register its handlers, forks
 * (the child handler runs), then keeps or unloads the unit, forks again and leaves with
 * quick_exit(3). With `keep` every handler runs; with `unload` the unit's handlers went
 * with it: the second fork and quick_exit run none of them (and nothing crashes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <objrt.h>

static void fork_once(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, (const char *const *)&argv[1], 1);
    if (!u) {
        fprintf(stderr, "%s\n", objrt_error(ctx));
        return 125;
    }
    int (*reg)(void) = (int (*)(void))objrt_unit_sym(u, "register_handlers");
    if (!reg || reg() != 0)
        return 124;
    fork_once();
    if (strcmp(argv[2], "unload") == 0) {
        (void)!write(1, "unload\n", 7);   /* the unit's atexit handler runs here */
        objrt_unload(u);
    }
    fork_once();
    (void)!write(1, "end\n", 4);
    quick_exit(3);
}
