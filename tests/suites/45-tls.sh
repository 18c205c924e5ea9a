#!/usr/bin/env bash
# 45-tls: thread-local storage, glibc's non-shared functions, real libraries that need them.
#
# TLS fixtures (tests/tls/) are compiled per compiler, code model (-fPIC/-fPIE/-fno-pic),
# TLS model and dialect; each build is linked natively and run, then run by objrt, and
# stdout and exit status must be identical. Each build must also contain the relocation
# types of its model (so the matrix really covers GD, LD, IE, LE and descriptors). Host
# programs check what `objrt run` cannot: threads that existed before the load, blocks
# released at thread exit, the static TLS surplus (its clear error is the negative
# control), load/unload cycles. Negative controls: TLS relocations objrt must refuse.
# Configs: x86_64 (all), x86_64:asan (a subset), aarch64 (under qemu-user: all but the
# x86_64 hand-written refusals and the clang-only models).
set -u
. tests/lib.sh

case "$TARGET:$SAN" in
x86_64:|x86_64:asan|aarch64:) ;;
*) exit 0 ;;
esac
T=tests/tls
W=$TMP
LIMIT=${OBJRT_TEST_TIMEOUT:-120}



# has_relocs OBJ... -- PATTERN: the objects' relocations include PATTERN (extended regex).
has_relocs() {
    local objs=() pat
    while [ "$1" != -- ]; do objs+=("$1"); shift; done
    pat=$2
    readelf -rW "${objs[@]}" 2>/dev/null | grep -Eq "$pat"
}

# ---- the cases this suite owes (run.sh fails any that reports nothing) ------------------
if [ "$TARGET" = x86_64 ]; then
    if [ -z "$SAN" ]; then
        for n in gcc-pic-gd gcc-pic-desc gcc-pic-ld gcc-pic-ie gcc-pic-ld-desc gcc-pic-le gcc-pie \
                 gcc-nopic clang-pic-gd clang-pic-ld clang-pic-ie clang-pic-le clang-pie clang-nopic; do
            expect "tls $n vs native"
        done
        expect "tls thread exit releases the blocks"
    else
        for n in gcc-pic-gd gcc-pic-desc gcc-pic-ld gcc-pic-ie; do expect "tls $n vs native"; done
    fi
    for n in gd desc ie le; do expect "tls host $n threads before and after the load vs native"; done
    expect "tls initial-exec beyond the static surplus" "tls static surplus" \
           "tls 500 initial-exec load/unload cycles" \
           "tls refuses ie-on-plain-data" "tls refuses pcrel-in-tdata" "tls refuses dynamic-type" \
           "nonshared handlers bound to the unit, keep" "nonshared handlers bound to the unit, unload"
    expect "tls C++ thread_local destructors at thread exit -fPIC vs native" \
           "tls C++ thread_local destructors at thread exit -fPIE vs native"
    for t in g++-fPIC g++-fPIC-mtls-dialect=gnu2 g++-fPIE clang++-fPIC; do
        expect "tls std::call_once $t binds libstdc++'s __once_callable"
    done
else
    for t in g++-fPIC g++-fPIE; do
        expect "tls std::call_once $t binds libstdc++'s __once_callable"
    done
    for n in gcc-pic-desc gcc-pic-gd gcc-pic-ie gcc-pic-le gcc-pie gcc-nopic gcc-pic-le-g2 \
             clang-pic-desc clang-pic-ie clang-pie; do
        expect "tls $n vs native"
    done
    expect "tls thread exit releases the blocks"
    for n in gd desc ie le; do expect "tls host $n threads before and after the load vs native"; done
    expect "tls initial-exec beyond the static surplus" "tls static surplus" \
           "tls 500 initial-exec load/unload cycles" \
           "nonshared handlers bound to the unit, keep" "nonshared handlers bound to the unit, unload"
    expect "tls C++ thread_local destructors at thread exit -fPIC vs native" \
           "tls C++ thread_local destructors at thread exit -fPIE vs native"
fi
expect "tls refuses undefined" "tls refuses local-exec-host" "tls hand-written forms"

NATIVE_CC=$GCC
CXX=g++; [ "$TARGET" = aarch64 ] && CXX=aarch64-linux-gnu-g++

