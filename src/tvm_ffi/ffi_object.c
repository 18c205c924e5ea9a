/* ffi_object.c - the TVM-FFI core: reference-counted objects, Functions, the thread-local
 * raised error, global functions and once-only handles (tvm-ffi c_api.h), and the choice
 * between this core and another library's (tvm_ffi.h, "One TVM-FFI per process"). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ffi_internal.h"

#define BOTH_ONE ((1ULL << 32) | 1ULL)       /* a new object: one strong, one weak reference */

_Static_assert(sizeof(TVMFFIAny) == 16, "TVMFFIAny is 16 bytes");
_Static_assert(sizeof(TVMFFIObject) == 24, "the object header is 24 bytes");
_Static_assert(offsetof(TVMFFIErrorCell, message) == 16 && sizeof(TVMFFIByteArray) == 16,
               "an Error's kind is at +24 and its message at +40");
_Static_assert(offsetof(TVMFFIAny, v_int64) == 8, "an Any's value is at +8");

/* tvm-ffi 0.1.13 made a TVMFFIObjectAllocHeader right before every object body mandatory
 * (c_api.h); its delete_space may be NULL when the object's deleter frees the block, as
 * objrt's do. objrt gives every object it allocates one, whatever the process's tvm-ffi
 * (an older one never looks there), so any object it hands out follows the rule. The body
 * stays 16-byte aligned. */
#define OBJ_PREFIX 16
_Static_assert(OBJ_PREFIX >= sizeof(TVMFFIObjectAllocHeader), "room for the header");

TVMFFIObjectHandle ffi_object_new(size_t size, int32_t type_index, void (*deleter)(void *, int))
{
    char *block = calloc(1, OBJ_PREFIX + size);    /* delete_space and the body zeroed */
    TVMFFIObject *o = block ? (void *)(block + OBJ_PREFIX) : NULL;
    if (o) {
        o->combined_ref_count = BOTH_ONE;
        o->type_index = type_index;
        o->deleter = deleter;
    }
    return o;
}

void ffi_object_free(void *obj)
{
    if (obj)
        free((char *)obj - OBJ_PREFIX);
}

#define new_object ffi_object_new

/* Objects objrt allocates in one block: the weak release frees it. */
static void free_block(void *self, int flags)
{
    if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak)
        ffi_object_free(self);
}

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj)
{
    if (obj)
        __atomic_fetch_add(&((TVMFFIObject *)obj)->combined_ref_count, 1, __ATOMIC_RELAXED);
    return 0;
}

/* The layout alone decides: any implementation's objects (tvm-ffi's too) are released the
 * way their header says. */
int TVMFFIObjectDecRef(TVMFFIObjectHandle obj)
{
    TVMFFIObject *o = obj;
    uint64_t old;
    if (!o)
        return 0;
    old = __atomic_fetch_sub(&o->combined_ref_count, 1, __ATOMIC_ACQ_REL);
    if ((uint32_t)old != 1)
        return 0;
    if (old >> 32 == 1) {                    /* no weak reference but the strong ones' */
        o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskBoth);
        return 0;
    }
    o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskStrong);
    if (__atomic_fetch_sub(&o->combined_ref_count, 1ULL << 32, __ATOMIC_ACQ_REL) >> 32 == 1)
        o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskWeak);
    return 0;
}

/* ---- Functions ---- */

typedef struct ffi_func {                    /* a Function of objrt's */
    TVMFFIObject hdr;
    TVMFFIFunctionCell cell;
    void *self;                              /* TVMFFIFunctionCreate's */
    TVMFFISafeCallType call;
    void (*self_deleter)(void *);
} ffi_func;

static void func_deleter(void *obj, int flags)
{
    ffi_func *f = obj;
    if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && f->self_deleter)
        f->self_deleter(f->self);
    free_block(obj, flags);
}

/* safe_call receives the Function; a created one's callback wants its own self. */
static int call_with_self(void *handle, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    ffi_func *f = handle;
    return f->call(f->self, args, n, ret);
}

