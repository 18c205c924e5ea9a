/* export_host UNIT.o PLUGIN.so export|noexport: loads the unit, exports its symbols (or
 * not), then dlopens the plugin, which binds to them. With export: prints the plugin's
 * result (10 * 3 + 6 + 1 = 37) and the unit's counter seen through objrt (6). Without:
 * dlopen must fail naming the missing symbol (status 3). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <objrt.h>

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = objrt_load(ctx, (const char *const *)&argv[1], 1);
    if (!u || (strcmp(argv[3], "export") == 0 && objrt_unit_export(u))) {
        fprintf(stderr, "%s\n", objrt_error(ctx));
        return 125;
    }
    void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 3;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "plugin_run");
    int r = run ? run() : -1;
    printf("plugin_run=%d unit_counter=%d\n", r, *(int *)objrt_unit_sym(u, "unit_counter"));
    dlclose(h);
    objrt_unload(u);
    objrt_free(ctx);
    return 0;
}
