/* host.c - a C host of the real tvm-ffi that makes objrt its object loader with the one
 * call <objrt.h> documents, then loads through tvm-ffi's own API: ffi.ModuleLoadFromFile
 * (what Module::LoadFromFile and tvm_ffi.load_module call) and ffi.ModuleGetFunction.
 *     host FILE...    prints, per file, what its functions give; run once with the .o
 *                     (objrt) and once with the .so (tvm-ffi's loader), the output must match
 *     host -n         only the registration, printing its error (the negative cases) */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

int objrt_tvm_ffi_loader(char *err, size_t errlen);   /* <objrt.h>; its types clash with c_api.h */

static TVMFFIObjectHandle global(const char *name)
{
    TVMFFIByteArray n = { name, strlen(name) };
    TVMFFIObjectHandle f = NULL;
    return TVMFFIFunctionGetGlobal(&n, &f) == 0 ? f : NULL;
}

static void print_raised(const char *what)
{
    TVMFFIObjectHandle e = NULL;
    TVMFFIErrorMoveFromRaised(&e);
    if (!e) {
        printf("%s: failed, nothing raised\n", what);
        return;
    }
    const TVMFFIErrorCell *c = (const void *)((const char *)e + sizeof(TVMFFIObject));
    printf("%s: %.*s: %.*s\n", what, (int)c->kind.size, c->kind.data, (int)c->message.size,
           c->message.data);
    TVMFFIObjectDecRef(e);
}

static TVMFFIAny str_arg(const char *s)
{
    TVMFFIAny a = { .type_index = kTVMFFIRawStr };
    a.v_c_str = s;
    return a;
}

static TVMFFIAny int_arg(int64_t v)
{
    TVMFFIAny a = { .type_index = kTVMFFIInt };
    a.v_int64 = v;
    return a;
}

static void call(TVMFFIObjectHandle mod, TVMFFIObjectHandle get, const char *name,
                 TVMFFIAny *args, int n)
{
    TVMFFIAny q[3] = { { .type_index = kTVMFFIModule }, str_arg(name), { .type_index = kTVMFFIBool } };
    TVMFFIAny f = { .type_index = kTVMFFINone }, r = { .type_index = kTVMFFINone };
    q[0].v_obj = mod;
    if (TVMFFIFunctionCall(get, q, 3, &f) != 0) {
        print_raised(name);
        return;
    }
    if (f.type_index != kTVMFFIFunction) {
        printf("%s: no such function (type %d)\n", name, f.type_index);
        return;
    }
    if (TVMFFIFunctionCall(f.v_obj, args, n, &r) != 0)
        print_raised(name);
    else if (r.type_index == kTVMFFIInt)
        printf("%s: %lld\n", name, (long long)r.v_int64);
    else
        printf("%s: result of type %d\n", name, r.type_index);
    if (r.type_index >= kTVMFFIStaticObjectBegin)
        TVMFFIObjectDecRef(r.v_obj);
    TVMFFIObjectDecRef(f.v_obj);
}

int main(int argc, char **argv)
{
    char err[512] = "";
    int rc = objrt_tvm_ffi_loader(err, sizeof err);
    if (argc == 2 && strcmp(argv[1], "-n") == 0) {
        printf("loader %d: %s\n", rc, err);
        return 0;
    }
    if (rc != 0) {
        printf("loader: %s\n", err);
        return 1;
    }
    TVMFFIObjectHandle load = global("ffi.ModuleLoadFromFile"), get = global("ffi.ModuleGetFunction");
    for (int i = 1; i < argc; i++) {
        TVMFFIAny path = str_arg(argv[i]), m = { .type_index = kTVMFFINone };
        TVMFFIAny two[2] = { int_arg(20), int_arg(22) }, four[4] = { int_arg(1), int_arg(2),
                                                                     int_arg(3), int_arg(4) };
        if (TVMFFIFunctionCall(load, &path, 1, &m) != 0) {
            print_raised("load");
            continue;
        }
        printf("module type %d\n", m.type_index);
        call(m.v_obj, get, "add_int", two, 2);
        call(m.v_obj, get, "sum4", four, 4);
        call(m.v_obj, get, "add_int", four, 1);
        call(m.v_obj, get, "fail", NULL, 0);
        call(m.v_obj, get, "fail_parts", NULL, 0);
        call(m.v_obj, get, "no_such_function", NULL, 0);
        TVMFFIObjectDecRef(m.v_obj);
    }
    TVMFFIObjectDecRef(load);
    TVMFFIObjectDecRef(get);
    return 0;
}
