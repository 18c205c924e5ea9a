/*
 * resolve.c - bind every global symbol of the unit, as `ld` would for one output.
 *
 * Definitions: a strong definition beats weak and common ones; two strong ones are an
 * error; commons merge (largest size and alignment); GNU_UNIQUE and weak duplicates keep
 * the first. Archive members join the unit when they define a symbol that some strong
 * reference still needs, repeated until nothing changes (so archive order never matters).
 * What the unit leaves undefined is bound outside it (objrt_lookup_external) or, if only
 * weakly referenced, to 0; strong references nothing defines are reported together, in
 * one error, as ld reports them.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "symbols/symbols.h"
#include "symbols/comdat.h"
#include "symbols/lookup.h"

static int duplicate(objrt_link *l, const objrt_gsym *g, const objrt_obj *o)
{
    return objrt_fail(l->ctx, "%s: duplicate definition of '%s' (also defined in %s)", o->name,
                      g->name, l->objs[g->obj]->name);
}

/* How many bytes the loader itself may touch at a definition (a unit's extent, unit.c): its own
 * st_size, cut at the end of its section (parse guarantees st_value <= sh_size); none
 * outside a section. Read here, where the symbol entry is in cache: the unit's table is
 * built long after, when it is not. A symbol without a size gets none: the loader never
 * guesses where an object ends. */
static uint64_t section_extent(const objrt_obj *o, uint32_t i)
{
    uint32_t shndx = objrt_sym_shndx(o, i);
    if (shndx >= o->shnum)
        return 0;
    const Elf64_Sym *y = &o->syms[i];
    uint64_t in_section = o->sh[shndx].sh_size - y->st_value;
    return y->st_size < in_section ? y->st_size : in_section;
}

/* Apply one definition from object o, symbol i, to global g. */
static int define(objrt_link *l, objrt_gsym *g, objrt_obj *o, uint32_t i)
{
    const Elf64_Sym *s = &o->syms[i];
    uint8_t bind = ELF64_ST_BIND(s->st_info);
    bool common = objrt_sym_shndx(o, i) == SEC_COMMON;
    objrt_gsym def = { .name = g->name, .len = g->len, .hash = g->hash, .obj = o->index, .sym = i,
                       .bind = bind, .state = common ? G_COMMON : G_DEF,
                       .strong_ref = g->strong_ref };
    if (common) {
        def.size = s->st_size;
        def.common_align = s->st_value;
    } else {
        def.size = section_extent(o, i);
    }
    switch (g->state) {
    case G_UNDEF:
        *g = def;
        return 0;
    case G_COMMON:
        if (common) {                       /* merge tentative definitions */
            if (s->st_size > g->size)
                g->size = s->st_size;
            if (s->st_value > g->common_align)
                g->common_align = s->st_value;
        } else if (bind != STB_WEAK) {
            *g = def;                       /* a real definition replaces a tentative one */
        }
        return 0;
    case G_DEF:
        if (common || bind == STB_WEAK || bind == STB_GNU_UNIQUE)
            return 0;                       /* first definition stays */
        if (g->bind == STB_WEAK || g->bind == STB_GNU_UNIQUE) {
            *g = def;
            return 0;
        }
        return duplicate(l, g, o);
    }
    return 0;
}

/* Enter one object's global symbols: definitions and references. */
/* An indirect function (STT_GNU_IFUNC) defined by the unit is refused: a static link runs
 * its resolver at startup and binds every reference to what it returns (IRELATIVE), which
 * objrt does not do; binding to the resolver itself would call the wrong code. Local ones
 * too (a static ifunc, or a target_clones dispatcher). */
static int refuse_ifunc(objrt_link *l, const objrt_obj *o)
{
    for (size_t i = 1; i < o->nsyms; i++) {
        const Elf64_Sym *s = &o->syms[i];
        uint32_t shndx;
        if (ELF64_ST_TYPE(s->st_info) != STT_GNU_IFUNC ||
            (shndx = objrt_sym_shndx(o, i)) == SEC_UNDEF || objrt_sec_dropped(o, shndx))
            continue;
        return objrt_fail(l->ctx, "%s: section %s: symbol '%s' is an indirect function "
                          "(STT_GNU_IFUNC, __attribute__((ifunc)) or target_clones): objrt "
                          "does not run ifunc resolvers; build it without them, or take the "
                          "function from a shared library (-l)", o->name,
                          objrt_sec_name(o, shndx), objrt_sym_name(o, i));
    }
    return 0;
}

