/*
 * t_reloc_errors.c - relocations objrt cannot apply are refused with a precise error.
 *
 * usage: t_reloc_errors BASIC.o TLS.o TLS_EMPTY.o
 *  - BASIC.o with the type of one .rela.text entry patched to 0xff: the error names the
 *    type number, the section and the offset of the relocation.
 *  - TLS.o (a __thread variable): loads, and its thread-local counter counts.
 *  - TLS_EMPTY.o (an empty .tbss that local-exec code points into): loads and runs (glibc
 *    died with SIGFPE on the module's TLS segment of size 0 before).
 *  - BASIC.o with a PC-relative relocation's addend raised by 1 TiB: refused (never
 *    silently truncated), the error names the section and offset.
 * All: NULL, nothing mapped or leaked, no crash. Controls: unpatched BASIC.o loads;
 * the "names the offset" check rejects a message with a different offset.
 */
#include "t_common.h"

static unsigned char *g_basic, *g_tls;
static const char *g_tls_empty;
static size_t g_basic_size, g_tls_size;
static unsigned long g_rel_offset;      /* r_offset of the patched relocation */

/* Patch the second .rela.text entry (not the first: its offset could be 0). */
static unsigned char *patched_basic(void)
{
    unsigned char *img = malloc(g_basic_size);
    memcpy(img, g_basic, g_basic_size);
    int rs = t_find_section(img, ".rela.text");
    if (rs < 0 || t_shdr(img, (unsigned)rs)->sh_size < 2 * sizeof(Elf64_Rela)) {
        fprintf(stderr, "fixture has fewer than 2 .rela.text entries\n");
        exit(2);
    }
    Elf64_Rela *r = (Elf64_Rela *)(img + t_shdr(img, (unsigned)rs)->sh_offset) + 1;
    r->r_info = ELF64_R_INFO(ELF64_R_SYM(r->r_info), 0xff);
    g_rel_offset = r->r_offset;
    return img;
}

/* Does `err` name the relocation type, the section and the offset? */
static int names_reloc(const char *err, unsigned long offset, char *why, size_t whylen)
{
    if (!t_mentions_number(err, 0xff)) { snprintf(why, whylen, "error does not name type 255/0xff: %s", err); return 0; }
    if (!strstr(err, ".text")) { snprintf(why, whylen, "error does not name section .text: %s", err); return 0; }
    if (!t_mentions_number(err, offset)) { snprintf(why, whylen, "error does not name offset 0x%lx: %s", offset, err); return 0; }
    return 1;
}

static int load_unknown(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    unsigned char *img = patched_basic();
    objrt_unit *u = t_load_mem(ctx, "unknown-reloc.o", img, g_basic_size);
    free(img);
    if (u) { snprintf(why, whylen, "object with relocation type 0xff loaded"); objrt_unload(u); return 0; }
    if (!t_check_error(ctx, "unknown-reloc.o", NULL, why, whylen)) return 0;
    return names_reloc(objrt_error(ctx), g_rel_offset, why, whylen);
}

/* TLS.o defines a __thread counter: it loads, and each call bumps this thread's copy. */
static int load_tls(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_unit *u = t_load_mem(ctx, "tls.o", g_tls, g_tls_size);
    if (!u) { snprintf(why, whylen, "object using TLS refused: %s", objrt_error(ctx)); return 0; }
    int (*bump)(void) = (int (*)(void))objrt_unit_sym(u, "tls_bump");
    int a = bump ? bump() : -1, b = bump ? bump() : -1;
    objrt_unload(u);
    if (a != 1 || b != 2) { snprintf(why, whylen, "tls_bump() returned %d, %d (want 1, 2)", a, b); return 0; }
    return 1;
}

/* A PC-relative relocation whose addend puts the target 1 TiB away: no placement can
 * satisfy it, so it must be refused (never truncated). Returns its offset via *off. */
