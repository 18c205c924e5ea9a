/* ffi_loader.c - objrt as tvm-ffi's loader of object files: tvm_ffi.load_module("k.o")
 * (global ffi.ModuleLoadFromFile) calls the global function ffi.Module.load_from_file.<ext>
 * with (file_name, format); objrt_tvm_ffi_loader() registers that function for "o", "a"
 * and "tar" in the process's TVM-FFI. A load makes one unit of the file (every object of
 * an archive or of a tar file, as TVM's export_library writes it) and hands back a real
 * tvm-ffi Module (ffi_module.cc, ffi_module_cxx.h) whose functions run the unit's code;
 * the unit is unloaded when the Module is freed, and each Function keeps its Module. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/regular.h"
#include "ffi_internal.h"
#include "ffi_module_cxx.h"

#define SHIM_NAME "libobjrt_tvm_ffi.so"
#define AR_MAGIC "!<arch>\n"
#define AR_HDR 60

static objrt_ctx *loader_ctx;               /* every unit tvm-ffi asked for */
static objrt_ffi_module_new_fn module_new;  /* ffi_module.cc's, once found */
static pthread_mutex_t loader_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- Files into inputs ---- */

typedef struct members {
    objrt_input *in;
    size_t n, cap;
    char **names;                           /* owned names of in[] */
} members;

static int members_add(members *m, const char *outer, const char *name, size_t nlen,
                       const void *data, size_t size)
{
    char *full;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        objrt_input *in = realloc(m->in, cap * sizeof *in);
        char **names = in ? realloc(m->names, cap * sizeof *names) : NULL;
        if (in)
            m->in = in;
        if (!names)
            return -1;
        m->names = names;
        m->cap = cap;
    }
    if (!(full = malloc(strlen(outer) + nlen + 3)))
        return -1;
    sprintf(full, "%s(%.*s)", outer, (int)nlen, name);
    m->names[m->n] = full;
    m->in[m->n++] = (objrt_input){ .name = full, .data = data, .size = size };
    return 0;
}

static void members_free(members *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->names[i]);
    free(m->names);
    free(m->in);
}

/* A decimal or octal field of an archive header, or -1 when it is not one. */
static long long field_num(const char *f, size_t len, int base)
{
    long long v = 0;
    size_t i = 0;
    while (i < len && f[i] == ' ')
        i++;
    if (i == len || f[i] < '0' || f[i] >= '0' + base)
        return -1;
    for (; i < len && f[i] >= '0' && f[i] < '0' + base; i++)
        v = v * base + (f[i] - '0');
    for (; i < len; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return -1;
    return v;
}

/* Every member of an ar archive (the symbol tables and the long-name table skipped): the
 * archive is one module, so no member waits to be pulled in by a reference. */
static const char *split_ar(const char *path, const char *d, size_t size, members *m)
{
    const char *longnames = NULL;
    size_t nlong = 0, off = strlen(AR_MAGIC);
    while (off + AR_HDR <= size) {
        const char *h = d + off, *name = h;
        long long len = field_num(h + 48, 10, 10);
        size_t nlen;
        if (len < 0 || (size_t)len > size - off - AR_HDR || memcmp(h + 58, "`\n", 2) != 0)
            return "a malformed archive member header";
        off += AR_HDR;
        if (memcmp(name, "// ", 3) == 0 || memcmp(name, "//\0", 3) == 0) {
            longnames = d + off;
            nlong = (size_t)len;
        } else if (name[0] == '/' && (name[1] == ' ' || memcmp(name, "/SYM64/", 7) == 0)) {
            ;                               /* the symbol tables */
        } else {
            if (name[0] == '/') {           /* "/N": offset into the long-name table */
                long long at = field_num(name + 1, 15, 10);
                if (at < 0 || !longnames || (size_t)at >= nlong)
                    return "a member's long name outside the name table";
                name = longnames + at;
                for (nlen = 0; at + (long long)nlen < (long long)nlong && name[nlen] != '\n'; nlen++)
                    ;
            } else
                for (nlen = 0; nlen < 16 && name[nlen] != ' '; nlen++)
                    ;
            if (nlen && name[nlen - 1] == '/')
                nlen--;
            if (members_add(m, path, name, nlen, d + off, (size_t)len) != 0)
                return "out of memory";
        }
        off += (size_t)len + ((size_t)len & 1);
    }
    return m->n ? NULL : "an archive without members";
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *d = NULL;
    long len;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (d = malloc((size_t)len)) && fread(d, 1, (size_t)len, f) != (size_t)len) {
        free(d);
        d = NULL;
    } else if (d)
        *size = (size_t)len;
    if (f)
        fclose(f);
    return d;
}