# ---- the model matrix -------------------------------------------------------------------
# matrix NAME CC PIC RELOC_PATTERN FLAGS...
matrix() {
    local name=$1 cc=$2 pic=$3 pat=$4; shift 4
    local d=$W/m-$name nopie=
    mkdir -p "$d"
    [ "$pic" = -fno-pic ] && nopie=-no-pie
    for f in tls_main tls_probe tls_other; do
        # shellcheck disable=SC2086
        if ! $cc -O1 $pic "$@" -c "$T/$f.c" -o "$d/$f.o" 2>"$d/cc.err"; then
            fail "tls $name: compile: $(oneline "$(cat "$d/cc.err")")"; return
        fi
    done
    if ! has_relocs "$d"/tls_*.o -- "$pat"; then
        fail "tls $name: the objects have no $pat relocation: the model is not exercised"; return
    fi
    # shellcheck disable=SC2086
    if ! $NATIVE_CC $nopie "$d"/tls_*.o -o "$d/native" -lpthread 2>"$d/ld.err"; then
        fail "tls $name: native link: $(oneline "$(cat "$d/ld.err")")"; return
    fi
    # shellcheck disable=SC2086
    run_to "$d/n" $RUN "$d/native"
    # shellcheck disable=SC2086
    run_to "$d/o" $OBJRT run "$d/tls_main.o" "$d/tls_probe.o" "$d/tls_other.o"
    same "tls $name vs native" "$d/n" "$d/o"
}

if [ "$TARGET" = x86_64 ]; then
    matrix gcc-pic-gd         "$GCC"   -fPIC    'R_X86_64_TLSGD'
    matrix gcc-pic-desc       "$GCC"   -fPIC    'R_X86_64_GOTPC32_TLSDESC' -mtls-dialect=gnu2
    matrix gcc-pic-ld         "$GCC"   -fPIC    'R_X86_64_TLSLD.*|R_X86_64_DTPOFF32' -ftls-model=local-dynamic
    matrix gcc-pic-ie         "$GCC"   -fPIC    'R_X86_64_GOTTPOFF' -ftls-model=initial-exec
    if [ -z "$SAN" ]; then
        matrix gcc-pic-ld-desc "$GCC"  -fPIC    'R_X86_64_GOTPC32_TLSDESC' -ftls-model=local-dynamic -mtls-dialect=gnu2
        matrix gcc-pic-le     "$GCC"   -fPIC    'R_X86_64_TPOFF32' -ftls-model=local-exec
        matrix gcc-pie        "$GCC"   -fPIE    'R_X86_64_TPOFF32'
        matrix gcc-nopic      "$GCC"   -fno-pic 'R_X86_64_TPOFF32'
        matrix clang-pic-gd   "$CLANG" -fPIC    'R_X86_64_TLSGD'
        matrix clang-pic-ld   "$CLANG" -fPIC    'R_X86_64_TLSLD' -ftls-model=local-dynamic
        matrix clang-pic-ie   "$CLANG" -fPIC    'R_X86_64_GOTTPOFF' -ftls-model=initial-exec
        matrix clang-pic-le   "$CLANG" -fPIC    'R_X86_64_TPOFF32' -ftls-model=local-exec
        matrix clang-pie      "$CLANG" -fPIE    'R_X86_64_TPOFF32'
        matrix clang-nopic    "$CLANG" -fno-pic 'R_X86_64_TPOFF32'
    fi
else
    matrix gcc-pic-desc   "$GCC"   -fPIC    'R_AARCH64_TLSDESC_ADR_PAGE21'
    matrix gcc-pic-gd     "$GCC"   -fPIC    'R_AARCH64_TLSGD_ADR_PAGE21' -mtls-dialect=trad
    matrix gcc-pic-ie     "$GCC"   -fPIC    'R_AARCH64_TLSIE_ADR_GOTTPREL_PAGE21' -ftls-model=initial-exec
    matrix gcc-pic-le     "$GCC"   -fPIC    'R_AARCH64_TLSLE_ADD_TPREL_HI12' -ftls-model=local-exec
    matrix gcc-pie        "$GCC"   -fPIE    'R_AARCH64_TLSLE_ADD_TPREL'
    matrix gcc-nopic      "$GCC"   -fno-pic 'R_AARCH64_TLSLE_ADD_TPREL'
    matrix gcc-pic-le-g2  "$GCC"   -fPIC    'R_AARCH64_TLSLE_MOVW_TPREL_G1' -ftls-model=local-exec -mtls-size=32
    matrix clang-pic-desc "$CLANG" -fPIC    'R_AARCH64_TLSDESC_ADR_PAGE21'
    matrix clang-pic-ie   "$CLANG" -fPIC    'R_AARCH64_TLSIE_ADR_GOTTPREL_PAGE21' -ftls-model=initial-exec
    matrix clang-pie      "$CLANG" -fPIE    'R_AARCH64_TLSLE_ADD_TPREL'
