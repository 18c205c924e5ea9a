/*
 * t_perfmap - OBJRT_PERF_MAP=1 writes /tmp/perf-<pid>.map safely (issue 10, defect 4).
 * argv: basic.o. Each case runs in its own child (its own pid, so its own map path):
 *   created-0600         a new map file is created mode 0600 (umask 022 would give 0644)
 *   symlink-not-followed a symlink planted at the path is not followed: its target is
 *                        untouched
 *   other-readable-left  an existing map file that others can read is left alone
 *   foreign-owner-left   (root only) a map file owned by another user is left alone
 *   fifo-does-not-block  a FIFO planted at the path neither blocks the load nor is written
 *   newline-in-name      a symbol name with a newline (and a backslash) cannot forge a line:
 *                        every line is "START SIZE name", the newline escaped as \x0a
 * Before the fix: 0644, the symlink's target appended to, planted files written, the FIFO
 * blocked forever, the newline written raw.
 */
#include "t_common.h"
#include <fcntl.h>
#include <sys/stat.h>

static unsigned char *obj;
static size_t obj_size;
static char victim_dir[4096];

static void map_path(char *buf, size_t len) { snprintf(buf, len, "/tmp/perf-%d.map", (int)getpid()); }

static int load_basic(unsigned char *img, char *why, size_t whylen)
{
    setenv("OBJRT_PERF_MAP", "1", 1);
    objrt_ctx *ctx = objrt_new();
    objrt_unit *u = t_load_mem(ctx, "basic.o", img, obj_size);
    if (!u) {
        snprintf(why, whylen, "load failed: %s", objrt_error(ctx));
        objrt_free(ctx);
        return 0;
    }
    objrt_unload(u);
    objrt_free(ctx);
    return 1;
}

static int case_created(void *arg, char *why, size_t whylen)
{
    (void)arg;
    char path[64];
    struct stat st;
    map_path(path, sizeof path);
    unlink(path);
    umask(022);
    int ok = load_basic(obj, why, whylen);
    if (ok && stat(path, &st) != 0) {
        snprintf(why, whylen, "no map file written at %s", path);
        ok = 0;
    } else if (ok && (st.st_mode & 0777) != 0600) {
        snprintf(why, whylen, "map file mode %o, expected 600", st.st_mode & 0777);
        ok = 0;
    }
    unlink(path);
    return ok;
}

/* Plant `kind` at the map path, load, and check the planted thing was not written. */
static int planted(const char *kind, char *why, size_t whylen)
{
    char path[64], victim[4200];
    struct stat st;
    map_path(path, sizeof path);
    snprintf(victim, sizeof victim, "%s/victim-%d", victim_dir, (int)getpid());
    unlink(path);
    t_write_file(victim, "precious\n", 9);
    int ok = 1;
    if (strcmp(kind, "symlink") == 0) {
        ok = symlink(victim, path) == 0;
    } else if (strcmp(kind, "fifo") == 0) {
        ok = mkfifo(path, 0666) == 0;
    } else {
        t_write_file(path, "precious\n", 9);
        ok = chmod(path, 0644) == 0 && (strcmp(kind, "foreign") != 0 || chown(path, 65534, 65534) == 0);
    }
    if (!ok) {
        snprintf(why, whylen, "cannot plant a %s at %s: %s", kind, path, strerror(errno));
        unlink(path);
        unlink(victim);
        return 0;
    }
    alarm(20);                          /* a blocking open ends the child: a FAIL */
    ok = load_basic(obj, why, whylen);
    alarm(0);
    const char *check = strcmp(kind, "symlink") == 0 ? victim : path;
    if (ok && strcmp(kind, "fifo") != 0 && (stat(check, &st) != 0 || st.st_size != 9)) {
        snprintf(why, whylen, "the planted %s (%s) was written to: %lld bytes", kind, check,
                 (long long)st.st_size);
        ok = 0;
    }
    unlink(path);
    unlink(victim);
    return ok;
}

static int case_symlink(void *a, char *w, size_t n) { (void)a; return planted("symlink", w, n); }
static int case_readable(void *a, char *w, size_t n) { (void)a; return planted("readable", w, n); }
static int case_foreign(void *a, char *w, size_t n) { (void)a; return planted("foreign", w, n); }
static int case_fifo(void *a, char *w, size_t n) { (void)a; return planted("fifo", w, n); }

static int case_newline(void *arg, char *why, size_t whylen)
{
    (void)arg;
    unsigned char *img = malloc(obj_size);
    memcpy(img, obj, obj_size);
    int s = t_find_symbol(img, "basic_add");
    if (s < 0) { snprintf(why, whylen, "basic.o lacks basic_add"); return 0; }
    Elf64_Shdr *strtab = t_shdr(img, t_shdr(img, (unsigned)t_find_type(img, SHT_SYMTAB))->sh_link);
    char *name = (char *)img + strtab->sh_offset + t_symbol(img, s)->st_name;
    name[5] = '\n';                     /* "basic\nadd" */
    name[0] = '\\';                     /* "\asic\nadd" */
    char path[64];
    map_path(path, sizeof path);
    unlink(path);
    int ok = load_basic(img, why, whylen);
    free(img);
    if (!ok) return 0;
    FILE *f = fopen(path, "r");
    char line[512];
    int lines = 0, escaped = 0;
    while (ok && f && fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        char rest[400];
        lines++;
        if (sscanf(line, "%llx %llx %399s", &a, &b, rest) != 3) {
            snprintf(why, whylen, "line %d is not 'START SIZE name': %s", lines, line);
            ok = 0;
        }
        escaped |= strstr(line, "\\asic\\x0aadd") != NULL;
    }
    if (f) fclose(f);
    unlink(path);
    if (ok && (!lines || !escaped)) {
        snprintf(why, whylen, "%d lines, the escaped name \\asic\\x0aadd %s", lines,
                 escaped ? "present" : "missing");
        ok = 0;
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: t_perfmap basic.o TMPDIR\n"); return 2; }
    obj = t_read_file(argv[1], &obj_size);
    snprintf(victim_dir, sizeof victim_dir, "%s", argv[2]);
    t_case("perfmap-created-0600", case_created, NULL);
    t_case("perfmap-symlink-not-followed", case_symlink, NULL);
    t_case("perfmap-other-readable-file-left-alone", case_readable, NULL);
    if (geteuid() == 0)
        t_case("perfmap-foreign-owner-left-alone", case_foreign, NULL);
    t_case("perfmap-fifo-does-not-block", case_fifo, NULL);
    t_case("perfmap-newline-in-name-escaped", case_newline, NULL);
    free(obj);
    return t_exit_status();
}