/* Every member of the archive at path, as one unit. */
static objrt_unit *load_archive(const char *path)
{
    members m = { 0 };
    size_t size = 0;
    char *d = read_file(path, &size);
    const char *why;
    objrt_unit *u = NULL;
    if (!d) {
        ffi_raise("RuntimeError", "objrt: cannot read %s", path);
        return NULL;
    }
    if (size < strlen(AR_MAGIC) || memcmp(d, AR_MAGIC, strlen(AR_MAGIC)) != 0)
        why = "not an ar archive";
    else
        why = split_ar(path, d, size, &m);
    if (why)
        ffi_raise("RuntimeError", "objrt: %s: %s", path, why);
    else if (!(u = objrt_load_memory(loader_ctx, m.in, m.n)))
        ffi_raise("RuntimeError", "objrt: %s", objrt_error(loader_ctx));
    members_free(&m);
    free(d);
    return u;
}

/* ---- The Module's answers (ffi_module_cxx.h) ---- */

typedef struct loaded {
    objrt_unit *unit;
} loaded;

typedef struct bound {                      /* a Function's self: its code and its Module */
    TVMFFISafeCallType code;
    void *module;
} bound;

static int bound_call(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    return ((bound *)self)->code(NULL, args, n, ret);   /* as tvm-ffi's library module does */
}

static void bound_free(void *self)
{
    bound *b = self;
    ((int (*)(void *))ffi_core_get()->dec_ref)(b->module);
    free(b);
}

static int module_get_function(void *self, void *module, const char *name, void **out)
{
    const ffi_core *c = ffi_core_get();
    void *code;
    bound *b;
    int rc = ffi_unit_code(((loaded *)self)->unit, name, &code);
    if (rc <= 0)
        return rc;
    if (!(b = malloc(sizeof *b))) {
        ffi_raise("MemoryError", "objrt: out of memory for function %s", name);
        return -1;
    }
    b->code = (TVMFFISafeCallType)code;
    b->module = module;
    ((int (*)(void *))c->inc_ref)(module);             /* the Function keeps its Module */
    if (c->function_create(b, bound_call, bound_free, out) != 0) {
        bound_free(b);
        return -1;
    }
    return 1;
}

static void *module_symbol(void *self, const char *name)
{
    return objrt_unit_sym(((loaded *)self)->unit, name);
}

static void module_release(void *self)
{
    loaded *l = self;
    objrt_unload(l->unit);
    free(l);
}

static const objrt_ffi_module_ops module_ops = {
    .kind = "objrt",
    .get_function = module_get_function,
    .symbol = module_symbol,
    .release = module_release,
};

/* ---- ffi.Module.load_from_file.<ext>(file_name, format) ---- */

static int load_from_file(void *self, const TVMFFIAny *args, int32_t n, TVMFFIAny *ret)
{
    char *path = n >= 1 && n <= 2 ? ffi_arg_str(&args[0]) : NULL;
    const char *ext = self;
    objrt_unit *u;
    loaded *l;
    void *mod = NULL;
    if (!path) {
        ffi_raise("TypeError", "ffi.Module.load_from_file.%s: expects (file_name: str, "
                  "format: str)", ext);
        return -1;
    }
    if (strcmp(ext, "a") != 0)             /* a tar's *.o members are one unit (input/tar.c) */
        u = objrt_load(loader_ctx, (const char *[]){ path }, 1);
    else
        u = load_archive(path);
    if (u && !(l = malloc(sizeof *l))) {
        objrt_unload(u);
        ffi_raise("MemoryError", "objrt: out of memory loading %s", path);
        u = NULL;
    } else if (!u && strcmp(ext, "a") != 0)
        ffi_raise("RuntimeError", "objrt: %s", objrt_error(loader_ctx));
    free(path);
    if (!u)
        return -1;
    l->unit = u;
    if (module_new(l, &module_ops, &mod) != 0) {        /* raised by the library */
        module_release(l);
        return -1;
    }
    ret->type_index = kTVMFFIModule;
    ret->zero_padding = 0;
    ret->v_obj = mod;
    return 0;
}

