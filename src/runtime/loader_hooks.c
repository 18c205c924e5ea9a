/* Placeholder runtime hooks: the kernel runtime replaces this file. */
#include "rt_hooks.h"

void *objrt_rt_lookup(const char *name) { (void)name; return NULL; }
int objrt_rt_before_init(objrt_unit *u, char *e, size_t n) { (void)u; (void)e; (void)n; return 0; }
int objrt_rt_after_init(objrt_unit *u, char *e, size_t n) { (void)u; (void)e; (void)n; return 0; }
void objrt_rt_unload(objrt_unit *u) { (void)u; }
