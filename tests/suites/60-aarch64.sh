#!/usr/bin/env bash
# AArch64-specific checks (config aarch64: only; prints nothing for any other config):
#  - relocation fixtures tests/fixtures/asm/aarch64/*.s (gcc and clang assemblers), natively
#    linked and through objrt at plan page sizes 4, 16 and 64 KiB; the required relocation
#    types must all occur in them
#  - the seed's arithmetic (tests/aarch64/seed_gen.py): the reservation is exactly the
#    independently computed size, and every section, GOT slot and veneer lies inside it
#  - host function and data more than 4 GiB away (tests/aarch64/far_host.c)
#  - a call across more than 128 MiB of code goes through a veneer; a near call stays direct
#  - `objrt layout` shows ADRP, branch and GOT distances against their limits
#  - llvmlite objects (static relocation model, JIT code model)
#  - Debian's arm64 sqlite linked with every plan page size, compared with the native driver
#  - a TLS object runs; clear errors: an unsupported type, and each kind of range or alignment overflow
. "$ROOT/tests/lib.sh"
[ "$TARGET" = aarch64 ] && [ -z "${SAN:-}" ] || exit 0

PAGES=(4096 16384 65536)
ASM=$ROOT/tests/fixtures/asm/aarch64
T=$ROOT/tests/aarch64
PY=/usr/bin/python3
W=$TMP/w; mkdir -p "$W"

# run_expect NAME STATUS CMD...: CMD must exit with STATUS (run_expect_h: a harness self-check).
run_expect() { expect_status "$1" "$2" timeout 120 "${@:3}"; }
run_expect_h() {
    local name=$1 want=$2 out rc; shift 2
    out=$(timeout 120 "$@" 2>&1); rc=$?
    if [ "$rc" = "$want" ]; then hpass "$name"; else hfail "$name: exit $rc, expected $want: $(oneline "$out")"; fi
}

# ---- relocation fixtures ------------------------------------------------------------------
# Suite 25 runs them (gcc-assembled, default page size) with their negative controls; here
# they are also assembled by clang and planned with each page size.
printf 'int t_fx(void);\nint main(void) { return t_fx(); }\n' >"$W/main.c"
for s in "$ASM"/*.s; do
    f=$(basename "$s" .s)
    for as in gcc clang; do
        o=$W/$f-$as.o
        cc=$GCC; [ $as = clang ] && cc=$CLANG
        # shellcheck disable=SC2086
        if ! err=$($cc -c -I "$ASM" "$s" -o "$o" 2>&1); then
            fail "aarch64 asm $f $as: assemble: $(oneline "$err")"; continue
        fi
        # shellcheck disable=SC2086
        if $GCC -no-pie -Dt_fx=t_$f -o "$W/$f-$as.native" "$W/main.c" "$o" 2>"$W/ld.err"; then
            run_expect_h "aarch64 asm $f $as native" 0 $RUN "$W/$f-$as.native"
        else
            hfail "aarch64 asm $f $as native link: $(oneline "$(cat "$W/ld.err")")"
        fi
        for p in "${PAGES[@]}"; do
            # shellcheck disable=SC2086
            run_expect "aarch64 asm $f $as objrt page $p" 0 $OBJRT run --page-size "$p" -e "t_$f" "$o"
        done
    done
done

# Coverage: every required type occurs in some fixture object; the check must see a gap.
missing_types() {   # REQUIRED-LIST OBJ...: print required types no object contains
    local req=$1; shift
    local have; have=$(for o in "$@"; do readelf -rW "$o"; done | awk '{print $3}' | grep '^R_AARCH64_' | sort -u)
    grep -v '^#' "$req" | grep . | sort -u | comm -23 - <(printf '%s\n' "$have")
}
gaps=$(missing_types "$ASM/required-relocs.txt" "$W"/*-gcc.o)
if [ -z "$gaps" ]; then pass "aarch64 asm fixtures contain every required type"; else fail "aarch64 asm fixtures lack: $(echo $gaps)"; fi
{ cat "$ASM/required-relocs.txt"; echo R_AARCH64_GOT_LD_PREL19; } >"$W/req-plus"
if missing_types "$W/req-plus" "$W"/*-gcc.o | grep -q GOT_LD_PREL19; then
    hpass "aarch64 asm coverage check reports a missing type (negative control)"
else
    hfail "aarch64 asm coverage check reports a missing type (negative control): R_AARCH64_GOT_LD_PREL19 not reported"
fi

# ---- the seed's arithmetic ----------------------------------------------------------------
# check_layout REPORT EXPECTED: the reservation is EXPECTED bytes and holds every item.
check_layout() { $PY "$T/check_layout.py" "$1" "$2"; }
$PY "$T/seed_gen.py" "$W/seed.s" >"$W/seed.expect" && $GCC -c "$W/seed.s" -o "$W/seed.o" ||
    fail "aarch64 seed: generate or assemble"
differs=0
while read -r p want naive; do
    [ "$want" != "$naive" ] && differs=1
    # shellcheck disable=SC2086
    if $OBJRT layout --page-size "$p" "$W/seed.o" >"$W/seed-$p.layout" 2>&1 &&
        why=$(check_layout "$W/seed-$p.layout" "$want" 2>&1); then
        pass "aarch64 seed layout page $p: reservation $want bytes holds sections, GOT and veneers"
    else
        fail "aarch64 seed layout page $p: ${why:-$(oneline "$(cat "$W/seed-$p.layout")")}"
    fi
    # Negative control: the same report with a reservation one page short must be rejected.
    sed -E "s/^reservation: 0x[0-9a-f]+/reservation: $(printf '%#x' $((want - p)))/" \
        "$W/seed-$p.layout" >"$W/seed-$p.short"
    if check_layout "$W/seed-$p.short" $((want - p)) >/dev/null; then
        hfail "aarch64 seed layout check rejects a reservation one page short (page $p): accepted it"
    else
        hpass "aarch64 seed layout check rejects a reservation one page short (page $p)"
    fi
    # shellcheck disable=SC2086
    out=$(timeout 60 $OBJRT run --stats --page-size "$p" "$W/seed.o" 2>&1); rc=$?
    got=$(printf '%s' "$out" | sed -n 's/.*reserved_bytes=\([0-9]*\).*/\1/p')
    if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
        pass "aarch64 seed run page $p: markers read back, reserved_bytes=$want"
    else
        fail "aarch64 seed run page $p: exit $rc, reserved_bytes=$got (expected $want): $(oneline "$out")"
    fi
