"""Generate a JIT session as llvmlite emits it: N modules, module i defining g_i and f_i,
f_i calling f_(i-1) and reading g_(i/2) and g_0 of earlier modules (cross-unit
references; far apart once the session spans more than 4 GiB).
    python3 gen_session.py ARCH MODEL N OUTDIR
ARCH x86_64|aarch64; MODEL jit (the JIT code and relocation model numba uses: static +
jitdefault on x86_64, default + jitdefault on AArch64) or small-static (-fno-pic small model:
far references cannot reach and must be refused). Writes OUTDIR/m<i>.o and OUTDIR/expected
(f_i(5) for every i, as unsigned 64-bit decimal)."""
import os
import sys

import llvmlite.binding as llvm

arch, model, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
llvm.initialize()
llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
triple = "%s-unknown-linux-gnu" % arch
if model == "jit":
    reloc, cm = ("static" if arch == "x86_64" else "default"), "jitdefault"
else:
    reloc, cm = "static", "small"
tm = llvm.Target.from_triple(triple).create_target_machine(
    cpu="generic", reloc=reloc, codemodel=cm, opt=2, jit=(model == "jit"))
os.makedirs(out, exist_ok=True)
M = 1 << 64
# small-static: references to other units' globals are direct (dso_local, as -fno-pic code
# assumes), so they only reach within +-2 GiB (x86_64) or +-4 GiB (AArch64 ADRP).
local = "dso_local " if model == "small-static" else ""


def module(i):
    lines = ['target triple = "%s"' % triple, "@g_%d = global i64 %d" % (i, 7 * i + 1)]
    if i == 0:
        lines.append("define i64 @f_0(i64 %x) {\n  %r = add i64 %x, 1\n  ret i64 %r\n}")
    else:
        j = i // 2
        lines.append("declare i64 @f_%d(i64)" % (i - 1))
        lines.append("@g_%d = external %sglobal i64" % (j, local))
        if j != 0:
            lines.append("@g_0 = external %sglobal i64" % local)
        lines.append("""define i64 @f_%d(i64 %%x) {
  %%a = call i64 @f_%d(i64 %%x)
  %%b = mul i64 %%a, 3
  %%g = load i64, i64* @g_%d
  %%g0 = load i64, i64* @g_0
  %%c = add i64 %%b, %%g
  %%d = add i64 %%c, %%g0
  %%r = add i64 %%d, %d
  ret i64 %%r
}""" % (i, i - 1, j, i))
    return "\n".join(lines)


vals = []
for i in range(n):
    with open(os.path.join(out, "m%d.o" % i), "wb") as f:
        f.write(tm.emit_object(llvm.parse_assembly(module(i))))
    v = 6 if i == 0 else (vals[-1] * 3 + 7 * (i // 2) + 1 + 1 + i) % M
    vals.append(v)
with open(os.path.join(out, "expected"), "w") as f:
    f.write("\n".join(str(v) for v in vals) + "\n")
