/* TLS fixture program: the unit's own threads (created after the load) each probe their
 * thread-locals (tls_probe.c); the main thread's values must stay its own. */
#include <pthread.h>
#include <stdio.h>

void tls_probe(int id, char *out, size_t n);
int tls_counter(void);

#define NT 4
static char results[NT][160];

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    tls_probe(id, results[id], sizeof results[id]);
    return NULL;
}

int main(void)
{
    char mine[160];
    tls_probe(9, mine, sizeof mine);
    pthread_t t[NT];
    for (long i = 1; i < NT; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)i))
            return 2;
    for (int i = 1; i < NT; i++)
        pthread_join(t[i], NULL);
    for (int i = 1; i < NT; i++)
        printf("%s\n", results[i]);
    printf("main %s\n", mine);
    tls_probe(1, mine, sizeof mine);
    printf("main again %s\n", mine);
    return tls_counter() == 52 ? 0 : 1;
}