static int enter_object(objrt_link *l, objrt_obj *o)
{
    size_t n = o->nsyms - o->first_global;
    if (refuse_ifunc(l, o))
        return -1;
    o->gsym = malloc((n ? n : 1) * sizeof *o->gsym);
    if (!o->gsym)
        return objrt_fail(l->ctx, "out of memory");
    if (objrt_comdat_enter(l, o))
        return -1;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = (uint32_t)(o->first_global + k);
        const Elf64_Sym *s = &o->syms[i];
        const char *name = o->str + s->st_name;
        if (!*name)
            return objrt_fail(l->ctx, "%s: global symbol %u has no name", o->name, i);
        uint32_t g = objrt_sym_intern(l, name, strlen(name), o->index, i);
        if (g == OBJRT_NONE)
            return -1;
        o->gsym[k] = g;
        uint32_t shndx = objrt_sym_shndx(o, i);
        if (objrt_sec_dropped(o, shndx)) {
            /* a duplicate group's: the kept group defines it. When nothing does, a global
             * is ld's "defined in discarded section" error, a weak one binds to 0. */
            if (ELF64_ST_BIND(s->st_info) != STB_WEAK)
                l->gsyms[g].strong_ref = true;
            continue;
        }
        if (shndx != SEC_UNDEF) {
            if (define(l, &l->gsyms[g], o, i))
                return -1;
        } else if (ELF64_ST_BIND(s->st_info) != STB_WEAK) {
            l->gsyms[g].strong_ref = true;
        }
    }
    return 0;
}

static int index_archive_members(objrt_link *l)
{
    for (size_t m = 0; m < l->nobjs; m++) {
        objrt_obj *o = l->objs[m];
        if (o->pulled)
            continue;
        for (size_t i = o->first_global; i < o->nsyms; i++) {
            const char *name = o->str + o->syms[i].st_name;
            if (objrt_sym_shndx(o, i) == SEC_UNDEF || !*name)
                continue;
            /* the first member defining a name keeps it: one probe finds or enters it */
            objrt_strkey k = objrt_strkey_of(name);
            if (objrt_strmap_intern(&l->archive_index, &k, (uint32_t)m) == OBJRT_NONE)
                return objrt_fail(l->ctx, "out of memory");
        }
    }
    return 0;
}

/* Pull archive members for strong undefined references until a fixed point. */
static int pull_members(objrt_link *l)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t g = 0; g < l->ngsyms; g++) {
            if (l->gsyms[g].state != G_UNDEF || !l->gsyms[g].strong_ref)
                continue;
            objrt_strkey k = objrt_gsym_key(&l->gsyms[g]);  /* hashed once, at entry */
            uint32_t m = objrt_strmap_find(&l->archive_index, &k);
            if (m == OBJRT_NONE || l->objs[m]->pulled)
                continue;
            l->objs[m]->pulled = true;
            if (enter_object(l, l->objs[m]))
                return -1;
            changed = true;
        }
    }
    return 0;
}

/* The first file that references global g; *dropped says whether that file's symbol is a
 * definition in a dropped COMDAT group (comdat.c), which the error then explains. */
static const char *first_referrer(const objrt_link *l, uint32_t g, bool *dropped)
{
    for (size_t m = 0; m < l->nobjs; m++) {
        const objrt_obj *o = l->objs[m];
        if (!o->pulled)
            continue;
        for (size_t k = 0; k < o->nsyms - o->first_global; k++)
            if (o->gsym[k] == g) {
                *dropped = objrt_sec_dropped(o, objrt_sym_shndx(o, o->first_global + k));
                return o->name;
            }
    }
    *dropped = false;
    return "?";
}

static bool is_c_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* Does an object of the unit have a section called `name` that the plan places (allocated,
 * not a note, group or thread-local data)? */
