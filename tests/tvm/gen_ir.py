#!/usr/bin/python3
"""Emit TVM-shaped kernels as LLVM IR through llvmlite, the way TVM's LLVM backend lays
them out (codegen_cpu.cc), optimised at -O3 and compiled to objects for a given triple.

    /usr/bin/python3 gen_ir.py --triple x86_64-unknown-linux-gnu -o DIR

writes DIR/ir_syslib.o, DIR/ir_dso.o, DIR/ir_aot.o:

ir_syslib.o  system-lib mode, prefix "irlib_": calls the runtime directly; a constructor in
             llvm.global_ctors registers irlib_scale_add, irlib___tvm_main__ and
             irlib___tvm_module_ctx through TVMBackendRegisterSystemLibSymbol.
             scale_add(X f32[n], Y f32[n], Z f32[n]): Z = 2 X + Y in a parallel lambda
             whose closure lives on the caller's stack.
ir_dso.o     DSO mode: zero-initialised __TVM* slots and __tvm_module_ctx that the loader
             fills, a weak __tvm_main__ string naming softsign.
             softsign(X f32[n], Y f32[n]): Y = X / (1 + |X|), 1 + |X| in a workspace.
ir_aot.o     AOT, C interface, unpacked API: tvmgen_default_run(inputs*, outputs*) ->
             tvmgen_default___tvm_main__(a, b, out), three fused operators over f32[8, 8]:
             t0 = a - b, t1 = t0 * a, out = sqrt(|t1|); t0 and t1 are workspaces.

Every packed function checks its arguments first as MakePackedAPI does and reports a
failure through TVMAPISetLastError (or its slot), returning -1.
"""
import argparse
import os

import llvmlite.binding as llvm

# DLTensor (dlpack.h): data@0 device@8 ndim(i32)@16 dtype{u8 code,u8 bits,u16 lanes}@20
# shape(i64*)@24 strides@32 byte_offset@40
COMMON = r"""
%DLTensor = type { i8*, { i32, i32 }, i32, { i8, i8, i16 }, i64*, i64*, i64 }
%TVMParallelGroupEnv = type { i8*, i32 }
"""


def messages(prefix, specs):
    """Private string constants, one per error message."""
    out = []
    for name, text in specs:
        data = text.encode() + b"\0"
        body = "".join(chr(c) if 32 <= c < 127 and c not in (34, 92) else "\\%02X" % c for c in data)
        out.append('@%s.%s = private unnamed_addr constant [%d x i8] c"%s"' % (prefix, name, len(data), body))
    return "\n".join(out)


def gep_str(prefix, name, n):
    return "getelementptr inbounds ([%d x i8], [%d x i8]* @%s.%s, i64 0, i64 0)" % (n, n, prefix, name)