static int own_function_create(void *self, TVMFFISafeCallType safe_call,
                               void (*deleter)(void *), TVMFFIObjectHandle *out)
{
    ffi_func *f;
    if (!safe_call || !out) {
        ffi_raise("ValueError", "TVMFFIFunctionCreate: NULL safe_call or out");
        return -1;
    }
    if (!(f = new_object(sizeof *f, kTVMFFIFunction, func_deleter))) {
        ffi_raise("MemoryError", "TVMFFIFunctionCreate: out of memory");
        return -1;
    }
    f->cell.safe_call = call_with_self;
    f->self = self;
    f->call = safe_call;
    f->self_deleter = deleter;
    *out = f;
    return 0;
}

TVMFFIObjectHandle ffi_function_of(TVMFFISafeCallType fn)
{
    const ffi_core *c = ffi_core_get();
    TVMFFIObjectHandle h = NULL;
    ffi_func *f;
    if (c->external)
        return c->function_create(NULL, fn, NULL, &h) == 0 ? h : NULL;
    if (!(f = new_object(sizeof *f, kTVMFFIFunction, func_deleter)))
        return NULL;
    f->cell.safe_call = fn;                 /* one indirect call from TVMFFIFunctionCall */
    return f;
}

/* Layout-generic too: the cell follows the header in every implementation. */
int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny *args, int32_t num_args,
                       TVMFFIAny *result)
{
    const TVMFFIFunctionCell *cell = (const void *)((const char *)func + sizeof(TVMFFIObject));
    return cell->safe_call(func, args, num_args, result);
}

/* ---- The raised error ---- */

typedef struct ffi_error {
    TVMFFIObject hdr;
    TVMFFIErrorCell cell;
    char text[];                             /* kind NUL message NUL */
} ffi_error;

static __thread TVMFFIObjectHandle raised;

static void update_backtrace(TVMFFIObjectHandle self, const TVMFFIByteArray *bt, int32_t mode)
{
    (void)self, (void)bt, (void)mode;        /* objrt records no backtraces */
}

/* An Error from kind and the concatenated parts (NULL parts skipped), or NULL. */
static ffi_error *error_new(const char *kind, const char *const *parts, int32_t n)
{
    size_t klen, mlen = 0;
    ffi_error *e;
    char *p;
    if (!kind || !*kind)
        kind = "RuntimeError";
    klen = strlen(kind);
    for (int32_t i = 0; i < n; i++)
        mlen += parts[i] ? strlen(parts[i]) : 0;
    if (!(e = new_object(sizeof *e + klen + mlen + 2, kTVMFFIError, free_block)))
        return NULL;
    memcpy(e->text, kind, klen + 1);
    p = e->text + klen + 1;
    for (int32_t i = 0; i < n; i++)
        if (parts[i]) {
            size_t l = strlen(parts[i]);
            memcpy(p, parts[i], l);
            p += l;
        }
    *p = '\0';
    e->cell.kind = (TVMFFIByteArray){ e->text, klen };
    e->cell.message = (TVMFFIByteArray){ e->text + klen + 1, mlen };
    e->cell.backtrace = (TVMFFIByteArray){ "", 0 };
    e->cell.update_backtrace = update_backtrace;
    return e;
}

static void own_set_raised(TVMFFIObjectHandle error)
{
    TVMFFIObjectHandle old = raised;
    raised = error;
    TVMFFIObjectDecRef(old);
}

static void own_set_raised_cstr(const char *kind, const char *message)
{
    const char *parts[1] = { message };
    own_set_raised(error_new(kind, parts, 1));
}

static void own_move_from_raised(TVMFFIObjectHandle *out)
{
    *out = raised;
    raised = NULL;
}

void TVMFFIErrorSetRaised(TVMFFIObjectHandle error)
{
    const ffi_core *c = ffi_core_get();
    if (c->external)
        ((void (*)(TVMFFIObjectHandle))c->set_raised)(error);
    else
        own_set_raised(error);
}

