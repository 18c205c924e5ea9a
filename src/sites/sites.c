/*
 * sites.c - the one way to say what is wrong with a relocation site (the walk over the
 * sites is inline in sites.h).
 */
#include <stdio.h>

#include "arch/arch.h"
#include "sites/sites.h"

int objrt_site_fail(objrt_link *l, objrt_site site, const char *what, const uint64_t *value)
{
    const objrt_site *s = &site;
    char detail[256] = "";
    if (value)
        snprintf(detail, sizeof detail, " (value 0x%llx, target 0x%llx, place 0x%llx)%s",
                 (unsigned long long)*value, (unsigned long long)(s->S + (uint64_t)s->A),
                 (unsigned long long)s->P, s->fixed && s->h->formula == F_PCREL
                 ? "; the target is outside the unit: compile with -fPIC so it is reached "
                   "through the GOT" : "");
    char type[32];                  /* a known type by name, an unknown one by number */
    snprintf(type, sizeof type, "unknown (type %u)", s->type);
    return objrt_fail(l->ctx, "%s: section %s+0x%llx: relocation %s against '%s': %s%s",
                      s->o->name, objrt_sec_name(s->o, s->target),
                      (unsigned long long)s->r->r_offset, s->h ? s->h->name : type,
                      objrt_sym_name(s->o, s->sym), what, detail);
}