def tensor_checks(fn, args, set_error):
    """IR checking num_args and each float32 rank-1 tensor argument of fn; all tensors share
    extent n = shape[0] of the first. Defines %n and %data.<arg> (float*). `set_error` is an
    instruction template calling the error setter with {msg}."""
    msgs = [("nargs", "%s: num_args should be %d" % (fn, len(args)))]
    for i, a in enumerate(args):
        msgs += [("code%d" % i, "%s: Expect arg[%d] to be pointer" % (fn, i)),
                 ("ndim%d" % i, "%s.%s.ndim is expected to equal 1" % (fn, a)),
                 ("dtype%d" % i, "%s.%s.dtype is expected to be float32" % (fn, a))]
        if i:
            msgs.append(("shape%d" % i, "Argument %s.%s.shape[0] has an unsatisfied constraint: "
                         "n == %s.shape[0]" % (fn, a, a)))
    lines = ["  %%nargs.ok = icmp eq i32 %%num_args, %d" % len(args),
             "  br i1 %nargs.ok, label %arg0, label %fail.nargs"]
    fails = [("nargs", len(msgs[0][1]) + 1)]
    for i, a in enumerate(args):
        nxt = "arg%d" % (i + 1) if i + 1 < len(args) else "body"
        lines += [
            "arg%d:" % i,
            "  %%code%d.p = getelementptr inbounds i32, i32* %%arg_type_ids, i64 %d" % (i, i),
            "  %%code%d = load i32, i32* %%code%d.p, align 4" % (i, i),
            # kTVMOpaqueHandle 3, kTVMNullptr 4, kTVMDLTensorHandle 7, kTVMNDArrayHandle 13
            "  %%c%d.a = icmp eq i32 %%code%d, 3" % (i, i),
            "  %%c%d.b = icmp eq i32 %%code%d, 7" % (i, i),
            "  %%c%d.c = icmp eq i32 %%code%d, 13" % (i, i),
            "  %%c%d.d = icmp eq i32 %%code%d, 4" % (i, i),
            "  %%c%d.ab = or i1 %%c%d.a, %%c%d.b" % (i, i, i),
            "  %%c%d.cd = or i1 %%c%d.c, %%c%d.d" % (i, i, i),
            "  %%c%d.ok = or i1 %%c%d.ab, %%c%d.cd" % (i, i, i),
            "  br i1 %%c%d.ok, label %%arg%d.t, label %%fail.code%d" % (i, i, i),
            "arg%d.t:" % i,
            "  %%v%d.p = getelementptr inbounds i8, i8* %%args, i64 %d" % (i, 8 * i),
            "  %%v%d.pp = bitcast i8* %%v%d.p to %%DLTensor**" % (i, i),
            "  %%t%d = load %%DLTensor*, %%DLTensor** %%v%d.pp, align 8" % (i, i),
            "  %%ndim%d.p = getelementptr inbounds %%DLTensor, %%DLTensor* %%t%d, i64 0, i32 2" % (i, i),
            "  %%ndim%d = load i32, i32* %%ndim%d.p, align 4" % (i, i),
            "  %%ndim%d.ok = icmp eq i32 %%ndim%d, 1" % (i, i),
            "  br i1 %%ndim%d.ok, label %%arg%d.dt, label %%fail.ndim%d" % (i, i, i),
            "arg%d.dt:" % i,
            "  %%dt%d.p = getelementptr inbounds %%DLTensor, %%DLTensor* %%t%d, i64 0, i32 3" % (i, i),
            "  %%dt%d.ip = bitcast { i8, i8, i16 }* %%dt%d.p to i32*" % (i, i),
            "  %%dt%d = load i32, i32* %%dt%d.ip, align 4" % (i, i),
            # code 2 (float), bits 32, lanes 1, little-endian: 0x00012002
            "  %%dt%d.ok = icmp eq i32 %%dt%d, 73730" % (i, i),
            "  br i1 %%dt%d.ok, label %%arg%d.sh, label %%fail.dtype%d" % (i, i, i),
            "arg%d.sh:" % i,
            "  %%shape%d.p = getelementptr inbounds %%DLTensor, %%DLTensor* %%t%d, i64 0, i32 4" % (i, i),
            "  %%shape%d = load i64*, i64** %%shape%d.p, align 8" % (i, i),
            "  %%ext%d = load i64, i64* %%shape%d, align 8" % (i, i),
            "  %%data%d.p = getelementptr inbounds %%DLTensor, %%DLTensor* %%t%d, i64 0, i32 0" % (i, i),
            "  %%data%d.raw = load i8*, i8** %%data%d.p, align 8" % (i, i),
            "  %%data.%s = bitcast i8* %%data%d.raw to float*" % (a, i),
        ]
        if i == 0:
            lines += ["  %n = add i64 %ext0, 0", "  br label %%%s" % nxt]
        else:
            lines += ["  %%ext%d.ok = icmp eq i64 %%ext%d, %%n" % (i, i),
                      "  br i1 %%ext%d.ok, label %%%s, label %%fail.shape%d" % (i, nxt, i)]
        fails += [("code%d" % i, 0), ("ndim%d" % i, 0), ("dtype%d" % i, 0)]
        if i:
            fails.append(("shape%d" % i, 0))
    lengths = dict((k, len(v) + 1) for k, v in msgs)
    for key, _ in fails:
        lines += ["fail.%s:" % key,
                  "  " + set_error.format(msg=gep_str(fn, key, lengths[key]), k=key),
                  "  ret i32 -1"]
    return messages(fn, msgs), "\n".join(lines)


def packed(name, fn, args, set_error, body):
    consts, checks = tensor_checks(fn, args, set_error)
    return consts + r"""
define i32 @%s(i8* noalias %%args, i32* noalias %%arg_type_ids, i32 %%num_args, i8* noalias %%out_ret_value, i32* noalias %%out_ret_tcode, i8* %%resource_handle) {
entry:
%s
body:
%s
}
""" % (name, checks, body)


