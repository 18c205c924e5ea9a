"""numba_spread.py N STEP_MIB - the seed's bug as a numba user meets it (issue 23).

Compiles N small jitted functions, each reading a global numpy array, and calls each
once. Before each compilation the program reserves STEP_MIB of address space where the
kernel puts a large mapping, as a long-running process that maps buffers does. Run it
under MCJIT or under objrt (python3 -m objrt.numba).

Why a function's code drifts away from its data under MCJIT (LLVM's
SectionMemoryManager, llvmlite 0.39): code and read-write data are kept in separate
groups. The read-write group is never made read-only, so its free space is never
trimmed and every later module's small read-write data (numba's environment pointer,
and the GOT that RuntimeDyld allocates there) is placed in the same first block. Code
pages are made executable at finalization and their free tail is dropped, so every
module gets a new code block, asked for next to the last one; that address is taken, and
the kernel (and qemu-user) puts it where mmap puts a page without a usable hint: the top
of the highest free gap, just below the last reservation. So each reservation moves the
new code further from the read-write block, and the code reaches its GOT entries with
`adrp`, +-4 GiB.

To make the drift the same in every run the program first fills every free gap under
1 TiB (in pieces: under qemu-user the guest's /proc/self/maps does not show qemu's own
mappings), so that a new page goes to the top of the big free gap.

Prints one line per function, flushed before the call:
    fn I code=0x... env=0x... distance=G GiB
then `ok I` or `WRONG I got X expected Y`; ends with `done N correct=C span=G GiB` (how
far below their start the reservations reach).

numba_spread.py --check mcjit|objrt LOG STATUS judges such a log (STATUS: the run's exit
status) and prints `ok ...` or why not.
"""
import ctypes
import re
import sys

if sys.argv[1:2] != ["--check"]:
    import numpy as np
    from numba import njit

PROT_NONE = 0
MAP_FLAGS = 0x02 | 0x20 | 0x4000            # MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
PAGE = 4096
GRAIN = PAGE                                # gaps are filled down to single pages
HUGE = 1 << 40                              # the gap the data goes to: never filled

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
TAKEN = ctypes.cast(libc.mmap, ctypes.c_void_p).value    # a hint that is always taken


def reserve(hint, size):
    """mmap PROT_NONE with a plain hint (no MAP_FIXED): the address the kernel chose."""
    p = libc.mmap(hint, size, PROT_NONE, MAP_FLAGS, -1, 0)
    return None if p in (None, ctypes.c_void_p(-1).value) else p


def reserve_exactly(lo, hi):
    """Reserve what can be reserved of [lo, hi) in pieces of GRAIN or more: under
    qemu-user the guest's maps do not show qemu's own mappings, so part may be taken."""
    if hi - lo < GRAIN:
        return
    p = reserve(lo, hi - lo)
    if p == lo:
        return
    if p is not None:
        libc.munmap(p, hi - lo)
    if hi - lo <= GRAIN:
        return
    mid = lo + (hi - lo) // 2 & ~4095
    reserve_exactly(lo, mid)
    reserve_exactly(mid, hi)


def gaps():
    """Free intervals between the mappings of /proc/self/maps, as (start, end)."""
    spans = []
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = line.split()[0].split("-")
            spans.append((int(lo, 16), int(hi, 16)))
    spans.sort()
    return [(a[1], b[0]) for a, b in zip(spans, spans[1:]) if b[0] > a[1]]


def fill_gaps(tried=set()):
    """Reserve every free gap under HUGE bytes, so that the next mapping of a page goes to
    the top of a huge gap. A gap tried before is what qemu's own mappings left over."""
    for gap in gaps():
        if gap[1] - gap[0] < HUGE and gap not in tried:
            reserve_exactly(*gap)
            tried.add(gap)