void TVMFFIErrorSetRaisedFromCStr(const char *kind, const char *message)
{
    ffi_core_get()->set_raised_cstr(kind, message);
}

void TVMFFIErrorSetRaisedFromCStrParts(const char *kind, const char **parts, int32_t n)
{
    const ffi_core *c = ffi_core_get();
    ffi_error *e;
    if (!c->external) {
        own_set_raised(error_new(kind, parts, n > 0 && parts ? n : 0));
        return;
    }
    if (c->set_raised_parts != (void *)TVMFFIErrorSetRaisedFromCStrParts) {
        ((void (*)(const char *, const char **, int32_t))c->set_raised_parts)(kind, parts, n);
        return;
    }
    /* an external core without the Parts call: join them here, raise there */
    if ((e = error_new(kind, parts, n > 0 && parts ? n : 0))) {
        c->set_raised_cstr(e->cell.kind.data, e->cell.message.data);
        ffi_object_free(e);
    }
}

void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle *result)
{
    ffi_core_get()->move_from_raised(result);
}

void ffi_raise(const char *kind, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ffi_core_get()->set_raised_cstr(kind, msg);
}

size_t objrt_ffi_error_text(char *buf, size_t len)
{
    TVMFFIObjectHandle e = NULL;
    const TVMFFIErrorCell *cell;
    size_t klen = 0;
    TVMFFIErrorMoveFromRaised(&e);
    if (len)
        buf[0] = '\0';
    if (!e)
        return 0;
    cell = (const void *)((const char *)e + sizeof(TVMFFIObject));
    klen = cell->kind.size;
    if (len)
        snprintf(buf, len, "%.*s: %.*s", (int)cell->kind.size, cell->kind.data,
                 (int)cell->message.size, cell->message.data);
    TVMFFIObjectDecRef(e);
    return klen;
}

/* ---- Global functions (objrt's table) ---- */

typedef struct ffi_global {
    struct ffi_global *next;
    TVMFFIObjectHandle f;                    /* a strong reference */
    size_t len;
    char name[];
} ffi_global;

static ffi_global *globals;
static pthread_mutex_t globals_lock = PTHREAD_MUTEX_INITIALIZER;

static ffi_global *global_find_locked(const TVMFFIByteArray *name)
{
    for (ffi_global *g = globals; g; g = g->next)
        if (g->len == name->size && memcmp(g->name, name->data, name->size) == 0)
            return g;
    return NULL;
}

static int own_get_global(const TVMFFIByteArray *name, TVMFFIObjectHandle *out)
{
    ffi_global *g;
    if (!name || !out || (!name->data && name->size)) {
        ffi_raise("ValueError", "TVMFFIFunctionGetGlobal: NULL name or out");
        return -1;
    }
    pthread_mutex_lock(&globals_lock);
    g = global_find_locked(name);
    *out = g ? g->f : NULL;
    TVMFFIObjectIncRef(*out);
    pthread_mutex_unlock(&globals_lock);
    return 0;
}

static int own_set_global(const TVMFFIByteArray *name, TVMFFIObjectHandle f, int override)
{
    ffi_global *g;
    TVMFFIObjectHandle old = NULL;
    if (!name || !f || (!name->data && name->size)) {
        ffi_raise("ValueError", "TVMFFIFunctionSetGlobal: NULL name or function");
        return -1;
    }
    pthread_mutex_lock(&globals_lock);
    if ((g = global_find_locked(name)) && !override) {
        pthread_mutex_unlock(&globals_lock);
        ffi_raise("RuntimeError", "Global Function `%.*s` is already registered",
                  (int)name->size, name->data);
        return -1;
    }
    if (!g && (g = calloc(1, sizeof *g + name->size + 1))) {
        memcpy(g->name, name->data, name->size);
        g->len = name->size;
        g->next = globals;
        globals = g;
    }
    if (g) {
        old = g->f;
        TVMFFIObjectIncRef(f);
        g->f = f;
    }
    pthread_mutex_unlock(&globals_lock);
    TVMFFIObjectDecRef(old);
    if (!g)
        ffi_raise("MemoryError", "TVMFFIFunctionSetGlobal: out of memory");
    return g ? 0 : -1;
}

