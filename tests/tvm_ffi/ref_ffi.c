#define _GNU_SOURCE
/* ref_ffi.c - a small reference implementation of the TVM-FFI C ABI and the four
 * TVMBackend calls, written apart from objrt's, for two uses:
 *   - native links: kernel objects linked into tests/tvm_ffi/host.c with it (-DNATIVE)
 *     give the results objrt's must equal; ref_native_load() does what tvm-ffi's library
 *     loader does (context slots, library context);
 *   - the stand-in "other TVM-FFI" of the process (built as a shared library): every call
 *     counts in ref_calls, so a test sees which implementation a unit used. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "objrt/tvm_ffi.h"
#include "objrt/tvm_backend.h"

int ref_calls;                              /* calls into this implementation */
#define COUNT() __atomic_fetch_add(&ref_calls, 1, __ATOMIC_RELAXED)

typedef struct { TVMFFIObject h; TVMFFIFunctionCell c; void *self; TVMFFISafeCallType fn; } rfunc;
typedef struct { TVMFFIObject h; TVMFFIErrorCell c; char kind[64]; char msg[1024]; } rerror;

static void rfree(void *p, int flags) { if (flags & 2) free(p); }

int TVMFFIObjectIncRef(TVMFFIObjectHandle o) { COUNT(); if (o) __atomic_add_fetch(&((TVMFFIObject *)o)->combined_ref_count, 1, __ATOMIC_RELAXED); return 0; }
int TVMFFIObjectDecRef(TVMFFIObjectHandle o)
{
    COUNT();
    if (o && (__atomic_sub_fetch(&((TVMFFIObject *)o)->combined_ref_count, 1, __ATOMIC_ACQ_REL) & 0xffffffffu) == 0)
        ((TVMFFIObject *)o)->deleter(o, 3);
    return 0;
}

static int trampoline(void *h, const TVMFFIAny *a, int32_t n, TVMFFIAny *r) { rfunc *f = h; return f->fn(f->self, a, n, r); }

int TVMFFIFunctionCreate(void *self, TVMFFISafeCallType fn, void (*del)(void *), TVMFFIObjectHandle *out)
{
    rfunc *f = calloc(1, sizeof *f);
    (void)del;
    COUNT();
    f->h.combined_ref_count = (1ULL << 32) | 1;
    f->h.type_index = kTVMFFIFunction;
    f->h.deleter = rfree;
    f->c.safe_call = trampoline;
    f->self = self;
    f->fn = fn;
    *out = f;
    return 0;
}

int TVMFFIFunctionCall(TVMFFIObjectHandle f, TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    COUNT();
    return ((TVMFFIFunctionCell *)((char *)f + 24))->safe_call(f, a, n, r);
}

static __thread TVMFFIObjectHandle last;

void TVMFFIErrorSetRaised(TVMFFIObjectHandle e) { COUNT(); if (last) TVMFFIObjectDecRef(last); last = e; }
void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle *out) { COUNT(); *out = last; last = NULL; }

/* static: calls inside the library must not be interposed by the host's definitions */
static void raise_parts(const char *kind, const char **parts, int32_t n)
{
    rerror *e = calloc(1, sizeof *e);
    COUNT();
    e->h.combined_ref_count = (1ULL << 32) | 1;
    e->h.type_index = kTVMFFIError;
    e->h.deleter = rfree;
    snprintf(e->kind, sizeof e->kind, "%s", kind && *kind ? kind : "RuntimeError");
    for (int32_t i = 0; i < n; i++)
        if (parts[i])
            strncat(e->msg, parts[i], sizeof e->msg - strlen(e->msg) - 1);
    e->c.kind = (TVMFFIByteArray){ e->kind, strlen(e->kind) };
    e->c.message = (TVMFFIByteArray){ e->msg, strlen(e->msg) };
    if (last)
        TVMFFIObjectDecRef(last);
    last = e;
}

void TVMFFIErrorSetRaisedFromCStrParts(const char *kind, const char **parts, int32_t n)
{
    raise_parts(kind, parts, n);
}

void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *msg)
{
    const char *p[1] = { msg };
    raise_parts(kind, p, 1);
}

