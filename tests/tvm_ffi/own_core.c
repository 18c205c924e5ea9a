/* own_core.c - what TVM 0.26's code needs of objrt's own TVM-FFI core beyond the kernels of
 * kernel.c (62-tvm-ffi-real checks the same with the real libtvm_ffi):
 *   ffi-own-anylist-refcounts   the Relax VM's register file (TVMBackendAnyList*): a value
 *                               taken for a call is borrowed, a result moved in is owned and
 *                               the value it replaces released, a reset releases; counts of
 *                               objrt's own Functions read from their headers
 *   ffi-own-alloc-header        every object objrt allocates (Function, Error, the Module of
 *                               the unit argv[1]) has
 *                               tvm-ffi 0.1.13's TVMFFIObjectAllocHeader with a NULL
 *                               delete_space right before it
 * and their controls: the count check sees a reference too many; the header check sees a
 * header whose delete_space is set. */
#include <stdint.h>
#include <stdlib.h>
#include "objrt/tvm_ffi.h"
#include "report.h"

static int nop(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self, (void)a, (void)n;
    r->type_index = kTVMFFINone;
    return 0;
}

static TVMFFIObjectHandle fn(void)
{
    TVMFFIObjectHandle f = NULL;
    TVMFFIFunctionCreate(NULL, nop, NULL, &f);
    return f;
}

static uint32_t strong(TVMFFIObjectHandle o)
{
    return (uint32_t)((TVMFFIObject *)o)->combined_ref_count;
}

static TVMFFIAny obj(TVMFFIObjectHandle o)
{
    TVMFFIAny a = { .type_index = kTVMFFIFunction };
    a.v_obj = o;
    return a;
}

static void *word_before(const void *body)
{
    __asm__("" : "+r"(body));                /* the compiler may not judge the bounds */
    return ((const TVMFFIObjectAllocHeader *)body)[-1].delete_space;
}

int main(int argc, char **argv)
{
    static const char *const names[] = { "ffi-own-anylist-refcounts", "ffi-own-alloc-header",
        "HARNESS ffi-own-anylist-count-control", "HARNESS ffi-own-alloc-header-control", NULL };
    t_declare(names);

    /* regs[0] = a, regs[1] = b (the list owns one reference to each) */
    TVMFFIObjectHandle a = fn(), b = fn(), c = fn();
    TVMFFIAny regs[2] = { obj(a), obj(b) }, stack[2] = { { .type_index = kTVMFFINone } };
    TVMFFIObjectIncRef(a);                   /* ours, to watch the count after the list's */
    TVMFFIObjectIncRef(b);
    int ok = TVMBackendAnyListSetPackedArg(regs, 0, stack, 0) == 0 &&
             stack[0].v_obj == a && strong(a) == 2;                     /* borrowed */
    stack[1] = obj(c);                        /* a call's result: owned by the stack */
    ok = ok && TVMBackendAnyListMoveFromPackedReturn(regs, 1, stack, 1) == 0 &&
         regs[1].v_obj == c && stack[1].type_index == kTVMFFINone &&
         strong(b) == 1 && strong(c) == 1;   /* b released, c moved */
    ok = ok && TVMBackendAnyListResetItem(regs, 0) == 0 && regs[0].type_index == kTVMFFINone &&
         strong(a) == 1;
    ok = ok && TVMBackendAnyListResetItem(NULL, 0) == -1;
    t_report("ffi-own-anylist-refcounts", ok, "counts a %u b %u c %u", strong(a), strong(b),
             strong(c));
    TVMFFIObjectIncRef(c);                    /* planted: one reference too many */
    t_harness("ffi-own-anylist-count-control", strong(c) != 1, "the count check missed it");
    TVMFFIObjectDecRef(c);
    TVMBackendAnyListResetItem(regs, 1);
    TVMFFIObjectDecRef(a);
    TVMFFIObjectDecRef(b);

    /* Function, Error, and the Module of a loaded unit (argv[1], pure.o) */
    TVMFFIObjectHandle f = fn(), e = NULL, m = NULL, g = NULL;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = argc > 1 ? objrt_load(ctx, (const char *[]){ argv[1] }, 1) : NULL;
    TVMFFIErrorSetRaisedFromCStr("ValueError", "x");
    TVMFFIErrorMoveFromRaised(&e);
    if (u && objrt_ffi_func(u, "add_int", &g) == 0)
        m = objrt_ffi_module(u);
    t_report("ffi-own-alloc-header", f && e && m && ((TVMFFIObject *)m)->type_index == kTVMFFIModule &&
             !word_before(f) && !word_before(e) && !word_before(m),
             "Function %p (before: %p), Error %p (%p), Module %p (%p)", f, f ? word_before(f) : 0,
             e, e ? word_before(e) : 0, m, m ? word_before(m) : 0);
    static void (*other[2])(void *) = { (void (*)(void *))free, NULL };  /* a foreign header */
    t_harness("ffi-own-alloc-header-control", word_before(&other[1]) != NULL,
              "a non-NULL delete_space reads as NULL");
    TVMFFIObjectDecRef(f);
    TVMFFIObjectDecRef(e);
    TVMFFIObjectDecRef(g);
    objrt_free(ctx);
    return t_exit_status();
}
