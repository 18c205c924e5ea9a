/* The unit of the fault sweep (faults.c): a constructor and a destructor, an archive member
 * (fault_lib.c), a host function, a COMMON symbol and thread-local data. */
#include <string.h>
static int inited;
__attribute__((common)) int common_sym;
static __thread int tls_var = 1;
__attribute__((constructor)) static void init(void) { inited = 39; }
__attribute__((destructor)) static void fini(void) { common_sym = 0; }
extern int helper(void);
int entry(void) { return inited + helper() + tls_var + (int)strlen(""); }