static unsigned char *far_addend(unsigned long *off)
{
    unsigned char *img = malloc(g_basic_size);
    memcpy(img, g_basic, g_basic_size);
    int rs = t_find_section(img, ".rela.text");
    Elf64_Shdr *sh = t_shdr(img, (unsigned)rs);
    Elf64_Rela *r = (Elf64_Rela *)(img + sh->sh_offset);
    for (size_t i = 0; i < sh->sh_size / sizeof *r; i++) {
        unsigned t = ELF64_R_TYPE(r[i].r_info);
        int pcrel = t_ehdr(img)->e_machine == EM_X86_64 ? (t == R_X86_64_PC32 || t == R_X86_64_PLT32)
                                                       : (t == R_AARCH64_ADR_PREL_PG_HI21 || t == R_AARCH64_CALL26 ||
                                                          t == R_AARCH64_JUMP26);
        if (pcrel) {
            r[i].r_addend += (Elf64_Sxword)1 << 40;
            *off = r[i].r_offset;
            return img;
        }
    }
    fprintf(stderr, "fixture has no PC-relative relocation in .rela.text\n");
    exit(2);
}

static int load_far_addend(objrt_ctx *ctx, void *arg, char *why, size_t whylen)
{
    (void)arg;
    unsigned long off;
    unsigned char *img = far_addend(&off);
    objrt_unit *u = t_load_mem(ctx, "far-addend.o", img, g_basic_size);
    free(img);
    if (u) { snprintf(why, whylen, "a PC-relative relocation 1 TiB out of reach loaded (truncated?)"); objrt_unload(u); return 0; }
    if (!t_check_error(ctx, "far-addend.o", (const char *[]){ ".text", NULL }, why, whylen)) return 0;
    if (!t_mentions_number(objrt_error(ctx), off)) {
        snprintf(why, whylen, "error does not name offset 0x%lx: %s", off, objrt_error(ctx));
        return 0;
    }
    return 1;
}

static int run(void *arg, char *why, size_t whylen)
{
    return t_fails_cleanly_new((t_load_fn)arg, NULL, NULL, why, whylen);
}

static int run_tls_empty(void *arg, char *why, size_t whylen)
{
    (void)arg;
    return t_files_call(&g_tls_empty, 1, "tls_empty_probe", 7, why, whylen);
}

static int run_control(void *arg, char *why, size_t whylen)
{
    (void)arg;
    objrt_input in = { "basic.o", g_basic, g_basic_size };
    return t_mem_call(&in, 1, NULL, 0, why, whylen);
}

int main(int argc, char **argv)
{
    t_args(argc, argv, 4, "BASIC.o TLS.o TLS_EMPTY.o");
    g_tls_empty = argv[3];
    g_basic = t_read_file(argv[1], &g_basic_size);
    g_tls = t_read_file(argv[2], &g_tls_size);
    free(patched_basic());              /* sets g_rel_offset */
    char why[256];

    t_case("reloc-control-unpatched-loads", run_control, NULL);
    /* Negative controls of the message check itself. */
    char msg[128];
    snprintf(msg, sizeof msg, "x.o: section .text+0x%lx: unknown relocation type 255", g_rel_offset + 1);
    t_harness("reloc-control-check-rejects-wrong-offset", !names_reloc(msg, g_rel_offset, why, sizeof why),
             "accepted a message with the wrong offset");
    snprintf(msg, sizeof msg, "x.o: section .text+0x%lx: unknown relocation type 255", g_rel_offset);
    t_harness("reloc-control-check-accepts-right-message", names_reloc(msg, g_rel_offset, why, sizeof why), "%s", why);

    t_case("reloc-unknown-type-0xff", run, (void *)load_unknown);
    t_case("reloc-tls-loads", run, (void *)load_tls);
    t_case("reloc-tls-empty-block-loads", run_tls_empty, NULL);
    t_case("reloc-pcrel-out-of-reach-refused", run, (void *)load_far_addend);
    free(g_basic);
    free(g_tls);
    return t_exit_status();
}