fi

# ---- hand-written forms (tests/tls/forms_*.S): each checks the thread-local it reaches ---
F=$W/forms
mkdir -p "$F"
if $GCC -c "$T/forms_$TARGET.S" -o "$F/f.o" 2>"$F/err" && $GCC -DBREAK -c "$T/forms_$TARGET.S" -o "$F/b.o" 2>>"$F/err"; then
    # shellcheck disable=SC2086
    out=$($OBJRT run "$F/f.o" 2>&1); rc=$?
    # shellcheck disable=SC2086
    bout=$($OBJRT run "$F/b.o" 2>&1); brc=$?
    n=$(readelf -rW "$F/f.o" | grep -cE 'R_(X86_64|AARCH64)_(TLS|TPOFF|DTPOFF|GOTTPOFF)')
    if [ $rc = 0 ] && [ "$out" = "failed forms: 0" ] && [ $brc = 1 ]; then
        pass "tls hand-written forms ($n TLS relocations, each value checked; BREAK control fails)"
    else
        fail "tls hand-written forms: status $rc '$(oneline "$out")', control status $brc '$(oneline "$bout")'"
    fi
else
    fail "tls hand-written forms: assemble: $(oneline "$(cat "$F/err")")"
fi

# ---- host programs: threads before the load, thread exit, static TLS surplus ------------
# AArch64's default dialect is descriptors; x86_64's is the traditional one.
if [ "$TARGET" = x86_64 ]; then GD=(-fPIC) DESC=(-fPIC -mtls-dialect=gnu2)
else GD=(-fPIC -mtls-dialect=trad) DESC=(-fPIC); fi
H=$W/host
mkdir -p "$H"
if build_prog "tls host gd threads before and after the load vs native" "$H/host" "$T/tls_host.c"; then
    # host_probe NAME FLAGS...: pre-existing and new threads, objrt vs the native host
    host_probe() {
        local name=$1 d=$H/$1; shift
        mkdir -p "$d"
        if ! $GCC -O1 "$@" -c "$T/tls_probe.c" -o "$d/p.o" 2>"$d/err" ||
           ! $GCC -O1 "$@" -c "$T/tls_other.c" -o "$d/q.o" 2>>"$d/err"; then
            fail "tls host $name threads before and after the load vs native: build: $(oneline "$(cat "$d/err")")"
            return
        fi
        build_prog "tls host $name threads before and after the load vs native" "$d/native" \
            "$T/tls_host.c" "$d/p.o" "$d/q.o" -- -DNATIVE || return
        # shellcheck disable=SC2086
        run_to "$d/n" $RUN "$d/native"
        # shellcheck disable=SC2086
        run_to "$d/o" $RUN "$H/host" "$d/p.o" "$d/q.o"
        same "tls host $name threads before and after the load vs native" "$d/n" "$d/o"
    }
    host_probe gd "${GD[@]}"
    host_probe desc "${DESC[@]}"
    host_probe ie -fPIC -ftls-model=initial-exec
    host_probe le -fPIC -ftls-model=local-exec

    # a 1 MiB block per thread (dynamic TLS): visible while 32 threads live, gone after
    # (glibc's malloc statistics: not under ASan, whose allocator replaces malloc)
    $GCC -O1 -fPIC -c "$T/tls_big.c" -o "$H/big.o"
    if [ -z "$SAN" ]; then
        # shellcheck disable=SC2086
        run_to "$H/exit" $RUN "$H/host" --exit "$H/big.o"
        if [ "$(cat "$H/exit.rc")" = 0 ]; then pass "tls thread exit releases the blocks ($(cat "$H/exit.out"))"
        else fail "tls thread exit releases the blocks: $(oneline "$(cat "$H/exit.out" "$H/exit.err")")"; fi
    fi

    # the same block with initial-exec needs static TLS: refused with the remedy named
    $GCC -O1 -fPIC -ftls-model=initial-exec -c "$T/tls_big.c" -o "$H/bigie.o"
    # shellcheck disable=SC2086
    expect_fail "tls initial-exec beyond the static surplus: clear error" \
        "static TLS block.*-ftls-model=global-dynamic" $RUN "$H/host" --exit "$H/bigie.o"

    # many initial-exec units at once fill the surplus; global-dynamic ones never do
    # shellcheck disable=SC2086
    run_to "$H/hold-ie" $RUN "$H/host" --hold 100 "$H/ie/p.o" "$H/ie/q.o"
    # shellcheck disable=SC2086
    run_to "$H/hold-gd" $RUN "$H/host" --hold 100 "$H/gd/p.o" "$H/gd/q.o"
    held_ie=$(sed -n 's/^held: \([0-9]*\) of.*/\1/p' "$H/hold-ie.out")
    if [ -n "$held_ie" ] && [ "$held_ie" -ge 4 ] && [ "$held_ie" -lt 100 ] &&
       grep -q "static TLS" "$H/hold-ie.err" && grep -q "^held: 100 of 100" "$H/hold-gd.out"; then
        pass "tls static surplus ($held_ie initial-exec units held at once, 100 global-dynamic)"
    else
        fail "tls static surplus: IE '$(cat "$H/hold-ie.out")' GD '$(cat "$H/hold-gd.out")' $(oneline "$(cat "$H/hold-ie.err")")"
    fi
    # unloading gives the surplus back: more cycles than the surplus holds at once
    # shellcheck disable=SC2086
    run_to "$H/cyc" $RUN "$H/host" --cycles 500 "$H/ie/p.o" "$H/ie/q.o"
    if grep -q "^cycles: 500 of 500" "$H/cyc.out"; then pass "tls 500 initial-exec load/unload cycles"
    else fail "tls 500 initial-exec load/unload cycles: $(oneline "$(cat "$H/cyc.out" "$H/cyc.err")")"; fi