static bool unit_has_section(const objrt_link *l, const char *name)
{
    for (size_t m = 0; m < l->nobjs; m++)
        for (size_t i = 1; l->objs[m]->pulled && i < l->objs[m]->shnum; i++) {
            const Elf64_Shdr *s = &l->objs[m]->sh[i];
            if ((s->sh_flags & (SHF_ALLOC | SHF_TLS)) == SHF_ALLOC && s->sh_type != SHT_NOTE &&
                s->sh_type != SHT_GROUP && !objrt_sec_dropped(l->objs[m], i) &&
                strcmp(objrt_sec_name(l->objs[m], i), name) == 0)
                return true;
        }
    return false;
}

/* Names the loader itself defines for the unit: the GOT, the DSO handle, and as ld does,
 * __start_SEC and __stop_SEC around the sections called SEC when SEC is a C identifier
 * and the unit has such a section (plan.c keeps those sections together). */
static bool bind_special(const objrt_link *l, objrt_gsym *g)
{
    if (g->name[0] != '_')                  /* none of them: most undefined names */
        return false;
    const char *sec = strncmp(g->name, "__start_", 8) == 0 ? g->name + 8
                    : strncmp(g->name, "__stop_", 7) == 0 ? g->name + 7 : NULL;
    if (strcmp(g->name, "_GLOBAL_OFFSET_TABLE_") == 0)
        g->special = SP_GOT;
    else if (strcmp(g->name, "__dso_handle") == 0)
        g->special = SP_DSO_HANDLE;
    else if (sec && is_c_identifier(sec) && unit_has_section(l, sec))
        g->special = sec == g->name + 8 ? SP_START : SP_STOP;
    else
        return false;
    g->state = G_SPECIAL;
    return true;
}

#define UNDEF_LISTED 20        /* as many as an error names; the rest are counted */

/* ---- the undefined-symbol error: names demangled, hints that name the fix ------------ */

typedef char *demangle_fn(const char *mangled, char *buf, size_t *len, int *status);
static demangle_fn *cxa_demangle;
static void *libstdcxx;
static pthread_once_t cxx_once = PTHREAD_ONCE_INIT;

/* libstdc++ is asked on this error path only: for abi::__cxa_demangle (the host's own, if
 * it links libstdc++) and for whether a name is the C++ runtime's. It stays loaded once
 * opened: the demangler may be used again, and libstdc++ is not made to be unloaded. */
static void open_libstdcxx(void)
{
    libstdcxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!f && libstdcxx)
        f = dlsym(libstdcxx, "__cxa_demangle");
    *(void **)&cxa_demangle = f;
}

char *objrt_demangle(const char *name)
{
    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    pthread_once(&cxx_once, open_libstdcxx);
    int status = -1;
    char *d = cxa_demangle ? cxa_demangle(name, NULL, NULL, &status) : NULL;
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}

/* True when the library opened as `soname` (RTLD_NOLOAD: already loaded; else opened here)
 * itself defines `name`, not one of its dependencies (libstdc++ pulls in libm and libc). */
static bool library_defines(void *h, const char *soname, const char *name)
{
    void *a = h ? dlsym(h, name) : NULL;
    Dl_info di;
    return a && dladdr(a, &di) && di.dli_fname && strstr(di.dli_fname, soname);
}

/* True when libm defines `name`: the usual cause is a host linked without -lm, or with
 * -lm that --as-needed dropped. Asked of libm itself, only on this error path. */
static bool libm_defines(const char *name)
{
    void *m = dlopen("libm.so.6", RTLD_LAZY | RTLD_LOCAL);
    bool found = library_defines(m, "libm.so", name);
    if (m)
        dlclose(m);
    return found;
}

/* True when libstdc++ defines `name`: a C++ unit in a host that does not link libstdc++
 * (a C host, or g++'s --as-needed dropping it from a host that uses none of it). */
static bool libstdcxx_defines(const char *name)
{
    /* Only names that can be its: C++ ones and its C-linkage ABI entries. A C host with a
     * C unit never gets libstdc++ opened into it. */
    if (strncmp(name, "_Z", 2) != 0 && strncmp(name, "__cxa_", 6) != 0 &&
        strncmp(name, "__gxx_", 6) != 0)
        return false;
    pthread_once(&cxx_once, open_libstdcxx);
    return library_defines(libstdcxx, "libstdc++.so", name);
}

