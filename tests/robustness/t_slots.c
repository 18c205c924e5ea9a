/*
 * t_slots - the loader writes the TVM DSO-mode slots and __tvm_module_ctx of a unit, and
 * reads its __tvm_main__ string; an object must not steer those accesses outside itself.
 * argv: FXDIR holding slots-<VARIANT>.o (tests/robustness/fixtures/slots.c).
 * Each hostile variant must be refused (load) or rejected (__tvm_main__) with a message
 * naming the symbol, and the host variable an absolute slot points at must stay intact;
 * the well-formed control must load with its slots filled.
 */
#include "t_common.h"
#include <objrt/tvm_backend.h>

static const char *fxdir;
static volatile uint64_t host_victim = 0x1122334455667788ull;

static unsigned char *fixture(const char *variant, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/slots-%s.o", fxdir, variant);
    return t_read_file(path, size);
}

static int control_loads(void *arg, char *why, size_t whylen)
{
    (void)arg;
    size_t n;
    unsigned char *img = fixture("SLOT_OK", &n);
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, "slots-ok.o", img, n);
    int ok = 0;
    if (!u) {
        snprintf(why, whylen, "well-formed slots refused: %s", objrt_error(ctx));
    } else {
        void **call = objrt_unit_sym(u, "__TVMFuncCall"), **mctx = objrt_unit_sym(u, "__tvm_module_ctx");
        TVMFunctionHandle main_fn = objrt_tvm_main(u);
        if (!call || *call != (void *)TVMFuncCall)
            snprintf(why, whylen, "__TVMFuncCall slot not filled with TVMFuncCall");
        else if (!mctx || !*mctx)
            snprintf(why, whylen, "__tvm_module_ctx not filled");
        else if (main_fn || !strstr(objrt_last_error(), "slot_main"))
            snprintf(why, whylen, "__tvm_main__ string not read as 'slot_main': %s",
                     objrt_last_error());
        else
            ok = 1;
        objrt_unload(u);
    }
    objrt_free(ctx);
    free(img);
    return ok;
}

typedef struct { const char *variant, *symbol; int patch_to_victim; } bad_slot;

/* Unload `u` (if it loaded), free the context and the image; returns `ok`. */
static int finish(objrt_ctx *ctx, objrt_unit *u, unsigned char *img, int ok)
{
    if (u)
        objrt_unload(u);
    objrt_free(ctx);
    free(img);
    return ok;
}

static int slot_refused(void *arg, char *why, size_t whylen)
{
    const bad_slot *b = arg;
    size_t n;
    unsigned char *img = fixture(b->variant, &n);
    if (b->patch_to_victim) {
        int s = t_find_symbol(img, b->symbol);
        if (s < 0) { snprintf(why, whylen, "fixture lacks %s", b->symbol); return 0; }
        t_symbol(img, s)->st_value = (uintptr_t)&host_victim;
    }
    char **environ_before = environ;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, b->variant, img, n);
    const char *needles[] = { "must be", NULL };
    int ok = !u && t_check_error(ctx, b->symbol, needles, why, whylen);
    if (u)
        snprintf(why, whylen, "loaded; the loader wrote into '%s'", b->symbol);
    if (environ_before != environ) {
        snprintf(why, whylen, "host's environ overwritten through registered '%s'", b->symbol);
        ok = 0;
    }
    if (host_victim != 0x1122334455667788ull) {
        snprintf(why, whylen, "host variable overwritten through absolute '%s'", b->symbol);
        ok = 0;
    }
    return finish(ctx, u, img, ok);
}

static int main_rejected(void *arg, char *why, size_t whylen)
{
    const char *variant = arg;
    size_t n;
    unsigned char *img = fixture(variant, &n);
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, variant, img, n);
    int ok = 0;
    if (!u) {
        snprintf(why, whylen, "load failed: %s", objrt_error(ctx));
    } else if (objrt_tvm_main(u)) {
        snprintf(why, whylen, "objrt_tvm_main accepted a bad __tvm_main__");
    } else if (!strstr(objrt_last_error(), "__tvm_main__")) {
        snprintf(why, whylen, "error does not name __tvm_main__: %s", objrt_last_error());
    } else {
        ok = 1;
    }
    return finish(ctx, u, img, ok);
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: t_slots FXDIR\n"); return 2; }
    fxdir = argv[1];
    static const bad_slot bad[] = {
        { "SLOT_ABS", "__tvm_module_ctx", 1 },
        { "SLOT_TEXT", "__TVMFuncCall", 0 },
        { "SLOT_RODATA", "__TVMAPISetLastError", 0 },
        { "SLOT_SMALL", "__TVMBackendAllocWorkspace", 0 },
        { "SLOT_PAST_END", "__tvm_module_ctx", 0 },
        { "SLOT_MISALIGNED", "__TVMFuncCall", 0 },
        { "REG_HOST", "__tvm_module_ctx", 0 },       /* registrations (constructors on) */
        { "REG_RODATA", "lib__tvm_module_ctx", 0 },
    };
    t_case("slots-control-well-formed-loads-and-fills", control_loads, NULL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "slots-refused-%s", bad[i].variant);
        t_case(name, slot_refused, (void *)&bad[i]);
    }
    t_case("slots-tvm-main-absolute-rejected", main_rejected, "MAIN_ABS");
    t_case("slots-tvm-main-unterminated-rejected", main_rejected, "MAIN_UNTERMINATED");
    return t_exit_status();
}
