#!/usr/bin/env bash
# 46-real-libs: Debian static libraries that need thread-local storage, glibc's non-shared
# functions or the compiler's helper library, each driver linked natively and by objrt
# (stdout and exit status identical), with controls showing which mechanism served:
#   x86_64   libjpeg.a (TLS in its SIMD dispatch): a JPEG encode/decode round trip
#            libuv_a.a (pthread_atfork): its thread pool runs 16 work items
#            __builtin_cpu_supports (__cpu_model, only in libgcc.a); OBJRT_LIBGCC=none must
#            then fail (the control)
#   aarch64  libcrypto.a of libssl-dev:arm64 with no extra inputs (outline atomics from
#            libgcc.a); C++ std::shared_ptr with libgcc.a (3 objects) and with objrt's own
#            outline atomics (OBJRT_LIBGCC=none: 1 object)
set -u
. tests/lib.sh

case "$TARGET:$SAN" in
x86_64:|aarch64:) ;;
*) exit 0 ;;
esac
if [ "$TARGET" = x86_64 ]; then
    expect "libjpeg.a round trip vs native" "libuv_a.a thread pool vs native" \
           "__builtin_cpu_supports with __cpu_model from libgcc.a vs native" \
           "OBJRT_LIBGCC=none turns libgcc.a off" "OBJRT_LIBGCC=a missing path is refused by name"
else
    expect "arm64 libcrypto.a with no extra inputs vs native" \
           "aarch64 std::shared_ptr, libgcc.a's outline atomics vs native" \
           "aarch64 std::shared_ptr, objrt's own outline atomics vs native" "aarch64 outline atomics"
fi
D=tests/drivers
W=$TMP
LIMIT=${OBJRT_TEST_TIMEOUT:-300}
stat_field() { grep -Eo "(^| )$1=[0-9.eE+-]+" "$2" | head -n 1 | sed 's/.*=//'; }

# driver NAME SOURCE ARCHIVE [CC_FLAGS...]: build the driver, link natively, run both ways
driver() {
    local name=$1 src=$2 ar=$3; shift 3
    local d=$W/$name
    mkdir -p "$d"
    if [ ! -r "$ar" ]; then fail "$name-driver: $ar is missing (scripts/install-deps.sh)"; return 1; fi
    # shellcheck disable=SC2086
    if ! $GCC -O2 "$@" -c "$src" -o "$d/drv.o" 2>"$d/err" || ! $GCC "$d/drv.o" "$ar" -o "$d/native" 2>>"$d/err"; then
        fail "$name-driver: build: $(oneline "$(cat "$d/err")")"; return 1
    fi
    # shellcheck disable=SC2086
    run_to "$d/n" $RUN "$d/native"
    # shellcheck disable=SC2086
    run_to "$d/o" $OBJRT run --stats "$d/drv.o" "$ar"
    return 0
}