static void loader_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void loader_error(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ffi_module.cc's constructor: already in the process (a host linked it), named by
 * OBJRT_TVM_FFI_MODULE, or libobjrt_tvm_ffi.so beside libobjrt, or on the search path. A
 * path the variable names is opened as inputs are first (base/regular.h: dlopen of a FIFO
 * waits for a writer forever): *bad says why it is not a library to load. */
static objrt_ffi_module_new_fn find_module_new(const char **bad)
{
    const char *env = getenv("OBJRT_TVM_FFI_MODULE");
    void *p = dlsym(RTLD_DEFAULT, "objrt_ffi_module_new"), *h = NULL;
    Dl_info info;
    char path[PATH_MAX];
    uint64_t size;
    int fd;
    if (p)
        return (objrt_ffi_module_new_fn)p;
    if (env && strchr(env, '/')) {
        if ((fd = objrt_open_regular(env, &size, bad)) < 0)
            return NULL;
        close(fd);
    }
    if (env && env[0])
        h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    else if (dladdr((void *)find_module_new, &info) && info.dli_fname &&
             strrchr(info.dli_fname, '/')) {
        snprintf(path, sizeof path, "%.*s/" SHIM_NAME,
                 (int)(strrchr(info.dli_fname, '/') - info.dli_fname), info.dli_fname);
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h && !(env && env[0]))
        h = dlopen(SHIM_NAME, RTLD_NOW | RTLD_LOCAL);
    return h ? (objrt_ffi_module_new_fn)dlsym(h, "objrt_ffi_module_new") : NULL;
}

int objrt_tvm_ffi_loader(char *err, size_t errlen)
{
    static const char *const exts[] = { "o", "a", "tar" };
    const ffi_core *c = ffi_core_get();
    int rc = 0;
    if (!c->external) {
        loader_error(err, errlen, "objrt_tvm_ffi_loader: no tvm-ffi library in the process "
                             "(libtvm_ffi, or the tvm_ffi Python package, must be loaded "
                             "first)");
        return -1;
    }
    pthread_mutex_lock(&loader_lock);
    const char *bad = NULL;
    if (!module_new && !(module_new = find_module_new(&bad)) && bad)
        loader_error(err, errlen, "objrt_tvm_ffi_loader: OBJRT_TVM_FFI_MODULE %s: %s",
                     getenv("OBJRT_TVM_FFI_MODULE"), bad);
    else if (!module_new)
        loader_error(err, errlen, "objrt_tvm_ffi_loader: %s not found (OBJRT_TVM_FFI_MODULE, "
                             "beside libobjrt, or on the library path): it is built where "
                             "tvm-ffi's headers are, with make tvm-ffi-module", SHIM_NAME);
    else if (!loader_ctx && !(loader_ctx = objrt_new()))
        loader_error(err, errlen, "objrt_tvm_ffi_loader: out of memory");
    pthread_mutex_unlock(&loader_lock);
    if (!module_new || !loader_ctx)
        return -1;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0] && rc == 0; i++) {
        char name[64];
        TVMFFIObjectHandle f = NULL;
        snprintf(name, sizeof name, "ffi.Module.load_from_file.%s", exts[i]);
        TVMFFIByteArray key = { name, strlen(name) };
        if (c->get_global(&key, &f) == 0 && f) {  /* ours from before, or another loader's */
            ((int (*)(void *))c->dec_ref)(f);
            continue;
        }
        if (c->function_create((void *)exts[i], load_from_file, NULL, &f) != 0 ||
            c->set_global(&key, f, 0) != 0) {
            char why[512];
            objrt_ffi_error_text(why, sizeof why);
            loader_error(err, errlen, "objrt_tvm_ffi_loader: registering %s: %s", name, why);
            rc = -1;
        }
        if (f)
            ((int (*)(void *))c->dec_ref)(f);
    }
    return rc;
}