done <"$W/seed.expect"
if [ "$differs" = 1 ]; then hpass "aarch64 seed sizes need alignment padding (a padding-free sum would under-reserve)"
else hfail "aarch64 seed sizes need alignment padding: they do not exercise it"; fi

# ---- host function and data more than 4 GiB away -----------------------------------------
if $GCC -c "$T/far_use.s" -o "$W/far_use.o" &&
    $GCC -c -DNEAR "$T/far_adrp.S" -o "$W/adrp_near.o" &&
    $GCC -c -DFAR "$T/far_adrp.S" -o "$W/adrp_far.o" &&
    $GCC -c -DNEAR -DFAR "$T/far_adrp.S" -o "$W/adrp_both.o" 2>"$W/far.err"; then
    # shellcheck disable=SC2086
    build_prog "aarch64 far-host build" "$W/far_host" "$T/far_host.c" &&
        run_cases far_host 120 $RUN "$W/far_host" "$W/far_use.o" "$W/adrp_near.o" "$W/adrp_far.o" "$W/adrp_both.o"
else
    fail "aarch64 far-host fixtures: $(oneline "$(cat "$W/far.err" 2>/dev/null)")"
fi

# ---- more than 128 MiB of code between caller and callee ----------------------------------
cat >"$W/wide.s" <<'EOF'
    .text
    .globl main
    .p2align 2
main:
    stp     x29, x30, [sp, -16]!
    bl      near                        // within reach (another section): stays direct
    mov     w1, w0
    bl      callee                      // 140 MiB away: through a veneer
    add     w0, w0, w1
    ldp     x29, x30, [sp], 16
    ret
    .section .text.near, "ax", @progbits
    .p2align 2
near:
    mov     w0, 1
    ret
    .section .filler, "ax", @progbits   // with bytes: zero-fill would be placed last
    .skip   140 * 1024 * 1024
    .section .text.callee, "ax", @progbits
    .p2align 2
callee:
    mov     w0, 41
    ret
EOF
$GCC -c "$W/wide.s" -o "$W/wide.o" 2>"$W/wide.err" || fail "aarch64 wide: assemble: $(oneline "$(cat "$W/wide.err")")"
for p in "${PAGES[@]}"; do
    # shellcheck disable=SC2086
    run_expect "aarch64 wide unit page $p: call across 140 MiB returns through a veneer" 42 \
        $OBJRT run --page-size "$p" "$W/wide.o"
    # shellcheck disable=SC2086
    $OBJRT layout --page-size "$p" "$W/wide.o" >"$W/wide-$p.layout" 2>&1
    why=$($PY "$T/wide_layout.py" "$W/wide-$p.layout" 2>&1) &&
        pass "aarch64 wide unit layout page $p: a veneer per target, used by the far call only" ||
        fail "aarch64 wide unit layout page $p: ${why:-$(oneline "$(cat "$W/wide-$p.layout")")}"
