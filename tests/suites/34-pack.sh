#!/usr/bin/env bash
# 34-pack: small units share pages (objrt_options.pack_small; issue 8). tests/pack/t_pack.c
# loads 1000 small units compiled here from tests/pack/unit.c (20 variants: table sizes,
# code lengths, alignments) into one context at plan pages of 4, 16 and 64 KiB, with a
# thread polling /proc/self/maps for w+x mappings; checks values against the formulas,
# bytes mapped per unit, neighbours' bounds, random-order unloads and that the memory goes
# back; a fork in the middle of a session. Configs: x86_64:, x86_64:asan, and aarch64:
# under qemu-user, where the guest's /proc/self/maps is not faithful (see 30-robustness):
# there the cases that read the maps and the controls are left out (t_pack.c, T_NO_MAPS).
set -u
. "$ROOT/tests/lib.sh"

N=1000 TFLAGS=""
case "$TARGET:$SAN" in
    x86_64: | x86_64:asan) ;;
    aarch64:) TFLAGS="-DT_NO_MAPS" ;;
    *) exit 0 ;;
esac

case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
SRC=$ROOT/tests/pack
FX=$TMP/pack
mkdir -p "$FX"
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0"
unset OBJRT_PACK

if ! why=$(bash "$SRC/make-units.sh" "$FX" "$GCC" 2>&1); then
    fail "pack-fixtures: $(printf '%s' "$why" | tr '\n' ' ')"
    exit 0
fi
# shellcheck disable=SC2086
INTERNALS=1 build_prog pack-build "$B/tests/pack/t_pack" "$SRC/t_pack.c" -- $TFLAGS || exit 0
for page in 4096 16384 65536; do
    # shellcheck disable=SC2086
    run_cases "t_pack-$page" 600 $RUN "$B/tests/pack/t_pack" "$FX" "$page" "$N"
done
# 3000 units at 4 KiB pages: more than one arena block (256 pages each)
# shellcheck disable=SC2086
run_cases "t_pack-4096-3000" 600 $RUN "$B/tests/pack/t_pack" "$FX" 4096 3000

# Code loaded where other code ran: a freed chunk (packed) and a kept reservation (unpacked)
# taken again by different code, which must be what runs (tests/pack/t_reload.c; under
# qemu-user the packed case ran the previous unit's code before arena.c remapped the page).
rl=$FX/reload
mkdir -p "$rl"
built=1
for v in 1 2 3 9; do $GCC -O2 -DVAL=$v -c "$SRC/reload.c" -o "$rl/u$v.o" 2>>"$rl/err" || built=0; done
if [ $built = 1 ]; then
    mv "$rl/u9.o" "$rl/k.o"
    # shellcheck disable=SC2086
    build_prog reload-build "$B/tests/pack/t_reload" "$SRC/t_reload.c" -- $TFLAGS &&
        run_cases t_reload 120 $RUN "$B/tests/pack/t_reload" "$rl"
else
    fail "reload-fixtures: $(head -n 2 "$rl/err" | tr '\n' ' ')"
fi

# Units a pack_small context must not pack, or may pack only where their references allow,
# among packed ones (tests/pack/mixed.c; x86_64: the -fno-pic R_X86_64_PC32 window).
if [ "$TARGET" = x86_64 ]; then
    mk() { $GCC -O2 "$@" 2>>"$FX/mixed.err"; }
    if mk -fPIC -DBIG -c "$SRC/mixed.c" -o "$FX/mixed-big.o" &&
       mk -fPIC -DTLS -c "$SRC/mixed.c" -o "$FX/mixed-tls.o" &&
       mk -fno-pic -DFAR_DATA -c "$SRC/mixed.c" -o "$FX/mixed-far.o" &&
       mk -fno-pic -DNEAR_DATA -c "$SRC/mixed.c" -o "$FX/mixed-near.o"; then
        build_prog pack-mixed-build "$B/tests/pack/t_mixed" "$SRC/t_mixed.c" &&
            run_cases t_mixed 120 "$B/tests/pack/t_mixed" "$FX"
    else
        fail "pack-mixed-fixtures: $(head -n 2 "$FX/mixed.err" | tr '\n' ' ')"
    fi
fi

# A process traced from the start (run under gdb) does not pack: ptrace cannot write a
# breakpoint into a shared mapping that is not writable. The same program shares pages
# when not traced (the control: the difference is the tracer).
if [ "$TARGET:$SAN" = x86_64: ] && command -v gdb >/dev/null; then
    expect pack-traced-process-not-packed pack-traced-breakpoint-stops
    if build_prog pack-traced-build "$B/tests/pack/t_traced" "$SRC/t_traced.c"; then
        native=$(timeout 60 "$B/tests/pack/t_traced" "$FX/u3.o" 2>&1)
        under=$(GDB_SECS=120 gdb_batch 'set breakpoint pending on' 'break f' RUN continue \
                -- "$B/tests/pack/t_traced" "$FX/u3.o")
        if printf '%s\n' "$native" | grep -q '^packed=1$' && printf '%s\n' "$under" | grep -q '^packed=0$'; then
            pass pack-traced-process-not-packed
        else
            fail "pack-traced-process-not-packed: natively $(oneline "$native"); under gdb $(oneline "$under")"
        fi
        if printf '%s\n' "$under" | grep -Eq '^Breakpoint 1, 0x[0-9a-f]+ in f \(\)|^Breakpoint 1, f '; then
            pass pack-traced-breakpoint-stops
        else
            fail "pack-traced-breakpoint-stops: $(printf '%s\n' "$under" | grep -E '^(Breakpoint|packed|f=|\[Inf)' | head -4 | tr '\n' ' ')"
        fi
    fi
fi