def chunk(prefix):
    """Task bounds [lo, hi) of ceil(n / num_task)-sized chunks, as TVM's parallel lambda."""
    return r"""  %%nt.p = getelementptr inbounds %%TVMParallelGroupEnv, %%TVMParallelGroupEnv* %%penv, i64 0, i32 1
  %%nt = load i32, i32* %%nt.p, align 4
  %%nt64 = sext i32 %%nt to i64
  %%ntm1 = add i64 %%nt64, -1
  %%nplus = add i64 %%n, %%ntm1
  %%chunk = sdiv i64 %%nplus, %%nt64
  %%tid64 = sext i32 %%task_id to i64
  %%lo = mul i64 %%tid64, %%chunk
  %%hi.0 = add i64 %%lo, %%chunk
  %%hi.lt = icmp slt i64 %%hi.0, %%n
  %%hi = select i1 %%hi.lt, i64 %%hi.0, i64 %%n
  %%any = icmp slt i64 %%lo, %%hi
  br i1 %%any, label %%%s.loop, label %%%s.done""" % (prefix, prefix)


SYSLIB = COMMON + r"""
@irlib___tvm_module_ctx = internal global i8* null, align 8
@irlib.main = private unnamed_addr constant [10 x i8] c"scale_add\00"
@irlib.n.fn = private unnamed_addr constant [16 x i8] c"irlib_scale_add\00"
@irlib.n.main = private unnamed_addr constant [19 x i8] c"irlib___tvm_main__\00"
@irlib.n.ctx = private unnamed_addr constant [23 x i8] c"irlib___tvm_module_ctx\00"
@llvm.global_ctors = appending global [1 x { i32, void ()*, i8* }] [{ i32, void ()*, i8* } { i32 65535, void ()* @__tvm_module_startup, i8* null }]

declare void @TVMAPISetLastError(i8*)
declare i32 @TVMBackendParallelLaunch(i32 (i32, %TVMParallelGroupEnv*, i8*)*, i8*, i32)
declare i32 @TVMBackendRegisterSystemLibSymbol(i8*, i8*)

%closure = type { float*, float*, float*, i64 }

define private i32 @__tvm_parallel_lambda(i32 %task_id, %TVMParallelGroupEnv* %penv, i8* %cdata) {
entry:
  %c = bitcast i8* %cdata to %closure*
  %x.p = getelementptr inbounds %closure, %closure* %c, i64 0, i32 0
  %x = load float*, float** %x.p, align 8
  %y.p = getelementptr inbounds %closure, %closure* %c, i64 0, i32 1
  %y = load float*, float** %y.p, align 8
  %z.p = getelementptr inbounds %closure, %closure* %c, i64 0, i32 2
  %z = load float*, float** %z.p, align 8
  %n.p = getelementptr inbounds %closure, %closure* %c, i64 0, i32 3
  %n = load i64, i64* %n.p, align 8
""" + chunk("l") + r"""
l.loop:
  %i = phi i64 [ %lo, %entry ], [ %i.next, %l.loop ]
  %xi.p = getelementptr inbounds float, float* %x, i64 %i
  %xi = load float, float* %xi.p, align 4
  %yi.p = getelementptr inbounds float, float* %y, i64 %i
  %yi = load float, float* %yi.p, align 4
  %x2 = fmul float %xi, 2.0
  %zi = fadd float %x2, %yi
  %zi.p = getelementptr inbounds float, float* %z, i64 %i
  store float %zi, float* %zi.p, align 4
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %hi
  br i1 %more, label %l.loop, label %l.done
l.done:
  ret i32 0
}
""" + packed("irlib_scale_add", "scale_add", ["X", "Y", "Z"],
             "call void @TVMAPISetLastError(i8* {msg})", r"""
  %cl = alloca %closure, align 8
  %cl.x = getelementptr inbounds %closure, %closure* %cl, i64 0, i32 0
  store float* %data.X, float** %cl.x, align 8
  %cl.y = getelementptr inbounds %closure, %closure* %cl, i64 0, i32 1
  store float* %data.Y, float** %cl.y, align 8
  %cl.z = getelementptr inbounds %closure, %closure* %cl, i64 0, i32 2
  store float* %data.Z, float** %cl.z, align 8
  %cl.n = getelementptr inbounds %closure, %closure* %cl, i64 0, i32 3
  store i64 %n, i64* %cl.n, align 8
  %cl.raw = bitcast %closure* %cl to i8*
  %rc = call i32 @TVMBackendParallelLaunch(i32 (i32, %TVMParallelGroupEnv*, i8*)* @__tvm_parallel_lambda, i8* %cl.raw, i32 0)
  ret i32 %rc""") + r"""
define internal void @__tvm_module_startup() {
entry:
  %f = bitcast i32 (i8*, i32*, i32, i8*, i32*, i8*)* @irlib_scale_add to i8*
  %r0 = call i32 @TVMBackendRegisterSystemLibSymbol(i8* getelementptr inbounds ([16 x i8], [16 x i8]* @irlib.n.fn, i64 0, i64 0), i8* %f)
  %r1 = call i32 @TVMBackendRegisterSystemLibSymbol(i8* getelementptr inbounds ([19 x i8], [19 x i8]* @irlib.n.main, i64 0, i64 0), i8* getelementptr inbounds ([10 x i8], [10 x i8]* @irlib.main, i64 0, i64 0))
  %r2 = call i32 @TVMBackendRegisterSystemLibSymbol(i8* getelementptr inbounds ([23 x i8], [23 x i8]* @irlib.n.ctx, i64 0, i64 0), i8* bitcast (i8** @irlib___tvm_module_ctx to i8*))
  ret void
}
"""

