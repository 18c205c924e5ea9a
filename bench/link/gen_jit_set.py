#!/usr/bin/python3
"""Generate a set of LLVM-JIT-style object files (llvmlite, static relocation model, JIT
code model = large on x86_64) for the link benchmark: the kind of input RuntimeDyld exists
for.

    /usr/bin/python3 gen_jit_set.py OUTDIR [MODULES] [FUNCTIONS]

Module i (jit_<i>.o) defines FUNCTIONS functions m<i>_f<j>(i64) -> i64 and a table @t<i>;
every fourth function also calls a function of module i-1, so references cross objects.
jit_entry.o defines `i64 jit_selftest(void)`, which calls every function once, adds
strlen("jit-bench") from the host, and returns the wrapped 64-bit sum, and the constant
`i64 jit_expected`, the same sum computed here in Python. Equal values prove the link.
"""
import os
import sys

import llvmlite.binding as llvm

MASK = (1 << 64) - 1


def params(i, j):
    """Deterministic per-function constants: multiplier, addend, shift."""
    h = (i * 7919 + j * 104729 + 12345) & MASK
    a = (h * 6364136223846793005 + 1442695040888963407) & MASK | 1
    b = (h * 2862933555777941143 + 3037000493) & MASK
    s = 5 + (i + j) % 27
    return a, b, s


def table(i):
    return [(i * 31 + k * 17 + 3) & 0xFFFF for k in range(8)]


def callee(i, j, nfun):
    """The function of module i-1 that m<i>_f<j> calls, or None."""
    if i == 0 or j % 4:
        return None
    return (j * 7) % nfun


def module_ir(i, nfun):
    out = [f"@t{i} = global [8 x i64] [{', '.join(f'i64 {v}' for v in table(i))}]"]
    for j in range(nfun):
        c = callee(i, j, nfun)
        if c is not None:
            out.append(f"declare i64 @m{i - 1}_f{c}(i64)")
    for j in range(nfun):
        a, b, s = params(i, j)
        c = callee(i, j, nfun)
        body = [
            f"define i64 @m{i}_f{j}(i64 %x) noinline uwtable {{",
            f"  %m = mul i64 %x, {a - (1 << 64) if a >= 1 << 63 else a}",
            f"  %y = add i64 %m, {b - (1 << 64) if b >= 1 << 63 else b}",
            f"  %sh = lshr i64 %y, {s}",
            "  %z = xor i64 %y, %sh",
            f"  %p = getelementptr [8 x i64], [8 x i64]* @t{i}, i64 0, i64 {j % 8}",
            "  %t = load i64, i64* %p",
            "  %r = add i64 %z, %t",
        ]
        if c is not None:
            body += [f"  %c = call i64 @m{i - 1}_f{c}(i64 %r)", "  %r2 = add i64 %r, %c", "  ret i64 %r2"]
        else:
            body += ["  ret i64 %r"]
        body.append("}")
        out.append("\n".join(body))
    return "\n".join(out) + "\n"


def model(i, j, x, nfun):
    a, b, s = params(i, j)
    y = (x * a + b) & MASK
    r = ((y ^ (y >> s)) + table(i)[j % 8]) & MASK
    c = callee(i, j, nfun)
    if c is not None:
        r = (r + model(i - 1, c, r, nfun)) & MASK
    return r


def entry_ir(nmod, nfun):
    word = "jit-bench"
    expected = len(word)
    lines = [f'@word = private unnamed_addr constant [{len(word) + 1} x i8] c"{word}\\00"',
             "declare i64 @strlen(i8*)"]
    calls = ["define i64 @jit_selftest() uwtable {",
             f"  %s0 = call i64 @strlen(i8* getelementptr ([{len(word) + 1} x i8], "
             f"[{len(word) + 1} x i8]* @word, i64 0, i64 0))"]
    n = 0
    for i in range(nmod):
        for j in range(nfun):
            lines.append(f"declare i64 @m{i}_f{j}(i64)")
            x = i * 1000 + j
            expected = (expected + model(i, j, x, nfun)) & MASK
            calls.append(f"  %v{n} = call i64 @m{i}_f{j}(i64 {x})")
            calls.append(f"  %s{n + 1} = add i64 %s{n}, %v{n}")
            n += 1
    calls += [f"  ret i64 %s{n}", "}"]
    signed = expected - (1 << 64) if expected >= 1 << 63 else expected
    lines.append(f"@jit_expected = constant i64 {signed}")
    return "\n".join(lines + calls) + "\n"


def emit(ir, path, tm):
    mod = llvm.parse_assembly(ir)
    mod.verify()
    with open(path, "wb") as f:
        f.write(tm.emit_object(mod))


def main():
    outdir = sys.argv[1]
    nmod = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    nfun = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    llvm.initialize()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    tm = target.create_target_machine(opt=2, reloc="static", codemodel="jitdefault")
    os.makedirs(outdir, exist_ok=True)
    for i in range(nmod):
        emit(module_ir(i, nfun), os.path.join(outdir, f"jit_{i:03d}.o"), tm)
    emit(entry_ir(nmod, nfun), os.path.join(outdir, "jit_entry.o"), tm)


if __name__ == "__main__":
    main()
