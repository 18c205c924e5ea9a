/* model.h - the module model both TVM ABIs build on (model.c): what a unit registered by
 * name, the system-lib prefix a context registration's name carries, and the set of module
 * handles objrt gave out, which is what lets a handle that loaded code passes back be
 * trusted. modules.c keeps the old ABI's modules in one model, tvm_ffi/ the TVM-FFI ones in
 * another. Nothing here takes a lock: each ABI calls these with its own lock held. */
#ifndef OBJRT_RT_MODEL_H
#define OBJRT_RT_MODEL_H

#include <stddef.h>
#include "objrt.h"

#pragma GCC visibility push(hidden)

typedef struct rt_reg {              /* one registration: a name and the address it gives */
    struct rt_reg *next;
    void *ptr;
    char name[];
} rt_reg;

typedef struct rt_mod {              /* a module; each ABI's own module embeds one */
    struct rt_mod *next, **pprev;    /* in its model's list of units or of views */
    void *handle;                    /* what code is given: the ABI's module this is in */
    objrt_unit *unit;                /* NULL: the host's registrations, or a view */
    int syslib;                      /* a system-lib view of every module */
    rt_reg *regs;                    /* latest first */
    char *prefix;                    /* from "<prefix><context name>"; a view: the prefix
                                        it was asked for; NULL: none */
} rt_mod;

typedef struct rt_model {
    const char *const *ctx_names;    /* what a context registration's name ends with */
    int nctx;
    rt_mod *host;                    /* registrations made outside any load */
    rt_mod *units;                   /* loaded units' modules, latest first */
    rt_mod *views;                   /* system-lib views, one per prefix */
    void *by_unit;                   /* tsearch's root: the units' modules by unit, so that
                                        finding one does not walk the list */
} rt_model;

/* The registration named `prefix` + `name` (NULL prefix: none), compared whole, or NULL. */
rt_reg *rt_reg_find(rt_reg *list, const char *prefix, const char *name);
/* Register name -> ptr in *list (a re-registration wins, as in TVM and tvm-ffi); NULL when
 * out of memory. */
rt_reg *rt_reg_add(rt_reg **list, const char *name, void *ptr);
void rt_regs_free(rt_reg **list);

/* Length of the prefix of "<prefix><context name>" with the context name's index in *ctx,
 * or -1 when name is no context registration. */
long rt_model_ctx_prefix(const rt_model *model, const char *name, int *ctx);
/* Register name -> ptr in m; a context registration also sets m's prefix and gives its
 * context name's index in *ctx (else -1). -1 when out of memory. */
int rt_mod_register(const rt_model *model, rt_mod *m, const char *name, void *ptr, int *ctx);
/* Write m's handle into every context address registered for it. Each must be an aligned,
 * writable pointer-sized place of m's unit itself, checked before the first write: the
 * loader does not write where a unit points it. -1 (message in err) and nothing written
 * when one is not. */
int rt_mod_publish(const rt_model *model, rt_mod *m, char *err, size_t errlen);
const char *rt_mod_prefix(const rt_mod *m);

/* Whether handle is one the model gave out and still holds: the host's, a unit's, a view. */
int rt_model_known(const rt_model *model, const void *handle);
/* The module of unit, or NULL. */
rt_mod *rt_model_unit(const rt_model *model, const objrt_unit *unit);
/* Add m (m->unit set, none yet for it) to the units; -1 when out of memory. */
int rt_model_add_unit(rt_model *model, rt_mod *m);
void rt_model_remove_unit(rt_model *model, rt_mod *m);
/* The view with `prefix`, or NULL; add one. */
rt_mod *rt_model_view(const rt_model *model, const char *prefix);
void rt_model_add_view(rt_model *model, rt_mod *m);
/* The modules a system-lib view sees, in order: the host's, then the units' latest first.
 * for (m = model->host; m; m = rt_model_next(model, m)) */
rt_mod *rt_model_next(const rt_model *model, const rt_mod *m);

#pragma GCC visibility pop
#endif