int TVMFFIFunctionCreate(void *self, TVMFFISafeCallType safe_call, void (*deleter)(void *),
                         TVMFFIObjectHandle *out)
{
    return ffi_core_get()->function_create(self, safe_call, deleter, out);
}

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray *name, TVMFFIObjectHandle *out)
{
    return ffi_core_get()->get_global(name, out);
}

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray *name, TVMFFIObjectHandle f, int override)
{
    return ffi_core_get()->set_global(name, f, override);
}

/* ---- Once-only handles ---- */

static pthread_mutex_t once_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

int TVMFFIHandleInitOnce(void **handle_addr, int (*init_func)(void **result))
{
    void *h = NULL;
    int rc;
    if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&once_lock);          /* recursive: init may initialise others */
    if (__atomic_load_n(handle_addr, __ATOMIC_RELAXED)) {
        pthread_mutex_unlock(&once_lock);
        return 0;
    }
    rc = init_func(&h);
    if (rc == 0 && !h) {
        ffi_raise("RuntimeError", "init_func must return a non-NULL handle");
        rc = -1;
    }
    if (rc == 0)
        __atomic_store_n(handle_addr, h, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&once_lock);
    return rc;
}

int TVMFFIHandleDeinitOnce(void **handle_addr, int (*deinit_func)(void *handle))
{
    void *old = __atomic_exchange_n(handle_addr, NULL, __ATOMIC_ACQ_REL);
    return old ? deinit_func(old) : 0;
}

/* ---- Which core ---- */

static ffi_core core;
static pthread_once_t core_once = PTHREAD_ONCE_INIT;

static void own_core(void)
{
    core = (ffi_core){
        .function_create = own_function_create, .get_global = own_get_global,
        .set_global = own_set_global, .set_raised_cstr = own_set_raised_cstr,
        .move_from_raised = own_move_from_raised,
        .function_call = (void *)TVMFFIFunctionCall, .inc_ref = (void *)TVMFFIObjectIncRef,
        .dec_ref = (void *)TVMFFIObjectDecRef, .set_raised = (void *)TVMFFIErrorSetRaised,
        .set_raised_parts = (void *)TVMFFIErrorSetRaisedFromCStrParts,
        .init_once = (void *)TVMFFIHandleInitOnce, .deinit_once = (void *)TVMFFIHandleDeinitOnce,
    };
}

/* p is a definition of `name` in another object than the one holding `ours`. `ours` is
 * libobjrt's own definition even when another library comes first in the lookup order
 * (libobjrt is linked -Bsymbolic, docs/reference.md); dlsym's answer may instead be a
 * non-PIE host's PLT entry for our function (its canonical address when it takes the
 * address), which is no definition: dladdr names only definitions. */
static int defined_elsewhere(void *p, const char *name, void *ours)
{
    Dl_info at, mine;
    return p && p != ours && dladdr(p, &at) && at.dli_sname && strcmp(at.dli_sname, name) == 0 &&
           dladdr(ours, &mine) && at.dli_fbase != mine.dli_fbase;
}

/* `name` in another library of the process: dlsym finds ours first when libobjrt comes
 * first in the search order, so the next definition after ours is looked at too. */
static void *other_definition(const char *name, void *ours)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!defined_elsewhere(p, name, ours))
        p = dlsym(RTLD_NEXT, name);
    return defined_elsewhere(p, name, ours) ? p : NULL;
}

/* The rest of a core from the library that holds `anchor`. */
static void *sibling(void *lib, const char *name, void *ours)
{
    void *p = lib ? dlsym(lib, name) : NULL;
    return p && p != ours ? p : NULL;
}

