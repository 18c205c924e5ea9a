#!/usr/bin/env bash
# Install the Debian packages the build, tests and benchmarks need (idempotent), chosen by
# the release it runs on: Debian 12 (bookworm), 13 (trixie) and sid/testing.
#   scripts/install-deps.sh            everything (make demo and make check run this)
#   scripts/install-deps.sh --build    only what building libobjrt, the CLI and the Python
#                                      package needs (the hint the build prints names this)
#   scripts/install-deps.sh --dry-run  print the release and the packages it would install
#   scripts/install-deps.sh --list     print every package of the release's set, one a line
# Runs apt only when something is missing, so repeated `make check` stays fast.
set -euo pipefail
mode=all dry=0 list=0
for a in "$@"; do
    case $a in
        --build) mode=build ;;
        --dry-run) dry=1 ;;
        --list) list=1 ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install-deps: unknown option $a (--build, --dry-run, --list)" >&2; exit 2 ;;
    esac
done

# The release: VERSION_ID from os-release; sid and testing have none.
ID=unknown VERSION_ID= VERSION_CODENAME=
[ -r /etc/os-release ] && . /etc/os-release
release=${VERSION_ID:-sid}
[ "$ID" = debian ] || echo "install-deps: written for Debian 12, 13 and sid; this is $ID: using sid's package names" >&2
notes=("install-deps: Debian $release${VERSION_CODENAME:+ ($VERSION_CODENAME)}")

# What building libobjrt, objrt and the Python package needs: the same names on every release.
build_pkgs=(gcc make libc6-dev
            libjansson-dev                                    # JSON for the graph executor (libobjrt links it)
            libdlpack-dev                                     # DLPack tensor header for the TVM ABI
            libdw-dev                                         # crash reports' file:line (elfutils' libdw, dlopened by the report only)
            zlib1g-dev)                                       # the CLI's .npz reader (linked in statically)
pkgs=(clang binutils python3
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user   # AArch64 cross build and emulation
      g++-aarch64-linux-gnu                                   # AArch64 C++ fixtures (std::shared_ptr: outline atomics)
      python3-llvmlite                                        # LLVM-JIT-style objects (llvmlite)
      python3-numba python3-numpy                             # objrt.numba and its tests/benchmarks; .npy references
      python3-setuptools python3-wheel python3-pip            # offline `pip install ./python` test
      libsqlite3-dev liblua5.4-dev                            # real Debian static libraries to link
      libssl-dev                                              # bench/link: OpenSSL's libcrypto.a set (908 objects)
      libjpeg62-turbo-dev libuv1-dev                          # static libraries with TLS (libjpeg.a), pthread_atfork (libuv_a.a)
      libomp-dev hyperfine valgrind                           # benchmark anchors (OpenMP), instruction counts
      debootstrap                                             # scripts/numba-root.sh: Debian 13's and sid's numba in a chroot
      cmake pkgconf                                           # tests: a CMake- and a pkg-config-built host after make install
      linux-perf                                              # tests: perf names loaded code, perf inject --jit annotates it
      gdb gdb-multiarch man-db)                               # tests: gdb through the JIT interface (x86_64, aarch64 under qemu); man pages render
arm64_pkgs=(libjansson-dev:arm64 libdw-dev:arm64 zlib1g-dev:arm64 libsqlite3-dev:arm64
            libssl-dev:arm64                                  # arm64 libcrypto.a: outline atomics from libgcc.a
            libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64      # one glibc under qemu-aarch64 -L / (tests/run.sh): the
            libatomic1:arm64 libgomp1:arm64)                  # multiarch ld.so and libraries, not the cross ones
# By release: bench/link's RuntimeDyld column is built against LLVM 14 (llvm-config-14),
# which only Debian 12 ships; elsewhere the bench skips that column (it says so).
case $release in
    12) pkgs+=(llvm-14-dev) ;;
    *)  [ "$mode" = all ] && notes+=("install-deps: no llvm-14-dev on Debian $release: bench/link's RuntimeDyld column will be skipped") ;;
esac

want=("${build_pkgs[@]}")
[ "$mode" = all ] && want+=("${pkgs[@]}" "${arm64_pkgs[@]}")
[ "$list" = 1 ] && { printf '%s\n' "${want[@]}"; exit 0; }
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ "$dry" = 0 ] && exit 0
printf '%s\n' "${notes[@]}"
if [ "$dry" = 1 ]; then
    echo "install-deps: would install: ${missing[*]:-(nothing)}"; exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
if [[ " ${missing[*]} " == *:arm64* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