#define HINT_NAME 256     /* a hint shows at most this much of a name: space for the others */

/* One "hint:" line for each kind of fix the listed names need, at most once each. */
static size_t undefined_hints(char *out, size_t size, const char **names, size_t n)
{
    size_t at = 0;
    bool cxx = false, m = false, host = false;
    for (size_t i = 0; i < n && at < size; i++) {
        char e[HINT_NAME];
        const char *nm = objrt_escape(names[i], e, sizeof e);
        int w = 0;
        if (libm_defines(names[i])) {
            if (!m)
                w = snprintf(out + at, size - at, "\nhint: '%s' is libm's: objrt_add_library(ctx, "
                             "\"m\") before the load (objrt run: -l m)", nm);
            m = true;
        } else if (libstdcxx_defines(names[i])) {
            char *d = cxx ? NULL : objrt_demangle(names[i]);
            if (!cxx)
                w = snprintf(out + at, size - at, "\nhint: '%s' is the C++ runtime's (libstdc++): "
                             "objrt_add_library(ctx, \"stdc++\") before the load (objrt run: "
                             "-l stdc++), or link the host with -lstdc++ (g++ drops it with "
                             "--as-needed when the host itself uses none of it)",
                             d ? objrt_escape(d, e, sizeof e) : nm);
            free(d);
            cxx = true;
        } else {
            if (!host)
                w = snprintf(out + at, size - at, "\nhint: nothing loaded defines '%s': if the "
                             "host program is to provide it, link the host with -rdynamic (or "
                             "-Wl,--export-dynamic-symbol=NAME) or give it with objrt_define(ctx, "
                             "\"%s\", address); else add the object or library (-l LIB) that "
                             "defines it", nm, nm);
            host = true;
        }
        at += w < 0 ? 0 : (size_t)w;
    }
    return at < size ? at : size - 1;
}

/* Every strong reference nothing defines, in one error as ld reports them: one line each
 * ("file: undefined symbol 'name'", the first file that references it; a C++ name
 * demangled, with the mangled one after it for grep), at most UNDEF_LISTED, then how many
 * more, then the hints (space kept for them: the list is what gets cut). */
static int undefined_error(objrt_link *l, const uint32_t *g, size_t n)
{
    char msg[4096], hints[1536];
    const char *names[UNDEF_LISTED];
    size_t listed = n < UNDEF_LISTED ? n : UNDEF_LISTED;
    for (size_t i = 0; i < listed; i++)
        names[i] = l->gsyms[g[i]].name;
    size_t nh = undefined_hints(hints, sizeof hints, names, listed);
    size_t space = sizeof msg - nh - 64, at = 0, shown = 0;     /* 64: the "and N more" line */
    for (size_t i = 0; i < listed; i++, shown++) {
        bool dropped;
        char efile[OBJRT_ESC_MAX], ename[OBJRT_ESC_MAX];
        const char *file = first_referrer(l, g[i], &dropped);
        char *d = objrt_demangle(names[i]);
        char edem[OBJRT_ESC_MAX];
        int w = snprintf(msg + at, space - at, "%s%s: undefined symbol '%s'%s%s%s%s", i ? "\n" : "",
                         objrt_escape(file, efile, sizeof efile),
                         d ? objrt_escape(d, edem, sizeof edem) : objrt_escape(names[i], ename, sizeof ename),
                         d ? " (" : "", d ? objrt_escape(names[i], ename, sizeof ename) : "",
                         d ? ")" : "", dropped ? " (defined there only in a duplicate COMDAT "
                         "group, which was dropped)" : "");
        free(d);
        if (w < 0 || (size_t)w >= space - at) {    /* cut at the space left: the rest are counted */
            at = space - 1;
            shown++;
            break;
        }
        at += (size_t)w;
    }
    if (n > shown)
        at += (size_t)snprintf(msg + at, sizeof msg - at, "\nand %zu more undefined symbols",
                               n - shown);
    snprintf(msg + at, sizeof msg - at, "%s", hints);
    return objrt_fail_lines(l->ctx, msg);  /* one line per symbol and hint, each escaped */
}