def make_function(i):
    ns = {"np": np, "njit": njit}
    exec("A = np.arange(16, dtype=np.float64) * %d + 1\n"
         "@njit\n"
         "def f(k):\n"
         "    return A[k %% 16] * 2.0\n" % i, ns)
    return ns["f"]


def compiled(i):
    """f_i compiled for int64, with the address of its code and of its environment (a
    common symbol: MCJIT puts it in its read-write group with the GOT that reaches it)."""
    f = make_function(i)
    f.compile("(int64,)")
    (sig,) = f.overloads
    cres = f.overloads[sig]
    code = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    env = cres.library._codegen._engine.get_global_value_address(cres.fndesc.env_name)
    return f, code, env


def check(f, i):
    k = 3 + 7 * i
    got, want = f(k), ((k % 16) * i + 1) * 2.0
    print(("ok %d" % i) if got == want else "WRONG %d got %r expected %r" % (i, got, want),
          flush=True)
    return got == want


def main():
    n, step = int(sys.argv[1]), int(sys.argv[2]) << 20
    keep, correct = [], 0
    f, code, env = compiled(0)                # numba's own first compilations happen here
    correct += check(f, 0)
    keep.append(f)
    top = low = None
    for i in range(1, n):
        fill_gaps()
        r = reserve(TAKEN, step)              # new code blocks go below this
        top, low = top or r + step, r
        f, code, env = compiled(i)
        print("fn %d code=%#x env=%#x distance=%.2f GiB" % (i, code, env, abs(code - env) / 2**30),
              flush=True)
        correct += check(f, i)
        keep.append(f)
    print("done %d correct=%d span=%.2f GiB" % (n, correct, (top - low) / 2**30), flush=True)


REACH = 4.0                                 # GiB: adrp's reach, as the log prints it


def judge(jit, text, status):
    """Why the log of a run under `jit` does not show what it must; None when it does.
    MCJIT must be right while code and data are within reach and fail at the first
    function beyond it (a crash or a wrong value); objrt must be right throughout."""
    runs, result = [], {}
    for m in re.finditer(r"^fn (\d+) code=\S+ env=\S+ distance=([\d.]+) GiB$", text, re.M):
        runs.append((int(m.group(1)), float(m.group(2))))
    for m in re.finditer(r"^(ok|WRONG) (\d+)", text, re.M):
        result[int(m.group(2))] = m.group(1)
    span = re.search(r"^done \d+ correct=\d+ span=([\d.]+) GiB$", text, re.M)
    if not runs:
        return "no function was compiled"
    far = [i for i, d in runs if d > REACH]
    if jit == "objrt":
        bad = [i for i, _ in runs if result.get(i) != "ok"]
        if status != 0 or not span:
            return "exit status %d, no summary line" % status
        if float(span.group(1)) <= REACH:
            return "the reservations spread %s GiB only: the case shows nothing" % span.group(1)
        if far or bad:
            return "code and data %.2f GiB apart; not right: %s" % (max(d for _, d in runs), bad[:3])
        return "ok %d/%d correct, code and data at most %.2f GiB apart, reservations over %s GiB" % (
            len(runs) - len(bad), len(runs), max(d for _, d in runs), span.group(1))
    if not far:
        return "code and data never beyond %.0f GiB (at most %.2f): the case shows nothing" % (
            REACH, max(d for _, d in runs))
    first = far[0]
    early = [i for i, d in runs if i < first and result.get(i) != "ok"]
    if early:
        return "function %d failed within reach: something else is wrong" % early[0]
    if result.get(first) == "ok":
        return "function %d was right %.2f GiB from its data: the case shows nothing" % (
            first, dict(runs)[first])
    how = "wrong value" if result.get(first) == "WRONG" else "exit status %d" % status
    return "ok %d functions right within reach, function %d %.2f GiB away: %s" % (
        first - 1, first, dict(runs)[first], how)


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        print(judge(sys.argv[2], open(sys.argv[3], errors="replace").read(), int(sys.argv[4])))
    else:
        main()
