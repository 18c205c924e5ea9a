/* crt_registry.c - microTVM CRT system libraries: a unit that defines
 * `const TVMModule *TVMSystemLibEntryPoint(void)` registers its functions through the
 * TVMFuncRegistry that module points to (tvm/runtime/crt/func_registry.h), not through
 * TVMBackendRegisterSystemLibSymbol. After the unit's constructors ran, objrt reads that
 * registry and registers each function as TVMBackendRegisterSystemLibSymbol would.
 *
 * Everything the unit hands over is checked before it is read or called: the module, the
 * registry and the function table must lie in the unit, the names within the unit's
 * memory (count, names, extra NUL), every function pointer in the unit's read-only
 * memory. The count is a uint16_t (TVM 0.8 on) or one byte (0.7), whichever the names
 * that follow agree with. */
#include <stdio.h>
#include <string.h>
#include "modules.h"
#include "finish/unit.h"

#define ENTRY_POINT "TVMSystemLibEntryPoint"

typedef struct { const void *registry; } crt_module;
typedef struct { const char *names; void *const *funcs; } crt_registry;

/* The number of names after a `hdr`-byte count, if they are exactly `count` names ending
 * with the extra NUL within `room` bytes; -1 otherwise. */
static long count_names(const char *names, size_t room, size_t hdr)
{
    size_t count = hdr == 2 ? (size_t)(unsigned char)names[0] | (size_t)(unsigned char)names[1] << 8
                            : (size_t)(unsigned char)names[0];
    size_t at = hdr, n = 0;
    while (at < room && names[at] != '\0') {
        const char *end = memchr(names + at, '\0', room - at);
        if (!end)
            return -1;
        at = (size_t)(end - names) + 1;
        n++;
    }
    return at < room && n == count ? (long)n : -1;
}

static int bad(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "kernel runtime: " ENTRY_POINT "(): %s", what);
    return -1;
}

int rt_crt_register(objrt_unit *unit, char *err, size_t errlen)
{
    void *fn = NULL;
    int found = objrt_unit_func(unit, ENTRY_POINT, &fn, err, errlen);
    if (found <= 0)
        return found;                             /* not a CRT system library, or refused */
    const crt_module *mod = ((const void *(*)(void))fn)();
    if (!mod || objrt_unit_extent(unit, mod, false) < sizeof *mod)
        return bad(err, errlen, "the TVMModule it returned is not in the unit");
    const crt_registry *reg = mod->registry;
    if (!reg || objrt_unit_extent(unit, reg, false) < sizeof *reg)
        return bad(err, errlen, "the module's TVMFuncRegistry is not in the unit");
    size_t room = reg->names ? objrt_unit_extent(unit, reg->names, false) : 0;
    if (room < 2)
        return bad(err, errlen, "the registry's names are not in the unit");
    size_t hdr = 2;
    long n = count_names(reg->names, room, 2);
    if (n < 0 && (n = count_names(reg->names, room, hdr = 1)) < 0)
        return bad(err, errlen, "the registry's names do not match their count (neither a "
                   "uint16_t nor a one-byte count followed by as many NUL-ended names and a NUL)");
    if (n && (!reg->funcs || objrt_unit_extent(unit, reg->funcs, false) < (size_t)n * sizeof(void *)))
        return bad(err, errlen, "the registry's function table is not in the unit");
    const char *name = reg->names + hdr;
    for (long i = 0; i < n; i++, name += strlen(name) + 1) {
        void *f = reg->funcs[i];
        if (!f || !objrt_unit_extent(unit, f, false) || objrt_unit_extent(unit, f, true)) {
            snprintf(err, errlen, "kernel runtime: " ENTRY_POINT "(): function %ld ('%.200s') "
                     "does not point into the unit's code", i, name);
            return -1;
        }
    }
    name = reg->names + hdr;
    for (long i = 0; i < n; i++, name += strlen(name) + 1)
        if (TVMBackendRegisterSystemLibSymbol(name, reg->funcs[i]) != 0)
            return bad(err, errlen, "out of memory registering its functions");
    return 0;
}
