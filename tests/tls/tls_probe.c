/* TLS fixture: initial values (.tdata), zero-filled (.tbss), a local (static) and an
 * extern thread-local (defined in tls_other.c), an absolute address in .tdata. tls_probe()
 * reports a thread's starting values, changes its own copies and reports them again. */
#include <stdio.h>
#include <string.h>

int some_global = 5;
__thread int counter = 42;
__thread char buf[64];
static __thread long hidden = 7;
__thread int *ptr_init = &some_global;
extern __thread int other;
int other_bump(int by);

void tls_probe(int id, char *out, size_t n)
{
    int c0 = counter, o0 = other;
    long h0 = hidden;
    int first = buf[0];
    counter += id;
    hidden *= id + 1;
    int o1 = other_bump(id * 10);
    snprintf(buf, sizeof buf, "t%d", id);
    snprintf(out, n, "id=%d start(counter=%d hidden=%ld other=%d buf0=%d ptr=%d) "
             "now(counter=%d hidden=%ld other=%d buf=%s)", id, c0, h0, o0, first, *ptr_init,
             counter, hidden, o1, buf);
}

int tls_counter(void) { return counter; }