if [ "$TARGET" = x86_64 ]; then
    L=/usr/lib/x86_64-linux-gnu
    if driver jpeg "$D/jpeg_driver.c" "$L/libjpeg.a"; then
        if readelf -SW "$L/libjpeg.a" 2>/dev/null | grep -q '\.tdata'; then
            same "libjpeg.a round trip vs native (thread-local SIMD state)" "$W/jpeg/n" "$W/jpeg/o"
        else
            fail "libjpeg.a round trip vs native: no member has .tdata any more: the test no longer covers TLS"
        fi
    fi
    if driver libuv "$D/uv_driver.c" "$L/libuv_a.a"; then
        if nm "$L/libuv_a.a" 2>/dev/null | grep -q ' U pthread_atfork'; then
            same "libuv_a.a thread pool vs native (pthread_atfork)" "$W/libuv/n" "$W/libuv/o"
        else
            fail "libuv_a.a thread pool vs native: no longer references pthread_atfork; the test does not cover it"
        fi
    fi
    c=$W/cpu
    mkdir -p "$c"
    printf '#include <stdio.h>\nint main(void) { __builtin_cpu_init(); printf("sse2=%%d avx2=%%d\\n", __builtin_cpu_supports("sse2") != 0, __builtin_cpu_supports("avx2") != 0); return 0; }\n' >"$c/cpu.c"
    if $GCC -O2 -c "$c/cpu.c" -o "$c/cpu.o" && $GCC "$c/cpu.o" -o "$c/native"; then
        run_to "$c/n" "$c/native"
        run_to "$c/o" $OBJRT run "$c/cpu.o"
        same "__builtin_cpu_supports with __cpu_model from libgcc.a vs native" "$c/n" "$c/o"
        OBJRT_LIBGCC=none expect_fail "OBJRT_LIBGCC=none turns libgcc.a off" \
            "undefined symbol '__cpu_(model|indicator_init)'" $OBJRT run "$c/cpu.o"
        OBJRT_LIBGCC=/nonexistent/libgcc.a expect_fail "OBJRT_LIBGCC=a missing path is refused by name" \
            "^objrt: OBJRT_LIBGCC /nonexistent/libgcc.a: No such file or directory" $OBJRT run "$c/cpu.o"
    else
        fail "__builtin_cpu_supports with __cpu_model from libgcc.a vs native: build"
    fi
else
    L=/usr/lib/aarch64-linux-gnu
    if driver crypto "$D/crypto_driver.c" "$L/libcrypto.a"; then
        if nm "$L/libcrypto.a" 2>/dev/null | grep -q ' U __aarch64_'; then
            same "arm64 libcrypto.a with no extra inputs vs native (outline atomics)" "$W/crypto/n" "$W/crypto/o"
        else
            fail "arm64 libcrypto.a with no extra inputs vs native: calls no outline atomics; the test does not cover them"
        fi
    fi
    s=$W/shared_ptr
    mkdir -p "$s"
    cat >"$s/sp.cc" <<'CC'
#include <cstdio>
#include <memory>
#include <vector>
struct Node { int v; explicit Node(int x) : v(x) {} };
int main()
{
    std::vector<std::shared_ptr<Node>> v;
    auto p = std::make_shared<Node>(7);
    for (int i = 0; i < 100; i++)
        v.push_back(p);
    std::weak_ptr<Node> w = p;
    long uses = p.use_count();
    v.clear();
    std::printf("uses=%ld after=%ld alive=%d v=%d\n", uses, p.use_count(), !w.expired(), p->v);
    return 0;
}
CC
    if aarch64-linux-gnu-g++ -O2 -c "$s/sp.cc" -o "$s/sp.o" 2>"$s/err" && aarch64-linux-gnu-g++ "$s/sp.o" -o "$s/native" 2>>"$s/err"; then
        run_to "$s/n" $RUN "$s/native"
        # shellcheck disable=SC2086
        run_to "$s/o" $OBJRT run --stats -l stdc++ "$s/sp.o"
        # shellcheck disable=SC2086
        OBJRT_LIBGCC=none run_to "$s/f" $OBJRT run --stats -l stdc++ "$s/sp.o"
        if ! nm "$s/sp.o" | grep -q ' U __aarch64_'; then
            fail "aarch64 outline atomics: no outline atomics in the object, nothing is tested"
        else
            same "aarch64 std::shared_ptr, libgcc.a's outline atomics vs native" "$s/n" "$s/o"
            same "aarch64 std::shared_ptr, objrt's own outline atomics vs native" "$s/n" "$s/f"
            lo=$(stat_field objects "$s/o.err"); fo=$(stat_field objects "$s/f.err")
            if [ "${lo:-0}" -gt 1 ] && [ "${fo:-0}" = 1 ]; then
                pass "aarch64 outline atomics (libgcc.a members pulled: $lo objects, fallback without: $fo)"
            else
                fail "aarch64 outline atomics: objects with libgcc.a '$lo', without '$fo' (want >1 and 1)"
            fi
        fi
    else
        fail "aarch64 outline atomics: std::shared_ptr build: $(oneline "$(cat "$s/err")")"
    fi
fi
