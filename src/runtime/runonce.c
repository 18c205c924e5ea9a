/* runonce.c - TVMBackendRunOnce, safe when several threads race to the first call.
 * The flag is set only after f succeeded, so a failed initialisation is retried. */
#include <pthread.h>
#include "rt_internal.h"

static pthread_mutex_t once_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int TVMBackendRunOnce(void **handle, int (*f)(void *), void *cdata, int nbytes)
{
    int rc = 0;
    (void)nbytes;
    if (__atomic_load_n(handle, __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&once_lock);
    if (!__atomic_load_n(handle, __ATOMIC_RELAXED)) {
        rc = f(cdata);
        if (rc == 0)
            __atomic_store_n(handle, (void *)1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&once_lock);
    return rc;
}