done

rm -f "$W/wide.o"     # 140 MiB

# ---- layout: every ADRP, branch and GOT distance against its limit ------------------------
$GCC -c -I "$ASM" "$ASM/branch.s" -o "$W/lb.o" 2>/dev/null
# shellcheck disable=SC2086
$OBJRT layout "$W/page-gcc.o" >"$W/l1" 2>&1; $OBJRT layout "$W/lb.o" >"$W/l2" 2>&1
limits=$(cat "$W/l1" "$W/l2" | awk '$1 ~ /^R_AARCH64_/ { print $1, $4 }' | sort -u)
for want in "R_AARCH64_ADR_PREL_PG_HI21 0x100000000" "R_AARCH64_ADR_GOT_PAGE 0x100000000" \
            "R_AARCH64_CALL26 0x8000000" "R_AARCH64_JUMP26 0x8000000" \
            "R_AARCH64_CONDBR19 0x100000" "R_AARCH64_TSTBR14 0x8000" \
            "R_AARCH64_LD_PREL_LO19 0x100000" "R_AARCH64_ADR_PREL_LO21 0x100000"; do
    if printf '%s\n' "$limits" | grep -qx "$want"; then
        pass "aarch64 layout shows ${want% *} against limit ${want#* }"
    else
        fail "aarch64 layout: no line '${want% *} ... limit ${want#* }' in: $(echo $limits)"
    fi
done

# ---- llvmlite objects ---------------------------------------------------------------------
if $PY -c 'import llvmlite' 2>/dev/null; then
    for opt in 0 2; do
        o=$W/jit-O$opt.o
        if ! err=$($PY "$ROOT/tests/fixtures/llvm/jit_object.py" --triple aarch64-unknown-linux-gnu \
                --codemodel jitdefault --opt $opt -o "$o" 2>&1); then
            fail "aarch64 llvmlite O$opt: emit: $(oneline "$err")"; continue
        fi
        types=$(readelf -rW "$o" | awk '{print $3}' | grep '^R_AARCH64_' | sort -u | tr '\n' ' ')
        ok=1
        for t in MOVW_UABS_G3 MOVW_UABS_G0_NC PREL64 CALL26; do
            case " $types" in *" R_AARCH64_$t "*) ;; *) ok=0 ;; esac
        done
        [ $ok = 1 ] && pass "aarch64 llvmlite O$opt object carries MOVW_UABS, PREL64 and CALL26" ||
            fail "aarch64 llvmlite O$opt object types: $types"
        expected=$($PY "$ROOT/tests/fixtures/llvm/jit_object.py" --triple aarch64-unknown-linux-gnu --print-expected)
        for p in "${PAGES[@]}"; do
            # shellcheck disable=SC2086
            out=$(timeout 60 $OBJRT run --page-size "$p" -e jit_main "$o" 2>&1); rc=$?
            if [ "$rc" = 42 ] && [ "$out" = "$expected" ]; then
                pass "aarch64 llvmlite O$opt page $p: jit_main returns 42 and prints the expected line"
            else
                fail "aarch64 llvmlite O$opt page $p: exit $rc: $(oneline "$out")"
            fi
        done
    done
else
    fail "aarch64 llvmlite: /usr/bin/python3 cannot import llvmlite"
fi

