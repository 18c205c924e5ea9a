/* .preinit_array runs before every constructor, .init_array.N by priority, then the plain
 * .init_array (issue 27, item 11): the order is compared with a natively linked program. */
#include <stdio.h>
static void pre1(void) { puts("preinit 1"); }
static void pre2(void) { puts("preinit 2"); }
static void init_plain(void) { puts("init_array"); }
static void init_101(void) { puts("init_array.101"); }
__attribute__((constructor)) static void ctor(void) { puts("constructor"); }
__attribute__((section(".preinit_array"), used)) static void (*p1[])(void) = { pre1, pre2 };
__attribute__((section(".init_array"), used)) static void (*i1[])(void) = { init_plain };
__attribute__((section(".init_array.00101"), used)) static void (*i2[])(void) = { init_101 };
int main(void) { puts("main"); return 0; }
