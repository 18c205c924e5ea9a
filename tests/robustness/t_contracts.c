/*
 * t_contracts - the API contracts objrt.h states for misuse and changing inputs (issue 10,
 * defect 7). argv: basic.o TMPDIR.
 *   unload-twice-returns-minus-1   the second objrt_unload() of a unit returns -1 and reads
 *                                  nothing (it read freed memory and freed it again)
 *   null-path-is-an-error          a NULL entry of objrt_load()'s paths: "a path is NULL"
 *   define-null-is-an-error        objrt_define(ctx, name, NULL) returns -1 with a message
 *   define-twice-replaces          the second objrt_define() of a name wins for later lookups
 *   file-rewritten-during-loads    another process keeps flipping a relocation's offset in
 *                                  the file between a valid value and one past the section
 *                                  while it is loaded 2000 times: each load either works
 *                                  (and basic_answer() returns 42) or is refused; before,
 *                                  the value validated was not the value used (a write
 *                                  2 GiB past the section: SIGSEGV)
 */
#include "t_common.h"
#include <fcntl.h>

static const char *basic_path, *tmpdir;

static int case_unload_twice(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    const char *paths[] = { basic_path };
    objrt_unit *u = objrt_load(ctx, paths, 1);
    if (!u) { snprintf(why, whylen, "load: %s", objrt_error(ctx)); objrt_free(ctx); return 0; }
    int first = objrt_unload(u), second = objrt_unload(u);
    objrt_free(ctx);
    if (first != 0 || second != -1) {
        snprintf(why, whylen, "unload returned %d then %d, expected 0 then -1", first, second);
        return 0;
    }
    return 1;
}

static int case_null_path(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    const char *paths[] = { basic_path, NULL };
    objrt_unit *u = objrt_load(ctx, paths, 2);
    const char *needles[] = { "a path is NULL", NULL };
    int ok = !u && t_check_error(ctx, NULL, needles, why, whylen);
    if (u) objrt_unload(u);
    objrt_free(ctx);
    return ok;
}

static int case_define_null(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_ctx *ctx = objrt_new();
    int rc = objrt_define(ctx, "contract_sym", NULL);
    const char *needles[] = { "NULL", NULL };
    int ok = rc == -1 && t_check_error(ctx, "contract_sym", needles, why, whylen);
    if (rc != -1)
        snprintf(why, whylen, "objrt_define(NULL address) returned %d", rc);
    objrt_free(ctx);
    return ok;
}

static int case_define_twice(void *arg, char *why, size_t whylen)
{
    (void)arg;
    static int a, b;
    objrt_ctx *ctx = objrt_new();
    int ok = objrt_define(ctx, "contract_sym", &a) == 0 && objrt_define(ctx, "contract_sym", &b) == 0 &&
             objrt_sym(ctx, "contract_sym") == &b;
    if (!ok)
        snprintf(why, whylen, "second definition did not replace the first: %p (a %p, b %p)",
                 objrt_sym(ctx, "contract_sym"), (void *)&a, (void *)&b);
    objrt_free(ctx);
    return ok;
}

static int case_rewritten(void *arg, char *why, size_t whylen)
{
    (void)arg;
    size_t n;
    unsigned char *img = t_read_file(basic_path, &n);
    int rs = t_find_section(img, ".rela.text");
    if (rs < 0) { snprintf(why, whylen, "basic.o has no .rela.text"); return 0; }
    off_t field = (off_t)t_shdr(img, (unsigned)rs)->sh_offset;     /* r_offset of entry 0 */
    uint64_t good, bad = 0x7ffffff0;
    memcpy(&good, img + field, 8);
    char path[4200];
    snprintf(path, sizeof path, "%s/rewritten-%d.o", tmpdir, (int)getpid());
    t_write_file(path, img, n);
    free(img);
    pid_t writer = fork();
    if (writer == 0) {
        int fd = open(path, O_WRONLY);
        for (;;) {
            pwrite(fd, &bad, 8, field);
            pwrite(fd, &good, 8, field);
        }
    }
    alarm(120);
    const char *paths[] = { path };
    int loaded = 0, refused = 0, ok = 1;
    for (int i = 0; i < 2000 && ok; i++) {
        objrt_ctx *ctx = objrt_new();
        objrt_unit *u = objrt_load(ctx, paths, 1);
        if (u) {
            int (*answer)(void) = (int (*)(void))objrt_unit_sym(u, "basic_answer");
            int v = answer ? answer() : -1;
            if (v != 42) {
                snprintf(why, whylen, "load %d: basic_answer() = %d, expected 42", i, v);
                ok = 0;
            }
            loaded++;
            objrt_unload(u);
        } else if (!strstr(objrt_error(ctx), "outside the section")) {
            snprintf(why, whylen, "load %d refused for another reason: %s", i, objrt_error(ctx));
            ok = 0;
        } else {
            refused++;
        }
        objrt_free(ctx);
    }
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    unlink(path);
    if (ok)
        printf("# file rewritten during 2000 loads: %d loaded and ran, %d refused\n", loaded, refused);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: t_contracts basic.o TMPDIR\n"); return 2; }
    basic_path = argv[1];
    tmpdir = argv[2];
    t_case("contract-unload-twice-returns-minus-1", case_unload_twice, NULL);
    t_case("contract-null-path-is-an-error", case_null_path, NULL);
    t_case("contract-define-null-is-an-error", case_define_null, NULL);
    t_case("contract-define-twice-replaces", case_define_twice, NULL);
    t_case("contract-file-rewritten-during-loads", case_rewritten, NULL);
    return t_exit_status();
}
