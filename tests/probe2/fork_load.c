/*
 * fork_load.c - fork while another thread is inside objrt_load (issue 27, item 2).
 *
 * A thread loads and unloads OBJ in a loop on one context; the main thread forks 100
 * times meanwhile. Each child loads OBJ again on that context (and on a new one), calls
 * its `answer` and exits 0 when it returned 42. A child that hangs on a lock left held by
 * the parent's other thread is killed by its alarm (2 s). Prints the one result line.
 *     fork_load OBJ NAME
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "objrt.h"

static objrt_ctx *ctx;
static const char *path;
static atomic_int stop, loads;

static void *loader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        objrt_unit *u = objrt_load(ctx, &path, 1);
        if (u) {
            atomic_fetch_add(&loads, 1);
            objrt_unload(u);
        }
    }
    return NULL;
}

static int child(void)
{
    alarm(2);
    objrt_unit *u = objrt_load(ctx, &path, 1);
    int (*answer)(void) = u ? (int (*)(void))objrt_unit_sym(u, "answer") : NULL;
    if (!answer || answer() != 42)
        return 2;
    objrt_ctx *fresh = objrt_new();
    objrt_unit *v = fresh ? objrt_load(fresh, &path, 1) : NULL;
    if (!v)
        return 3;
    objrt_free(fresh);
    return objrt_unload(u) == 0 ? 0 : 4;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    path = argv[1];
    ctx = objrt_new();
    pthread_t t;
    pthread_create(&t, NULL, loader, NULL);
    while (atomic_load(&loads) < 3)     /* the loop is running */
        usleep(100);
    int ok = 0, hung = 0, failed = 0;
    for (int i = 0; i < 100; i++) {
        usleep(i % 7 * 50);             /* fork at varied points of the other's load */
        pid_t pid = fork();
        if (pid == 0)
            _exit(child());
        int st;
        waitpid(pid, &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
            ok++;
        else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
            hung++;
        else
            failed++;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    objrt_free(ctx);
    if (ok == 100)
        printf("PASS %s (100 children loaded; the other thread loaded %d times)\n", argv[2],
               atomic_load(&loads));
    else
        printf("FAIL %s: of 100 children %d loaded, %d hung (killed after 2 s), %d failed\n",
               argv[2], ok, hung, failed);
    return ok == 100 ? 0 : 1;
}
