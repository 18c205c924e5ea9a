/*
 * fuzz_readers.c - libFuzzer harness: the readers of `objrt call`'s inputs (issue 27).
 *
 * Byte 0 of the input chooses the reader (its value modulo 5), the rest is what it reads:
 *   0  npy_load_memory      a whole .npy (as an .npz member is read)
 *   1  npy_parse_header     the .npy header's dict literal alone
 *   2  npz_read             a whole .npz, through a memfd (npz has no in-memory entry point)
 *   3  objrt_graph_create   a graph JSON, its functions looked up in a loaded DSO kernel
 *   4  the same, then objrt_graph_load_params: a 2-byte little-endian JSON length, the
 *      JSON, and the params blob (runtime.save_param_dict's format) as the rest
 * The contract checked besides the sanitizers: every refusal explains itself. Nothing of the
 * kernel runs (no objrt_graph_run; constructors off). The kernel object is embedded by
 * build.sh (dso_kernel_obj.h, from tests/runtime/kernels/dso_kernel.c).
 * FUZZ_READERS_VERBOSE=1 prints "accepted" or "refused: <message>" per input (32-fuzz checks
 * with it that every seed is accepted, so the seeds reach past the first check).
 * Build: tests/fuzz/build.sh OUTDIR.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <objrt/tvm_backend.h>

#include "cli/npz.h"
#include "dso_kernel_obj.h"
#define LLVMFuzzerInitialize fz_common_init     /* ours below also loads the kernel */
#include "fuzz_common.h"
#undef LLVMFuzzerInitialize

static TVMModuleHandle fz_mod;
static int fz_verbose;
static int fz_memfd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_common_init(argc, argv);
    /* The graph storage cap is what bounds a hostile graph's allocations; a smaller cap than
     * the 1 GiB default keeps each execution fast and still reaches the checks at the cap. */
    fz_verbose = getenv("FUZZ_READERS_VERBOSE") != NULL;
    setenv("OBJRT_GRAPH_MAX_BYTES", "67108864", 1);
    objrt_input in = { "dso_kernel.o", dso_kernel_o, dso_kernel_o_len };
    objrt_unit *u = objrt_load_memory(fz_ctx, &in, 1);
    if (!u || !(fz_mod = objrt_tvm_module(u))) {
        fprintf(stderr, "fuzz_readers: the embedded kernel does not load: %s\n",
                objrt_error(fz_ctx));
        abort();
    }
    if ((fz_memfd = memfd_create("fuzz.npz", 0)) < 0) {
        perror("fuzz_readers: memfd_create");
        abort();
    }
    return 0;
}

static void explained(int rc, const char *err)
{
    if (rc != 0 && !*err)
        __builtin_trap();
    if (fz_verbose)
        fprintf(stderr, rc ? "refused: %s\n" : "accepted\n", err);
}

static void graph_explained(void)
{
    const char *e = TVMGetLastError();
    explained(-1, e ? e : "");
}

static void fuzz_npz(const uint8_t *d, size_t n)
{
    char path[64], err[512] = "";
    npz_file f;
    if (ftruncate(fz_memfd, 0) != 0 || (n && pwrite(fz_memfd, d, n, 0) != (ssize_t)n))
        abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fz_memfd);
    int rc = npz_read(path, &f, err, sizeof err);
    explained(rc, err);
    if (rc == 0)
        npz_free(&f);
}

static void fuzz_graph(const uint8_t *d, size_t n, int with_params)
{
    const uint8_t *params = NULL;
    size_t plen = 0;
    if (with_params) {
        if (n < 2)
            return;
        size_t jlen = (size_t)d[0] | (size_t)d[1] << 8;
        d += 2, n -= 2;
        if (jlen > n)
            jlen = n;
        params = d + jlen, plen = n - jlen, n = jlen;
    }
    objrt_graph *g = objrt_graph_create((const char *)d, n, fz_mod);
    if (!g) {
        graph_explained();
        return;
    }
    if (params && objrt_graph_load_params(g, params, plen) != 0)
        graph_explained();
    else
        explained(0, "");
    objrt_graph_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    char err[512] = "";
    DLTensor *t = NULL;
    npy_header h;
    int rc;
    switch (data[0] % 5) {
    case 0:
        rc = npy_load_memory(d, n, &t, err, sizeof err);
        explained(rc, err);
        if (rc == 0)
            TVMArrayFree(t);
        break;
    case 1:
        explained(npy_parse_header((const char *)d, n, &h, err, sizeof err), err);
        break;
    case 2:
        fuzz_npz(d, n);
        break;
    default:
        fuzz_graph(d, n, data[0] % 5 == 4);
    }
    return 0;
}
