/*
 * lto.c - recognise link-time-optimisation inputs, which carry compiler IR instead of (or
 * beside) machine code, and say what to do with them. objrt links machine code only:
 *   GCC -flto (slim): an ELF object whose code is GIMPLE in .gnu.lto_* sections; its
 *     symbol table holds only __gnu_lto_slim. With -ffat-lto-objects it also has real
 *     code, which is loaded as usual.
 *   clang -flto / -flto=thin: an LLVM bitcode file ('BC' 0xC0DE), or the same inside a
 *     bitcode wrapper (0x0B17C0DE), not ELF at all.
 */
#include <string.h>

#include "input/parse.h"

static const char llvm_hint[] = "compile it without -flto to get an ELF object";
static const char gcc_hint[] = "compile it without -flto, or with -ffat-lto-objects";

int objrt_lto_check_bytes(objrt_link *l, const char *name, const uint8_t *d, size_t size)
{
    static const uint8_t bitcode[4] = { 'B', 'C', 0xc0, 0xde };
    static const uint8_t wrapper[4] = { 0xde, 0xc0, 0x17, 0x0b };
    if (size >= 4 && (memcmp(d, bitcode, 4) == 0 || memcmp(d, wrapper, 4) == 0))
        return objrt_fail(l->ctx, "%s: LLVM bitcode (clang -flto), not machine code: %s", name,
                          llvm_hint);
    return 0;
}

static bool has_code(const objrt_obj *o)
{
    for (size_t i = 1; i < o->shnum; i++)
        if ((o->sh[i].sh_flags & SHF_EXECINSTR) && o->sh[i].sh_size)
            return true;
    return false;
}

static bool has_slim_marker(const objrt_obj *o)
{
    for (size_t i = 1; i < o->nsyms; i++)
        if (strcmp(o->str + o->syms[i].st_name, "__gnu_lto_slim") == 0)
            return true;
    return false;
}

int objrt_lto_check_object(objrt_link *l, const objrt_obj *o)
{
    bool gimple = false;
    for (size_t i = 1; i < o->shnum && !gimple; i++) {
        const char *n = objrt_sec_name(o, i);   /* every section of every input: reject */
        gimple = n[0] == '.' && n[1] == 'g' && strncmp(n, ".gnu.lto_", 9) == 0;   /* cheaply */
    }
    if (gimple && (has_slim_marker(o) || !has_code(o)))
        return objrt_fail(l->ctx, "%s: GCC LTO bytecode only (compiled with -flto), no machine "
                          "code: %s", o->name, gcc_hint);
    return 0;
}