DSO = COMMON + r"""
@__tvm_module_ctx = linkonce dllexport local_unnamed_addr global i8* null, align 8
@__TVMAPISetLastError = linkonce dllexport local_unnamed_addr global void (i8*)* null, align 8
@__TVMBackendAllocWorkspace = linkonce dllexport local_unnamed_addr global i8* (i32, i32, i64, i32, i32)* null, align 8
@__TVMBackendFreeWorkspace = linkonce dllexport local_unnamed_addr global i32 (i32, i32, i8*)* null, align 8
@__tvm_main__ = weak dllexport local_unnamed_addr constant [9 x i8] c"softsign\00", align 1

declare float @llvm.fabs.f32(float)

""" + packed("softsign", "softsign", ["X", "Y"],
             "%set.{k} = load void (i8*)*, void (i8*)** @__TVMAPISetLastError, align 8\n"
             "  call void %set.{k}(i8* {msg})", r"""
  %alloc = load i8* (i32, i32, i64, i32, i32)*, i8* (i32, i32, i64, i32, i32)** @__TVMBackendAllocWorkspace, align 8
  %bytes = shl i64 %n, 2
  %ws.raw = call i8* %alloc(i32 1, i32 0, i64 %bytes, i32 2, i32 32)
  %ws.null = icmp eq i8* %ws.raw, null
  br i1 %ws.null, label %oom, label %have
oom:
  ret i32 -1
have:
  %ws = bitcast i8* %ws.raw to float*
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %free, label %l1
l1:
  %i = phi i64 [ 0, %have ], [ %i.next, %l1 ]
  %xi.p = getelementptr inbounds float, float* %data.X, i64 %i
  %xi = load float, float* %xi.p, align 4
  %ax = call float @llvm.fabs.f32(float %xi)
  %den = fadd float %ax, 1.0
  %wi.p = getelementptr inbounds float, float* %ws, i64 %i
  store float %den, float* %wi.p, align 4
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %l1, label %l2
l2:
  %j = phi i64 [ 0, %l1 ], [ %j.next, %l2 ]
  %xj.p = getelementptr inbounds float, float* %data.X, i64 %j
  %xj = load float, float* %xj.p, align 4
  %wj.p = getelementptr inbounds float, float* %ws, i64 %j
  %wj = load float, float* %wj.p, align 4
  %yj = fdiv float %xj, %wj
  %yj.p = getelementptr inbounds float, float* %data.Y, i64 %j
  store float %yj, float* %yj.p, align 4
  %j.next = add nsw i64 %j, 1
  %more2 = icmp slt i64 %j.next, %n
  br i1 %more2, label %l2, label %free
free:
  %fr = load i32 (i32, i32, i8*)*, i32 (i32, i32, i8*)** @__TVMBackendFreeWorkspace, align 8
  %frc = call i32 %fr(i32 1, i32 0, i8* %ws.raw)
  ret i32 %frc""")


def aot_op(name, nin, expr):
    params = ", ".join("float* noalias %%p%d" % i for i in range(nin))
    loads = "\n".join("  %%a%d.p = getelementptr inbounds float, float* %%p%d, i64 %%i\n"
                      "  %%a%d = load float, float* %%a%d.p, align 4" % (i, i, i, i) for i in range(nin))
    return r"""
define i32 @%s(%s, float* noalias %%out) {
entry:
  br label %%loop
loop:
  %%i = phi i64 [ 0, %%entry ], [ %%i.next, %%loop ]
%s
%s
  %%o.p = getelementptr inbounds float, float* %%out, i64 %%i
  store float %%r, float* %%o.p, align 4
  %%i.next = add nuw nsw i64 %%i, 1
  %%done = icmp eq i64 %%i.next, 64
  br i1 %%done, label %%exit, label %%loop
exit:
  ret i32 0
}
""" % (name, params, loads, expr)


