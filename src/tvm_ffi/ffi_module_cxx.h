/* ffi_module_cxx.h - the one thing objrt needs of tvm-ffi's C++ classes: a Module object.
 *
 * tvm-ffi's Module (type index 73) is a C++ class with virtual methods (ModuleObj in
 * <tvm/ffi/extra/module.h>): ffi.ModuleGetFunction calls mod->GetFunction() through its
 * vtable, so a Module the real library can use must be an object of a C++ subclass, and its
 * C API offers no way to make one. ffi_module.cc is that subclass, compiled only where
 * tvm-ffi's headers are (libobjrt_tvm_ffi.so); it forwards every question to the callbacks
 * below, so everything else about a loaded module (what is loaded, how a function is found,
 * what keeps what alive) stays in C, in ffi_loader.c. This header is C and names no
 * tvm-ffi type: handles are void *. */
#ifndef OBJRT_FFI_MODULE_CXX_H
#define OBJRT_FFI_MODULE_CXX_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct objrt_ffi_module_ops {
    const char *kind;                       /* Module.kind, e.g. "objrt" */
    /* Function `name` of the module: 1 with a new reference in *out, 0 when there is none,
     * -1 with an error raised in the process's TVM-FFI. `module` is the Module itself. */
    int (*get_function)(void *self, void *module, const char *name, void **out);
    /* The unit's symbol `name` (the __tvm_ffi__doc_ and __tvm_ffi__metadata_ getters), or
     * NULL. */
    void *(*symbol)(void *self, const char *name);
    /* The Module was freed: release what self holds (the unit). */
    void (*release)(void *self);
} objrt_ffi_module_ops;

/* A new Module (one reference, in *out) forwarding to ops with self; 0, or -1 with an
 * error raised. The name libobjrt looks for in libobjrt_tvm_ffi.so. */
int objrt_ffi_module_new(void *self, const objrt_ffi_module_ops *ops, void **out);
typedef int (*objrt_ffi_module_new_fn)(void *, const objrt_ffi_module_ops *, void **);

#ifdef __cplusplus
}
#endif
#endif
