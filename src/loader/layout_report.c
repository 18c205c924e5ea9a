/*
 * layout.c - `objrt layout`: run the pipeline up to relocation without writing, and
 * report where everything goes and how close every relocation form comes to its limit.
 * The objects may be of another architecture than the host (planning needs no CPU).
 */
#include <stdio.h>
#include <stdlib.h>

#include "arch/arch.h"
#include "base/escape.h"
#include "loader/pipeline.h"
#include "finish/finish.h"
#include "debug/unitinfo.h"
#include "layout/layout.h"
#include "symbols/symbols.h"
#include "symbols/lookup.h"
#include "input/input.h"
#include "sites/reach.h"

static const char *group_name[GRP_COUNT] = { "RX", "R", "RW" };

static void print_items(const objrt_link *l, FILE *out)
{
    const objrt_plan *p = &l->plan;
    fprintf(out, "%-6s %-12s %-10s %-6s %s\n", "group", "address", "size", "align", "what");
    for (int g = 0; g < GRP_COUNT; g++)
        for (size_t i = 0; i < p->nitems; i++) {
            const objrt_item *it = &p->items[i];
            if (it->group != g)
                continue;
            char what[600];
            switch (it->kind) {
            case IT_GOT:   snprintf(what, sizeof what, "GOT (%zu slots)", p->got.n); break;
            case IT_STUBS: snprintf(what, sizeof what, "stubs (%zu)", p->stub.n); break;
            case IT_COMMON: snprintf(what, sizeof what, "COMMON %s", l->gsyms[it->obj].name); break;
            default:
                snprintf(what, sizeof what, "%s %s%s", l->objs[it->obj]->name,
                         objrt_sec_name(l->objs[it->obj], it->shndx),
                         it->kind == IT_EH_FRAME ? " (+4 terminator)" : "");
            }
            char esc[OBJRT_ESC_MAX];        /* object, section and symbol names: escape.h */
            fprintf(out, "%-6s %#-12llx %#-10llx %-6llu %s\n", group_name[g],
                    (unsigned long long)((uintptr_t)l->base + it->off),
                    (unsigned long long)it->size, (unsigned long long)it->align,
                    objrt_escape(what, esc, sizeof esc));
        }
}

static void print_groups(const objrt_link *l, FILE *out)
{
    const objrt_plan *p = &l->plan;
    uint64_t padding = p->total - p->used;
    fprintf(out, "\nreservation: %#llx bytes at %p, page size %zu (window [%#llx, %#llx])\n",
            (unsigned long long)p->total, (void *)l->base, p->page,
            (unsigned long long)p->win_lo, (unsigned long long)p->win_hi);
    for (int g = 0; g < GRP_COUNT; g++)
        fprintf(out, "  %-3s offset %#-10llx size %#-10llx (pages %#llx)\n", group_name[g],
                (unsigned long long)p->group_off[g], (unsigned long long)p->group_size[g],
                (unsigned long long)objrt_align_up(p->group_size[g], p->page));
    fprintf(out, "  content %llu bytes, alignment and page rounding %llu bytes (%.1f%%)\n",
            (unsigned long long)p->used, (unsigned long long)padding,
            p->total ? 100.0 * (double)padding / (double)p->total : 0.0);
    fprintf(out, "  GOT slots %zu, stubs %zu (%zu calls needed one)\n", p->got.n,
            p->stub.n, l->stubs_used);
    fprintf(out, "  COMDAT groups dropped as duplicates %zu, bytes saved %llu\n",
            l->comdat_groups_dropped, (unsigned long long)l->comdat_bytes_dropped);
    if (l->tls.size || l->tls.nents)        /* handed to glibc as a TLS module at load */
        fprintf(out, "  thread-local block %llu bytes (%llu initialised, align %llu), "
                "%zu TLS GOT entries (%llu bytes)%s\n", (unsigned long long)l->tls.size,
                (unsigned long long)l->tls.filesz, (unsigned long long)l->tls.align,
                l->tls.nents, (unsigned long long)l->tls.got_bytes,
                l->tls.static_needed ? ", static TLS (initial/local exec)" : "");
    fprintf(out, "\n");
}

int objrt_layout_report(objrt_ctx *ctx, const char *const *paths, size_t n, void *out)
{
    if (!ctx || !paths || !n)
        return -1;
    struct objrt_reach *reach = calloc(1, sizeof *reach);
    if (!reach)
        return objrt_fail(ctx, "out of memory");
    if (!objrt_ctx_begin(ctx)) {
        free(reach);
        return -1;
    }
    objrt_link l = { .ctx = ctx, .arch = NULL, .reach = reach, .dry_run = true };
    int rc = objrt_link_run(&l, paths, NULL, n, OBJRT_RELOCATE, NULL);
    if (rc == 0) {
        char esc[OBJRT_ESC_MAX];
        if (l.nobjs)
            fprintf(out, "objrt layout: %s objects\n", l.arch->name);
        else                            /* nothing to place: say so, then the empty plan */
            fprintf(out, "objrt layout: no object in the inputs (%s%s): an empty layout, "
                    "planned for the host (%s)\n", objrt_escape(paths[0], esc, sizeof esc),
                    n > 1 ? ", ..." : "",
                    l.arch->name);
        print_items(&l, out);
        print_groups(&l, out);
        objrt_reach_print(reach, out);
    }
    objrt_link_release(&l);
    objrt_ctx_end(ctx);
    free(reach);
    return rc;
}