AOT = r"""
declare i8* @TVMBackendAllocWorkspace(i32, i32, i64, i32, i32)
declare i32 @TVMBackendFreeWorkspace(i32, i32, i8*)
declare float @llvm.fabs.f32(float)
declare float @llvm.sqrt.f32(float)
""" + aot_op("tvmgen_default_fused_subtract", 2, "  %r = fsub float %a0, %a1") \
    + aot_op("tvmgen_default_fused_multiply", 2, "  %r = fmul float %a0, %a1") \
    + aot_op("tvmgen_default_fused_abs_sqrt", 1,
             "  %abs = call float @llvm.fabs.f32(float %a0)\n  %r = call float @llvm.sqrt.f32(float %abs)") + r"""
define i32 @tvmgen_default___tvm_main__(float* %a, float* %b, float* %output) {
entry:
  %sid1.raw = call i8* @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256, i32 2, i32 32)
  %sid2.raw = call i8* @TVMBackendAllocWorkspace(i32 1, i32 0, i64 256, i32 2, i32 32)
  %n1 = icmp eq i8* %sid1.raw, null
  %n2 = icmp eq i8* %sid2.raw, null
  %nn = or i1 %n1, %n2
  br i1 %nn, label %fail, label %run
run:
  %sid1 = bitcast i8* %sid1.raw to float*
  %sid2 = bitcast i8* %sid2.raw to float*
  %r1 = call i32 @tvmgen_default_fused_subtract(float* %a, float* %b, float* %sid1)
  %r2 = call i32 @tvmgen_default_fused_multiply(float* %sid1, float* %a, float* %sid2)
  %r3 = call i32 @tvmgen_default_fused_abs_sqrt(float* %sid2, float* %output)
  %f2 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, i8* %sid2.raw)
  %f1 = call i32 @TVMBackendFreeWorkspace(i32 1, i32 0, i8* %sid1.raw)
  %o12 = or i32 %r1, %r2
  %o3 = or i32 %o12, %r3
  %of = or i32 %f1, %f2
  %all = or i32 %o3, %of
  %bad = icmp ne i32 %all, 0
  br i1 %bad, label %fail, label %ok
ok:
  ret i32 0
fail:
  ret i32 -1
}

define i32 @tvmgen_default_run(i8** %inputs, i8** %outputs) {
entry:
  %a.raw = load i8*, i8** %inputs, align 8
  %b.p = getelementptr inbounds i8*, i8** %inputs, i64 1
  %b.raw = load i8*, i8** %b.p, align 8
  %o.raw = load i8*, i8** %outputs, align 8
  %a = bitcast i8* %a.raw to float*
  %b = bitcast i8* %b.raw to float*
  %o = bitcast i8* %o.raw to float*
  %rc = call i32 @tvmgen_default___tvm_main__(float* %a, float* %b, float* %o)
  ret i32 %rc
}
"""


def emit(ir, triple, path):
    mod = llvm.parse_assembly(ir)
    mod.triple = triple
    mod.verify()
    target = llvm.Target.from_triple(triple)
    tm = target.create_target_machine(opt=3, reloc="pic", codemodel="default")
    pmb = llvm.create_pass_manager_builder()
    pmb.opt_level = 3
    pmb.loop_vectorize = True
    pmb.slp_vectorize = True
    pm = llvm.create_module_pass_manager()
    tm.add_analysis_passes(pm)
    pmb.populate(pm)
    pm.run(mod)
    with open(path, "wb") as f:
        f.write(tm.emit_object(mod))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--triple", required=True)
    ap.add_argument("-o", dest="outdir", required=True)
    a = ap.parse_args()
    llvm.initialize()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    os.makedirs(a.outdir, exist_ok=True)
    emit(SYSLIB, a.triple, os.path.join(a.outdir, "ir_syslib.o"))
    emit(DSO, a.triple, os.path.join(a.outdir, "ir_dso.o"))
    emit(AOT, a.triple, os.path.join(a.outdir, "ir_aot.o"))


if __name__ == "__main__":
    main()
