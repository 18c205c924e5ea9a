/*
 * t_libsearch - objrt_add_library()'s search for a short name (libsearch.c):
 *   ldscript-glibc-libm          glibc's libm.so script names libm.so.6; libmvec (AS_NEEDED)
 *                                is not counted
 *   ldscript-glibc-libc          libc.so's script: libc.so.6; the archive and the dynamic
 *                                linker (AS_NEEDED) are not counted
 *   ldscript-input-and-lname     INPUT(libncurses.so.6 -ltinfo): the library, not -ltinfo
 *   ldscript-comments-ignored    a GROUP inside a comment names nothing
 *   ldscript-no-library          no GROUP/INPUT, only AS_NEEDED, binary bytes, an over-long
 *                                script: nothing
 *   add-library-script-no-scan   objrt_add_library("m"), the system's libm.so being a
 *                                script: loads libm (cos found) with no directory opened
 *   (control) add-library-scan-counted  a name with only libNAME.so.N installed loads by the
 *                                directory scan, and the counter sees it open directories
 * argv: SCRIPT-NAME SCAN-NAME (e.g. m gomp): a library whose libNAME.so is a GNU ld script,
 * and one that has no libNAME.so at all.
 */
#include "../robustness/t_common.h"
#include <dirent.h>
#include <dlfcn.h>

#include "symbols/libsearch.h"

/* Every opendir() of this process, counted: libobjrt.a's calls bind to this definition. */
static int opendir_calls;

DIR *opendir(const char *name)
{
    static DIR *(*real)(const char *);
    if (!real)
        real = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
    opendir_calls++;
    return real ? real(name) : NULL;
}

/* nth library of script is want (NULL: there is none). */
static int script_gives(const char *script, size_t nth, const char *want, char *why, size_t whylen)
{
    char out[512] = "";
    bool got = objrt_ld_script_lib(script, nth, out, sizeof out);
    if (want ? got && strcmp(out, want) == 0 : !got)
        return 1;
    snprintf(why, whylen, "library %zu of '%.80s...': got %s%s%s, want %s", nth, script,
             got ? "'" : "none", got ? out : "", got ? "'" : "", want ? want : "none");
    return 0;
}

static const char libm_script[] =
    "/* GNU ld script\n*/\nOUTPUT_FORMAT(elf64-x86-64)\n"
    "GROUP ( /lib/x86_64-linux-gnu/libm.so.6  AS_NEEDED ( /lib/x86_64-linux-gnu/libmvec.so.1 ) )\n";
static const char libc_script[] =
    "/* GNU ld script\n   Use the shared library, but some functions are only in\n"
    "   the static library, so try that secondarily.  */\nOUTPUT_FORMAT(elf64-x86-64)\n"
    "GROUP ( /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libc_nonshared.a  "
    "AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )\n";

static int case_libm(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return script_gives(libm_script, 0, "/lib/x86_64-linux-gnu/libm.so.6", why, whylen) &&
           script_gives(libm_script, 1, NULL, why, whylen);
}

static int case_libc(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return script_gives(libc_script, 0, "/lib/x86_64-linux-gnu/libc.so.6", why, whylen) &&
           script_gives(libc_script, 1, NULL, why, whylen);
}

static int case_input(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return script_gives("INPUT(libncurses.so.6 -ltinfo)\n", 0, "libncurses.so.6", why, whylen) &&
           script_gives("INPUT(libncurses.so.6 -ltinfo)\n", 1, NULL, why, whylen) &&
           script_gives("GROUP(liba.so.1,libb.so.2)", 1, "libb.so.2", why, whylen);
}

static int case_comments(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return script_gives("/* GROUP ( /lib/fake.so.1 ) */ GROUP ( /lib/real.so.2 )", 0,
                        "/lib/real.so.2", why, whylen) &&
           script_gives("/* GROUP ( /lib/fake.so.1 ) */", 0, NULL, why, whylen) &&
           script_gives("GROUP ( /lib/real.so.2 ) /* unterminated GROUP ( /x.so )", 1, NULL,
                        why, whylen);
}

static int case_nothing(void *arg, char *why, size_t whylen)
{
    (void)arg;
    static char long_script[6000];
    memset(long_script, ' ', sizeof long_script - 1);
    memcpy(long_script + 5000, "GROUP ( /lib/far.so.1 )", 23);
    return script_gives("OUTPUT_FORMAT(elf64-x86-64)\n", 0, NULL, why, whylen) &&
           script_gives("GROUP ( AS_NEEDED ( /lib/a.so.1 ) )", 0, NULL, why, whylen) &&
           script_gives("GROUP ( /usr/lib/libc_nonshared.a )", 0, NULL, why, whylen) &&
           script_gives("\177ELF\2\1\1", 0, NULL, why, whylen) &&
           script_gives("", 0, NULL, why, whylen) &&
           script_gives(long_script, 0, NULL, why, whylen);
}

/* objrt_add_library(name): loads, and opens `dirs` directories on the way (-1: any > 0). */
static int add_library(const char *name, const char *sym, int dirs, char *why, size_t whylen)
{
    objrt_ctx *ctx = objrt_new();
    opendir_calls = 0;
    int rc = objrt_add_library(ctx, name);
    int calls = opendir_calls;
    int ok = rc == 0 && (dirs < 0 ? calls > 0 : calls == dirs);
    if (rc != 0)
        snprintf(why, whylen, "objrt_add_library(\"%s\"): %s", name, objrt_error(ctx));
    else if (!ok)
        snprintf(why, whylen, "objrt_add_library(\"%s\") opened %d directories, want %s", name,
                 calls, dirs < 0 ? "some" : "none");
    else if (sym && !dlsym(RTLD_DEFAULT, sym)) {
        snprintf(why, whylen, "objrt_add_library(\"%s\"): %s not found after it", name, sym);
        ok = 0;
    }
    objrt_free(ctx);
    return ok;
}

static const char *script_name, *scan_name;

static int case_script_no_scan(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return add_library(script_name, strcmp(script_name, "m") == 0 ? "cos" : NULL, 0, why, whylen);
}

static int case_scan_counted(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return add_library(scan_name, NULL, -1, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 3, "SCRIPT-NAME SCAN-NAME");
    script_name = argv[1];
    scan_name = argv[2];
    t_case("ldscript-glibc-libm", case_libm, NULL);
    t_case("ldscript-glibc-libc", case_libc, NULL);
    t_case("ldscript-input-and-lname", case_input, NULL);
    t_case("ldscript-comments-ignored", case_comments, NULL);
    t_case("ldscript-no-library", case_nothing, NULL);
    t_case("add-library-script-no-scan", case_script_no_scan, NULL);
    char why[512] = "";
    int ok = t_case_quiet(case_scan_counted, NULL, why, sizeof why);
    t_harness("add-library-scan-counted", ok, "%s", why);
    return t_exit_status();
}
