/*
 * export.c - a unit's symbols for shared libraries opened after it (what -rdynamic gives
 * a native link).
 *
 * objrt_unit_export() writes an in-memory shared object (memdso.c) whose dynamic symbol
 * table lists every global definition of the unit as an absolute symbol (SHN_ABS: glibc
 * takes the value as the address, whatever the object's load address) with a SysV hash
 * table, and opens it RTLD_GLOBAL: the dynamic linker then binds later libraries'
 * references (an embedded interpreter's extension modules calling back into it) to the
 * unit, as it binds them to an executable's exported symbols. The object is closed when
 * the unit is unloaded.
 */
#include <dlfcn.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "finish/finish.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "sites/sites.h"
#include "debug/unitinfo.h"

static uint32_t sysv_hash(const char *name)
{
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h = (h << 4) + *p;
        uint32_t g = h & 0xf0000000u;
        if (g)
            h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

typedef struct image {
    uint8_t *buf;
    size_t size, nsym, strsz, nbucket;
    uint64_t dyn, hash, sym, str;
} image;

enum { NDYN = 6, NPHDR = 3 };

static int layout(const objrt_unit *u, image *m)
{
    m->nsym = 1;
    m->strsz = 1;
    for (size_t i = 0; i < u->syms.n; i++) {
        m->nsym++;
        m->strsz += u->syms.ents[i].key.len + 1;
    }
    if (m->nsym > UINT32_MAX / 8)
        return -1;
    m->nbucket = m->nsym / 2 + 1;
    m->dyn = sizeof(Elf64_Ehdr) + NPHDR * sizeof(Elf64_Phdr);
    m->hash = m->dyn + NDYN * sizeof(Elf64_Dyn);
    m->sym = objrt_align_up(m->hash + 4 * (2 + m->nbucket + m->nsym), 8);
    m->str = m->sym + m->nsym * sizeof(Elf64_Sym);
    m->size = m->str + m->strsz;
    return 0;
}

/* Symbols 1..n with their names; the hash chains thread them per bucket. */
static void fill(const objrt_unit *u, image *m)
{
    uint32_t *hash = (uint32_t *)(m->buf + m->hash);
    uint32_t *bucket = hash + 2, *chain = bucket + m->nbucket;
    hash[0] = (uint32_t)m->nbucket;
    hash[1] = (uint32_t)m->nsym;
    size_t k = 1, name = 1;
    for (size_t i = 0; i < u->syms.n; i++) {
        const char *n = u->syms.ents[i].key.s;
        uint32_t v = u->syms.ents[i].val;
        uint64_t addr = u->addrs[v];
        Elf64_Sym s = { .st_name = (Elf64_Word)name, .st_value = addr, .st_shndx = SHN_ABS,
                        .st_size = u->extent[v],
                        .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE) };
        memcpy(m->buf + m->sym + k * sizeof s, &s, sizeof s);
        size_t len = u->syms.ents[i].key.len + 1;
        memcpy(m->buf + m->str + name, n, len);
        name += len;
        uint32_t b = sysv_hash(n) % (uint32_t)m->nbucket;
        chain[k] = bucket[b];
        bucket[b] = (uint32_t)k++;
    }
    Elf64_Dyn d[NDYN] = { { DT_HASH, { m->hash } }, { DT_STRTAB, { m->str } },
                          { DT_SYMTAB, { m->sym } }, { DT_STRSZ, { m->strsz } },
                          { DT_SYMENT, { sizeof(Elf64_Sym) } }, { DT_NULL, { 0 } } };
    memcpy(m->buf + m->dyn, d, sizeof d);
}

int objrt_unit_export(objrt_unit *u)
{
    objrt_ctx *ctx = objrt_unit_begin(u);
    if (!ctx)
        return -1;
    int rc = 0;
    image m = { 0 };
    const char *why;
    if (u->export_module) {
        rc = 0;                             /* already visible */
    } else if (layout(u, &m) || !(m.buf = calloc(1, m.size))) {
        rc = objrt_fail(ctx, "objrt_unit_export: out of memory");
    } else {
        fill(u, &m);
        objrt_memdso_base(m.buf, m.size, objrt_host_arch()->machine, NPHDR, m.dyn,
                          NDYN * sizeof(Elf64_Dyn));
        if (objrt_memdso_open(m.buf, m.size, RTLD_NOW | RTLD_GLOBAL, &u->export_module,
                              &u->export_fd, &why))
            rc = objrt_fail(ctx, "objrt_unit_export: the dynamic linker refused the symbol "
                            "table: %s", why);
    }
    free(m.buf);
    objrt_ctx_end(ctx);
    return rc;
}
