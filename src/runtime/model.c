/* model.c - the module model both TVM ABIs build on (model.h): registrations by name, the
 * prefix a context registration carries, and the set of handles given out. */
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "base/names.h"
#include "finish/unit.h"

rt_reg *rt_reg_find(rt_reg *r, const char *prefix, const char *name)
{
    for (; r; r = r->next)
        if (objrt_name_is(r->name, prefix, name))
            return r;
    return NULL;
}

rt_reg *rt_reg_add(rt_reg **list, const char *name, void *ptr)
{
    rt_reg *r = rt_reg_find(*list, NULL, name);
    size_t len = strlen(name);
    if (!r && (r = malloc(sizeof *r + len + 1))) {
        memcpy(r->name, name, len + 1);
        r->next = *list;
        *list = r;
    }
    if (r)
        r->ptr = ptr;
    return r;
}

void rt_regs_free(rt_reg **list)
{
    while (*list) {
        rt_reg *r = *list;
        *list = r->next;
        free(r);
    }
}

long rt_model_ctx_prefix(const rt_model *model, const char *name, int *ctx)
{
    size_t len = strlen(name);
    for (int i = 0; i < model->nctx; i++) {
        size_t sfx = strlen(model->ctx_names[i]);
        if (len >= sfx && strcmp(name + len - sfx, model->ctx_names[i]) == 0) {
            *ctx = i;
            return (long)(len - sfx);
        }
    }
    *ctx = -1;
    return -1;
}

int rt_mod_register(const rt_model *model, rt_mod *m, const char *name, void *ptr, int *ctx)
{
    long plen = rt_model_ctx_prefix(model, name, ctx);
    char *prefix = NULL;
    if (plen >= 0 && !(prefix = strndup(name, (size_t)plen)))
        return -1;
    if (!rt_reg_add(&m->regs, name, ptr)) {
        free(prefix);
        return -1;
    }
    if (prefix) {
        free(m->prefix);
        m->prefix = prefix;
    }
    return 0;
}

int rt_mod_publish(const rt_model *model, rt_mod *m, char *err, size_t errlen)
{
    int ctx;
    for (rt_reg *r = m->regs; r; r = r->next)
        if (r->ptr && rt_model_ctx_prefix(model, r->name, &ctx) >= 0 &&
            (objrt_unit_extent(m->unit, r->ptr, true) < sizeof(void *) ||
             (uintptr_t)r->ptr % sizeof(void *))) {
            snprintf(err, errlen, "'%s' registered at %p must be an aligned, writable pointer "
                     "inside the unit's own sections", r->name, r->ptr);
            return -1;
        }
    for (rt_reg *r = m->regs; r; r = r->next)
        if (r->ptr && rt_model_ctx_prefix(model, r->name, &ctx) >= 0)
            *(void **)r->ptr = m->handle;
    return 0;
}

const char *rt_mod_prefix(const rt_mod *m)
{
    return m->prefix ? m->prefix : "";
}

int rt_model_known(const rt_model *model, const void *handle)
{
    if (handle == model->host->handle)
        return 1;
    for (rt_mod *m = model->units; m; m = m->next)
        if (m->handle == handle)
            return 1;
    for (rt_mod *m = model->views; m; m = m->next)
        if (m->handle == handle)
            return 1;
    return 0;
}

static int unit_order(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const rt_mod *)a)->unit, y = (uintptr_t)((const rt_mod *)b)->unit;
    return (x > y) - (x < y);
}

rt_mod *rt_model_unit(const rt_model *model, const objrt_unit *unit)
{
    rt_mod key = { .unit = (objrt_unit *)unit };
    void *node = tfind(&key, &model->by_unit, unit_order);
    return node ? *(rt_mod **)node : NULL;
}

static void push(rt_mod **list, rt_mod *m)
{
    m->next = *list;
    if (m->next)
        m->next->pprev = &m->next;
    m->pprev = list;
    *list = m;
}

int rt_model_add_unit(rt_model *model, rt_mod *m)
{
    void *node = tsearch(m, &model->by_unit, unit_order);
    if (!node || *(rt_mod **)node != m)       /* out of memory, or the unit has one */
        return -1;
    push(&model->units, m);
    return 0;
}

void rt_model_remove_unit(rt_model *model, rt_mod *m)
{
    tdelete(m, &model->by_unit, unit_order);
    *m->pprev = m->next;
    if (m->next)
        m->next->pprev = m->pprev;
}

rt_mod *rt_model_view(const rt_model *model, const char *prefix)
{
    rt_mod *m;
    for (m = model->views; m; m = m->next)
        if (strcmp(rt_mod_prefix(m), prefix) == 0)
            break;
    return m;
}

void rt_model_add_view(rt_model *model, rt_mod *m)
{
    push(&model->views, m);
}

rt_mod *rt_model_next(const rt_model *model, const rt_mod *m)
{
    return m == model->host ? model->units : m->next;
}
