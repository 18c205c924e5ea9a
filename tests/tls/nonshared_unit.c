/* Registers one handler of each kind glibc keeps in libc_nonshared.a (objrt supplies
 * them, bound to this unit): a fork child handler, a quick_exit handler, an atexit one. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void say(const char *s, size_t n) { (void)!write(1, s, n); }
static void in_child(void) { say("atfork child\n", 13); }
static void at_quick(void) { say("at_quick_exit\n", 14); }
static void at_exit_fn(void) { say("atexit\n", 7); }

int register_handlers(void)
{
    return pthread_atfork(NULL, NULL, in_child) | at_quick_exit(at_quick) | atexit(at_exit_fn);
}