fi

# ---- libstdc++'s own thread-locals: std::call_once ------------------------------------------
if [ "$TARGET" = x86_64 ]; then
    ONCE=("g++ -fPIC" "g++ -fPIC -mtls-dialect=gnu2" "g++ -fPIE" "clang++ -fPIC")
    CXX_NATIVE=g++
else
    ONCE=("aarch64-linux-gnu-g++ -fPIC" "aarch64-linux-gnu-g++ -fPIE")
    CXX_NATIVE=aarch64-linux-gnu-g++
fi
for v in "${ONCE[@]}"; do
    tag=${v// /}
    tag=${tag#aarch64-linux-gnu-}
    name="tls std::call_once $tag binds libstdc++'s __once_callable"
    d=$W/once-$tag
    mkdir -p "$d"
    # shellcheck disable=SC2086
    if ! $v -O1 -c "$T/once.cc" -o "$d/once.o" 2>"$d/err" || ! $CXX_NATIVE "$d/once.o" -o "$d/native" 2>>"$d/err"; then
        fail "$name: build: $(oneline "$(cat "$d/err")")"; continue
    fi
    # shellcheck disable=SC2086
    run_to "$d/n" $RUN "$d/native"
    # shellcheck disable=SC2086
    run_to "$d/o" $OBJRT run -l stdc++ "$d/once.o"
    if has_relocs "$d/once.o" -- '(GOTTPOFF|TLSGD|TLSDESC|TLSIE).*__once_call'; then
        same "$name" "$d/n" "$d/o"
    else
        fail "$name: no TLS relocation against __once_callable"
    fi
done

# C++ thread_local objects with destructors, run as each of the unit's threads exits
for pic in -fPIC -fPIE; do
    name="tls C++ thread_local destructors at thread exit $pic vs native"
    d=$W/tl$pic
    mkdir -p "$d"
    if $CXX -O1 $pic -c "$T/thread_local.cc" -o "$d/tl.o" 2>"$d/err" && $CXX "$d/tl.o" -o "$d/native" 2>>"$d/err"; then
        # shellcheck disable=SC2086
        run_to "$d/n" $RUN "$d/native"
        # shellcheck disable=SC2086
        run_to "$d/o" $OBJRT run -l stdc++ "$d/tl.o"
        same "$name" "$d/n" "$d/o"
    else
        fail "$name: build: $(oneline "$(cat "$d/err")")"
    fi
done

# ---- negative controls: what objrt must refuse -----------------------------------------------
N=$W/neg
mkdir -p "$N"
# neg NAME PATTERN C_SOURCE [CFLAGS...]: compile, expect `objrt run` to fail with PATTERN
neg() {
    local name=$1 pat=$2 src=$3; shift 3
    printf '%s\n' "$src" >"$N/$name.c"
    # shellcheck disable=SC2086
    if ! $GCC -O1 "$@" -c "$N/$name.c" -o "$N/$name.o" 2>"$N/$name.cc"; then
        fail "tls refuses $name: compile: $(oneline "$(cat "$N/$name.cc")")"; return
    fi
    # shellcheck disable=SC2086
    expect_fail "tls refuses $name" "$pat" $OBJRT run "$N/$name.o"
}
neg undefined "undefined\\.o: undefined symbol 'nowhere_tls' \\(thread-local" \
    'extern __thread int nowhere_tls; int main(void) { return nowhere_tls; }' -fPIC
neg local-exec-host "local-exec.*host" \
    'extern __thread int host_tls __attribute__((tls_model("local-exec"))); int main(void) { return host_tls; }' -fPIC
if [ "$TARGET" = x86_64 ]; then
    # hand-written forms no compiler emits
    asm_neg() {
        local name=$1 pat=$2 src=$3
        printf '%s\n' "$src" >"$N/$name.s"
        if ! $GCC -c "$N/$name.s" -o "$N/$name.o" 2>"$N/$name.cc"; then
            fail "tls refuses $name: assemble: $(oneline "$(cat "$N/$name.cc")")"; return
        fi
        # shellcheck disable=SC2086
        expect_fail "tls refuses $name" "$pat" $OBJRT run "$N/$name.o"
    }
    asm_neg ie-on-plain-data "plain.*not in a thread-local section" \
        '.data
plain: .long 1
.text
.globl main
main: .byte 0x48, 0x8b, 0x05            # movq plain@gottpoff(%rip), %rax
      .reloc ., R_X86_64_GOTTPOFF, plain-4
      .long 0
      ret'
    asm_neg pcrel-in-tdata "only absolute addresses can be relocated in thread-local data" \
        '.section .tdata,"awT",@progbits
v: .long main - .
.text
.globl main
main: movl %fs:v@tpoff, %eax
      ret'
    asm_neg dynamic-type "dynamic thread-local relocation" \
        '.section .tbss,"awT",@nobits
v: .zero 4
.data
.reloc ., R_X86_64_DTPMOD64, v
.quad 0
.text
.globl main
main: xorl %eax, %eax
      ret'
fi

# ---- glibc's non-shared functions, bound per unit ----------------------------------------
S=$W/nonshared
mkdir -p "$S"
if ! $GCC -O1 -fPIC -c "$T/nonshared_unit.c" -o "$S/u.o" 2>"$S/err"; then
    fail "nonshared handlers bound to the unit, keep: build: $(oneline "$(cat "$S/err")")"
elif build_prog "nonshared handlers bound to the unit, keep" "$S/host" "$T/nonshared_host.c"; then
    # shellcheck disable=SC2086
    run_to "$S/keep" $RUN "$S/host" "$S/u.o" keep
    # shellcheck disable=SC2086
    run_to "$S/unload" $RUN "$S/host" "$S/u.o" unload
    printf 'atfork child\natfork child\nend\nat_quick_exit\n' >"$S/keep.want"
    printf 'atfork child\nunload\natexit\nend\n' >"$S/unload.want"
    # keep is the control: the handlers do run while the unit is loaded
    for m in keep unload; do
        if cmp -s "$S/$m.want" "$S/$m.out" && [ "$(cat "$S/$m.rc")" = 3 ]; then
            pass "nonshared handlers bound to the unit, $m"
        else
            fail "nonshared handlers bound to the unit, $m: status $(cat "$S/$m.rc"), output $(tr '\n' '|' <"$S/$m.out") $(oneline "$(cat "$S/$m.err")")"
        fi
    done
fi