/* Binds what the unit leaves undefined. Before the last pass (`final` false) a strong
 * reference that nothing outside binds stays undefined and the pass returns 1: the
 * compiler's helper library may still define it. */
static int bind_outside(objrt_link *l, bool final)
{
    int missing = 0;
    uint32_t undef[UNDEF_LISTED];
    size_t nundef = 0;
    for (size_t g = 0; g < l->ngsyms; g++) {
        objrt_gsym *s = &l->gsyms[g];
        if (s->state != G_UNDEF)
            continue;
        if (bind_special(l, s)) {
            l->dso_handle_used |= s->special == SP_DSO_HANDLE;
            continue;
        }
        if (ELF64_ST_TYPE(l->objs[s->obj]->syms[s->sym].st_info) == STT_TLS) {
            /* glibc binds it when it loads the unit's TLS module (tls.c); dlsym here would
             * allocate the block in this thread and forbid static TLS for it */
            s->state = G_EXTERNAL;
            s->host_func = 0;
            continue;
        }
        objrt_strkey k = objrt_gsym_key(s);
        void *addr = objrt_lookup_external(l->ctx, &k);
        if (!addr && final && l->arch->host_helper)   /* when libgcc.a is absent */
            addr = l->arch->host_helper(s->name);
        if (!addr && s->strong_ref) {
            missing = 1;
            if (final && nundef++ < UNDEF_LISTED)
                undef[nundef - 1] = (uint32_t)g;
            continue;
        }
        s->state = G_EXTERNAL;
        s->host_func = -1;
        s->addr = (uint64_t)(uintptr_t)addr;    /* 0 for an unresolved weak reference */
    }
    return nundef ? undefined_error(l, undef, nundef) : missing;
}

/* What is still undefined is looked up in libgcc.a, as `gcc` links -lgcc last: its members
 * join the unit like any archive's (their own references bound the same way). */
static int search_libgcc(objrt_link *l)
{
    bool named;
    const char *path = objrt_libgcc_path(&named);
    if (!path)
        return 0;
    size_t n = 0;
    const char **names = malloc((l->ngsyms ? l->ngsyms : 1) * sizeof *names);
    if (!names)
        return objrt_fail(l->ctx, "out of memory");
    for (size_t g = 0; g < l->ngsyms; g++)
        if (l->gsyms[g].state == G_UNDEF && l->gsyms[g].strong_ref)
            names[n++] = l->gsyms[g].name;
    int wanted = objrt_libgcc_defines_any(l->ctx, path, named, names, n);
    free(names);
    if (wanted <= 0)
        return wanted;                      /* nothing there: not worth parsing the archive */
    size_t before = l->nobjs;
    if (objrt_input_add_file(l, path))
        return -1;
    for (size_t m = before; m < l->nobjs; m++)
        l->objs[m]->pulled = false;         /* members only, never the whole archive */
    return index_archive_members(l) || pull_members(l) ? -1 : 0;
}

/* Size the global symbol table once for the objects given: a name is referenced from a
 * few objects, so a quarter of their global symbols is about the number of names (callgrind
 * sets of issue 13, names / global symbols: sqlite 0.27, lua 0.34, the JIT set 0.45,
 * libcrypto 0.30; a quarter holds all four at the map's 1/2 load without a rehash, where
 * growing from 64 slots rehashed 8 times). A larger unit just grows. */
static int reserve_globals(objrt_link *l)
{
    size_t n = 0;
    for (size_t m = 0; m < l->nobjs; m++)
        if (l->objs[m]->pulled)
            n += l->objs[m]->nsyms - l->objs[m]->first_global;
    return objrt_sym_reserve(l, n / 4);
}

int objrt_resolve(objrt_link *l)
{
    size_t n = l->nobjs;                        /* members pulled later append nothing */
    if (reserve_globals(l))
        return -1;
    for (size_t m = 0; m < n; m++)
        if (l->objs[m]->pulled && enter_object(l, l->objs[m]))
            return -1;
    if (index_archive_members(l) || pull_members(l))
        return -1;
    int rc = bind_outside(l, false);
    if (rc == 1)
        rc = search_libgcc(l) ? -1 : bind_outside(l, true);
    return rc == 1 ? -1 : rc;   /* cannot happen: the final pass lists what is missing */
}