# ---- Debian's arm64 sqlite under every plan page size -------------------------------------
# Suite 40 compares the drivers at the default page size; the same link planned with 16 and
# 64 KiB pages must behave identically (and report a reservation that is a page multiple).
SQL=$W/sqlite; mkdir -p "$SQL"
if $GCC -O2 -c "$ROOT/tests/drivers/sqlite_driver.c" -o "$SQL/driver.o" 2>"$SQL/err" &&
    $GCC -o "$SQL/native" "$SQL/driver.o" /usr/lib/aarch64-linux-gnu/libsqlite3.a -lm -lpthread -ldl 2>>"$SQL/err"; then
    # shellcheck disable=SC2086
    timeout 300 $RUN "$SQL/native" >"$SQL/native.out" 2>&1; nrc=$?
    for p in "${PAGES[@]}"; do
        # shellcheck disable=SC2086
        timeout 300 $OBJRT run --stats --page-size "$p" -l m "$SQL/driver.o" \
            /usr/lib/aarch64-linux-gnu/libsqlite3.a >"$SQL/objrt-$p.out" 2>"$SQL/objrt-$p.err"; orc=$?
        res=$(sed -n 's/.*reserved_bytes=\([0-9]*\).*/\1/p' "$SQL/objrt-$p.err")
        if [ "$orc" = "$nrc" ] && cmp -s "$SQL/native.out" "$SQL/objrt-$p.out" && [ -n "$res" ] &&
            [ $((res % p)) = 0 ]; then
            pass "aarch64 sqlite driver page $p: output and status identical to native ($(grep -o 'link_us=[0-9.]*' "$SQL/objrt-$p.err"))"
        else
            fail "aarch64 sqlite driver page $p: exit $orc (native $nrc), reserved $res: $(oneline "$(cat "$SQL/objrt-$p.err")")"
        fi
    done
else
    fail "aarch64 sqlite driver build: $(oneline "$(cat "$SQL/err")")"
fi

# ---- clear errors -------------------------------------------------------------------------
printf '__thread int tv = 3;\nint main(void) { return tv; }\n' >"$W/tls.c"
$GCC -O2 -c "$W/tls.c" -o "$W/tls.o"
# TLS is supported (suite 45-tls has the full matrix): the program's status is tv
# shellcheck disable=SC2086
$OBJRT run "$W/tls.o" >/dev/null 2>"$W/tls.err"; rc=$?
if [ $rc = 3 ]; then pass "aarch64 TLS object runs"; else fail "aarch64 TLS object runs: status $rc: $(tail -n 1 "$W/tls.err")"; fi
# bad_one NAME PATTERN ASM: assemble ASM (with a main) and expect objrt to refuse it.
bad_one() {
    local name=$1 pat=$2
    printf '    .text\n    .globl main\n    .p2align 2\nmain:\n%s\n' "$3" >"$W/bad-$name.s"
    if ! $GCC -c "$W/bad-$name.s" -o "$W/bad-$name.o" 2>"$W/bad.err"; then
        fail "aarch64 error $name: assemble: $(oneline "$(cat "$W/bad.err")")"; return
    fi
    # shellcheck disable=SC2086
    expect_fail "aarch64 error $name" "$pat" $OBJRT run "$W/bad-$name.o"
}
bad_one unsupported-type "R_AARCH64_GOT_LD_PREL19|type 309.*unsupported|unsupported relocation" \
    '    ldr x0, :got:main
    ret'
bad_one tstbr14-range "R_AARCH64_TSTBR14.*does not fit" \
    '    tbz w0, 0, far
    ret
    .section .text.x, "ax"
    .skip 40000
far: ret'
bad_one condbr19-range "R_AARCH64_CONDBR19.*does not fit" \
    '    b.eq far
    ret
    .section .text.x, "ax"
    .skip 1100000
far: ret'
bad_one adr-range "R_AARCH64_ADR_PREL_LO21.*does not fit" \
    '    adr x0, far
    ret
    .section .rodata.x, "a"
    .skip 1100000
far: .byte 1'
bad_one ldst64-scale "R_AARCH64_LDST64_ABS_LO12_NC.*not a multiple of 8" \
    '    adrp x0, v
    ldr x0, [x0, :lo12:v+4]
    ret
    .data
    .p2align 3
v:  .xword 1, 2'
bad_one ldst128-scale "R_AARCH64_LDST128_ABS_LO12_NC.*not a multiple of 16" \
    '    adrp x0, v
    ldr q0, [x0, :lo12:v+8]
    ret
    .data
    .p2align 4
v:  .xword 1, 2, 3, 4'
bad_one movw-uabs-g0 "R_AARCH64_MOVW_UABS_G0.*does not fit" \
    '    .weak fx_zero
    movz x0, #:abs_g0:fx_zero+0x10000
    ret'
bad_one movw-sabs-g0 "R_AARCH64_MOVW_SABS_G0.*does not fit" \
    '    .weak fx_zero
    movz x0, #:abs_g0_s:fx_zero-0x10001
    ret'
bad_one abs16 "R_AARCH64_ABS16|no address satisfies|no free address range" \
    '    ret
    .data
    .hword main'
bad_one prel16 "R_AARCH64_PREL16.*does not fit" \
    '    ret
    .data
    .hword far - .
    .section .data.pad, "aw"
    .skip 70000
    .section .data.x, "aw"
far: .byte 1'
exit 0