static struct { char name[128]; TVMFFIObjectHandle f; } globals[64];
static int nglobals;

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray *name, TVMFFIObjectHandle *out)
{
    COUNT();
    *out = NULL;
    for (int i = 0; i < nglobals; i++)
        if (strlen(globals[i].name) == name->size && !memcmp(globals[i].name, name->data, name->size)) {
            *out = globals[i].f;
            TVMFFIObjectIncRef(*out);
        }
    return 0;
}

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray *name, TVMFFIObjectHandle f, int override)
{
    (void)override;
    COUNT();
    snprintf(globals[nglobals].name, sizeof globals[0].name, "%.*s", (int)name->size, name->data);
    TVMFFIObjectIncRef(f);
    globals[nglobals++].f = f;
    return 0;
}

static pthread_mutex_t once = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
int TVMFFIHandleInitOnce(void **h, int (*init)(void **))
{
    int rc = 0;
    COUNT();
    pthread_mutex_lock(&once);
    if (!*h)
        rc = init(h);
    pthread_mutex_unlock(&once);
    return rc;
}

int TVMFFIHandleDeinitOnce(void **h, int (*deinit)(void *))
{
    void *old = *h;
    *h = NULL;
    return old ? deinit(old) : 0;
}

#ifdef NATIVE
/* ---- the loader's part, for native links only ---- */
static struct { char name[128]; void *p; } syms[64];
static int nsyms;
static char module;                         /* the one library context */

static void *find(const char *name)
{
    for (int i = 0; i < nsyms; i++)
        if (!strcmp(syms[i].name, name))
            return syms[i].p;
    return dlsym(RTLD_DEFAULT, name);
}

int TVMFFIEnvModRegisterSystemLibSymbol(const char *name, void *p)
{
    snprintf(syms[nsyms].name, sizeof syms[0].name, "%s", name);
    syms[nsyms++].p = p;
    if (strstr(name, "library_ctx"))
        *(void **)p = &module;
    return 0;
}

int TVMBackendRegisterSystemLibSymbol(const char *name, void *p) { return TVMFFIEnvModRegisterSystemLibSymbol(name, p); }

/* The code of function `name`: as objrt looks it up, prefix `pfx` optional. */
void *ref_code(const char *name, const char *pfx)
{
    char b[256];
    void *p;
    snprintf(b, sizeof b, "__tvm_ffi_%s%s", pfx, name);
    if ((p = find(b)))
        return p;
    snprintf(b, sizeof b, "__tvm_ffi_%s", name);
    if ((p = find(b)))
        return p;
    snprintf(b, sizeof b, "%s%s", pfx, name);
    if ((p = find(b)))
        return p;
    return find(name);
}

int TVMFFIEnvModLookupFromImports(void *ctx, const char *name, TVMFFIObjectHandle *out)
{
    TVMFFIByteArray n = { name, strlen(name) };
    void *code = ctx == &module ? ref_code(name, "") : NULL;
    if (code)                               /* kept for the process: never released */
        return TVMFFIFunctionCreate(NULL, (TVMFFISafeCallType)code, NULL, out);
    TVMFFIFunctionGetGlobal(&n, out);
    if (*out)
        return 0;
    char msg[512];
    snprintf(msg, sizeof msg, "Cannot find function %s in the imported modules or global registry", name);
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", msg);
    return -1;
}

int TVMBackendGetFuncFromEnv(void *ctx, const char *name, void **out) { return TVMFFIEnvModLookupFromImports(ctx, name, out); }

void *TVMBackendAllocWorkspace(int dt, int di, uint64_t n, int c, int b)
{
    (void)dt, (void)di, (void)c, (void)b;
    return aligned_alloc(128, (n + 127) / 128 * 128);
}
int TVMBackendFreeWorkspace(int dt, int di, void *p) { (void)dt, (void)di; free(p); return 0; }

static pthread_barrier_t bar;
typedef struct { FTVMParallelLambda f; void *cdata; int id; TVMParallelGroupEnv *env; int rc; } task;
static void *run_task(void *p) { task *t = p; t->rc = t->f(t->id, t->env, t->cdata); return NULL; }

int TVMBackendParallelLaunch(FTVMParallelLambda f, void *cdata, int num_task)
{
    const char *e = getenv("TVM_NUM_THREADS");
    int n = num_task > 0 ? num_task : e ? atoi(e) : 1, rc = 0;
    TVMParallelGroupEnv env = { NULL, n };
    task t[64];
    pthread_t th[64];
    pthread_barrier_init(&bar, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        t[i] = (task){ f, cdata, i, &env, 0 };
        if (i)
            pthread_create(&th[i], NULL, run_task, &t[i]);
    }
    run_task(&t[0]);
    for (int i = 1; i < n; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < n; i++)
        rc |= t[i].rc;
    pthread_barrier_destroy(&bar);
    return rc ? -1 : 0;
}
int TVMBackendParallelBarrier(int id, TVMParallelGroupEnv *env) { (void)id, (void)env; pthread_barrier_wait(&bar); return 0; }