static void pick_core(void)
{
    const char *env = getenv("OBJRT_TVM_FFI");
    void *anchor, *lib = NULL, *p;
    Dl_info info;
    own_core();
    if ((env && strcmp(env, "own") == 0) ||
        !(anchor = other_definition("TVMFFIErrorMoveFromRaised", (void *)TVMFFIErrorMoveFromRaised)))
        return;
    if (dladdr(anchor, &info) && info.dli_fname)
        lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    ffi_core ext = core;
    ext.external = 1;
#define NEED(field, name) \
    if (!(p = sibling(lib, #name, (void *)name))) goto partial; \
    ext.field = (__typeof__(ext.field))p;
#define MAY(field, name) \
    if ((p = sibling(lib, #name, (void *)name))) ext.field = p;
    NEED(move_from_raised, TVMFFIErrorMoveFromRaised)
    NEED(set_raised_cstr, TVMFFIErrorSetRaisedFromCStr)
    NEED(function_create, TVMFFIFunctionCreate)
    NEED(get_global, TVMFFIFunctionGetGlobal)
    MAY(set_global, TVMFFIFunctionSetGlobal)
    MAY(function_call, TVMFFIFunctionCall)
    MAY(inc_ref, TVMFFIObjectIncRef)
    MAY(dec_ref, TVMFFIObjectDecRef)
    MAY(set_raised, TVMFFIErrorSetRaised)
    MAY(set_raised_parts, TVMFFIErrorSetRaisedFromCStrParts)
    MAY(init_once, TVMFFIHandleInitOnce)
    MAY(deinit_once, TVMFFIHandleDeinitOnce)
#undef NEED
#undef MAY
    if (ext.set_global == own_set_global || ext.set_raised == (void *)TVMFFIErrorSetRaised)
        goto partial;                        /* globals and errors must be one library's */
    core = ext;
partial:
    if (lib)
        dlclose(lib);                        /* NOLOAD: drops only the count it added */
}

/* The built-in globals go into whichever table is the process's, unless it has them. */
static void add_builtin(const char *name, TVMFFISafeCallType fn)
{
    TVMFFIByteArray n = { name, strlen(name) };
    TVMFFIObjectHandle f = NULL;
    if (core.get_global(&n, &f) == 0 && f) {
        TVMFFIObjectDecRef(f);
        return;
    }
    if (core.function_create(NULL, fn, NULL, &f) == 0) {
        core.set_global(&n, f, 0);
        TVMFFIObjectDecRef(f);
    }
}

static const ffi_builtin *builtins;         /* ffi_env.c's (ffi_core_builtins) */
static size_t nbuiltins;

void ffi_core_builtins(const ffi_builtin *table, size_t n)
{
    builtins = table;
    nbuiltins = n;
}

static void init_core(void)
{
    pick_core();
    for (size_t i = 0; i < nbuiltins; i++)
        add_builtin(builtins[i].name, builtins[i].fn);
}

const ffi_core *ffi_core_get(void)
{
    pthread_once(&core_once, init_core);
    return &core;
}

int objrt_ffi_external(void)
{
    return ffi_core_get()->external;
}

/* A NUL inside would cut the name a lookup compares: such a string is not a name. */
static char *whole_copy(const char *data, size_t size)
{
    return memchr(data, '\0', size) ? NULL : strndup(data, size);
}

char *ffi_arg_str(const TVMFFIAny *a)
{
    const TVMFFIByteArray *s;
    switch (a->type_index) {
    case kTVMFFIRawStr:
        return a->v_c_str ? strdup(a->v_c_str) : NULL;
    case kTVMFFISmallStr:
        return whole_copy((const char *)a->v_bytes, a->small_str_len < 8 ? a->small_str_len : 7);
    case kTVMFFIStr:
        s = (const void *)((const char *)a->v_obj + sizeof(TVMFFIObject));
        return s->size && !s->data ? NULL : whole_copy(s->data ? s->data : "", s->size);
    default:
        return NULL;
    }
}
