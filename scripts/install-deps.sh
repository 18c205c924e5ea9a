#!/usr/bin/env bash
# Install every Debian package the build, tests and benchmarks need (idempotent).
# Runs apt only when something is missing, so repeated `make check` stays fast.
set -euo pipefail
pkgs=(gcc clang make binutils python3 libc6-dev
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user   # AArch64 cross build and emulation
      g++-aarch64-linux-gnu                                   # AArch64 C++ fixtures (std::shared_ptr: outline atomics)
      python3-llvmlite                                        # LLVM-JIT-style objects (llvmlite)
      python3-numba python3-numpy                             # objrt.numba and its tests/benchmarks
      python3-setuptools python3-wheel python3-pip            # offline `pip install ./python` test
      python3-numpy                                           # reference results and .npy files for objrt call
      libdlpack-dev                                           # DLPack tensor header for the TVM ABI
      libjansson-dev                                          # JSON for the graph executor (libobjrt links it)
      libdw-dev                                               # crash reports' file:line (elfutils' libdw, dlopened by the report only)
      zlib1g-dev libsqlite3-dev liblua5.4-dev                 # real Debian static libraries to link
      libssl-dev                                              # bench/link: OpenSSL's libcrypto.a set (908 objects)
      libjpeg62-turbo-dev libuv1-dev                          # static libraries with TLS (libjpeg.a), pthread_atfork (libuv_a.a)
      llvm-14-dev libomp-dev hyperfine valgrind               # benchmark anchors (RuntimeDyld, OpenMP), instruction counts
      debootstrap                                             # scripts/numba-root.sh: Debian 13's numba 0.61 in a chroot
      gdb gdb-multiarch man-db)                               # tests: gdb through the JIT interface (x86_64, aarch64 under qemu); man pages render
arm64_pkgs=(libjansson-dev:arm64 libdw-dev:arm64 zlib1g-dev:arm64 libsqlite3-dev:arm64
            libssl-dev:arm64                                  # arm64 libcrypto.a: outline atomics from libgcc.a
            libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64      # one glibc under qemu-aarch64 -L / (tests/run.sh): the
            libatomic1:arm64 libgomp1:arm64)                  # multiarch ld.so and libraries, not the cross ones
missing=()
for p in "${pkgs[@]}" "${arm64_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if ! dpkg --print-foreign-architectures | grep -qx arm64; then $SUDO dpkg --add-architecture arm64; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