/* A system-lib registration of function `name` (a system library holds nothing else). */
static void *registered(const char *name, const char *pfx)
{
    char b[4][256];
    snprintf(b[0], 256, "__tvm_ffi_%s%s", pfx, name);
    snprintf(b[1], 256, "__tvm_ffi_%s", name);
    snprintf(b[2], 256, "%s%s", pfx, name);
    snprintf(b[3], 256, "%s", name);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < nsyms; i++)
            if (!strcmp(syms[i].name, b[k]))
                return syms[i].p;
    return NULL;
}

/* ffi.SystemLib([prefix]) -> the one module; ffi.ModuleGetFunction(mod, name, imports) */
static char syslib_prefix[64];

static int system_lib(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    (void)self;
    snprintf(syslib_prefix, sizeof syslib_prefix, "%s", n == 1 ? a[0].v_c_str : "");
    r->type_index = kTVMFFIModule;
    r->v_ptr = &module;
    return 0;
}

static int module_get_function(void *self, const TVMFFIAny *a, int32_t n, TVMFFIAny *r)
{
    void *code = n >= 2 && a[0].v_ptr == &module ? registered(a[1].v_c_str, syslib_prefix) : NULL;
    (void)self;
    r->type_index = kTVMFFINone;
    if (code) {
        TVMFFIFunctionCreate(NULL, (TVMFFISafeCallType)code, NULL, &r->v_ptr);
        r->type_index = kTVMFFIFunction;
    }
    return 0;
}

static struct { char name[128]; void *p; } ctx_syms[16];
static int nctx_syms;

int TVMFFIEnvModRegisterContextSymbol(const char *name, void *p)
{
    snprintf(ctx_syms[nctx_syms].name, sizeof ctx_syms[0].name, "%s", name);
    ctx_syms[nctx_syms++].p = p;
    return 0;
}

/* What tvm-ffi's library loader does for a DSO-mode object linked in: fill the slots. */
void ref_native_load(void)
{
    static const struct { const char *slot; void *fn; } slots[] = {
        {"__TVMFFIErrorSetRaisedFromCStr", (void *)TVMFFIErrorSetRaisedFromCStr},
        {"__TVMFFIFunctionCall", (void *)TVMFFIFunctionCall},
        {"__TVMBackendParallelLaunch", (void *)TVMBackendParallelLaunch},
        {"__TVMBackendParallelBarrier", (void *)TVMBackendParallelBarrier},
        {"__TVMBackendAllocWorkspace", (void *)TVMBackendAllocWorkspace},
        {"__TVMBackendFreeWorkspace", (void *)TVMBackendFreeWorkspace},
        {"__TVMFFIEnvModLookupFromImports", (void *)TVMFFIEnvModLookupFromImports},
        {"__TVMFFIHandleInitOnce", (void *)TVMFFIHandleInitOnce},
        {"__TVMBackendGetFuncFromEnv", (void *)TVMBackendGetFuncFromEnv},
    };
    TVMFFIObjectHandle f;
    TVMFFIByteArray n1 = { "ffi.SystemLib", 13 }, n2 = { "ffi.ModuleGetFunction", 21 };
    void **p;
    TVMFFIFunctionCreate(NULL, system_lib, NULL, &f);
    TVMFFIFunctionSetGlobal(&n1, f, 0);
    TVMFFIFunctionCreate(NULL, module_get_function, NULL, &f);
    TVMFFIFunctionSetGlobal(&n2, f, 0);
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if ((p = dlsym(RTLD_DEFAULT, slots[i].slot)))
            *p = slots[i].fn;
    for (int i = 0; i < nctx_syms; i++)     /* the registered values win */
        if ((p = dlsym(RTLD_DEFAULT, ctx_syms[i].name)))
            *p = ctx_syms[i].p;
    if ((p = dlsym(RTLD_DEFAULT, "__tvm_ffi__library_ctx")))
        *p = &module;
    if ((p = dlsym(RTLD_DEFAULT, "__tvm_ffi_library_ctx")))
        *p = &module;
}
#endif
