#!/usr/bin/env bash
# Build (once) and print the path of a cached Debian root filesystem with python3-numba, for
# the numba tests that need another numba than the host's (tests/suites/70-python.sh):
#   scripts/numba-root.sh trixie         Debian 13, amd64: numba 0.61 / llvmlite 0.44, Python 3.13
#                                        (debootstrap --variant=minbase, then apt-get in a chroot)
#   scripts/numba-root.sh bookworm-arm64 Debian 12, arm64: numba 0.56 / llvmlite 0.39, run with
#                                        qemu-aarch64 -L ROOT (the packages downloaded with a
#                                        private apt state and unpacked; its own ld.so.cache)
#   scripts/numba-root.sh sid            Debian sid, amd64: numba 0.65 / llvmlite 0.47, Python 3.14,
#                                        and the real tvm-ffi 0.1.12 (python3-tvm-ffi, libtvm-ffi-dev)
#   scripts/numba-root.sh sid-arm64      Debian sid, arm64: numba 0.65 / llvmlite 0.47, as bookworm-arm64
# sid's Release file is past its Valid-Until date in the registry this runs against, so apt there
# is told not to check it (debootstrap does not check it).
# The root lives outside the checkout, in $OBJRT_ROOTS (default /var/cache/objrt); it is
# built into NAME.tmp and renamed when complete, so an interrupted build is never used.
# Prints the root's path on stdout; progress goes to NAME.log next to it. Needs root (chroot)
# and the Debian mirror (MIRROR, default http://deb.debian.org/debian).
set -euo pipefail
name=${1:?usage: scripts/numba-root.sh trixie|sid|bookworm-arm64|sid-arm64}
cache=${OBJRT_ROOTS:-/var/cache/objrt}
mirror=${MIRROR:-http://deb.debian.org/debian}
root=$cache/$name
[ -f "$root/.objrt-root" ] && { echo "$root"; exit 0; }
mkdir -p "$cache"
exec 9>"$cache/$name.lock"
flock 9                                         # two suites building the same root wait
[ -f "$root/.objrt-root" ] && { echo "$root"; exit 0; }
tmp=$root.tmp log=$cache/$name.log
rm -rf "$tmp"
: >"$log"
SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo

case $name in
trixie|sid)
    # libjansson4: libobjrt.so links it; the rest is numba's own test dependencies. On sid
    # also the real tvm-ffi (library, headers, Python package) and compilers for objects built
    # against its C++ headers.
    extra=(); nocheck=()
    if [ "$name" = sid ]; then
        extra=(python3-tvm-ffi libtvm-ffi-dev libdlpack-dev g++ gcc clang make)
        nocheck=(-o Acquire::Check-Valid-Until=false)
    fi
    $SUDO debootstrap --variant=minbase "$name" "$tmp" "$mirror" >>"$log" 2>&1
    $SUDO chroot "$tmp" apt-get "${nocheck[@]}" update >>"$log" 2>&1
    $SUDO chroot "$tmp" env DEBIAN_FRONTEND=noninteractive apt-get "${nocheck[@]}" install -y -q \
        --no-install-recommends python3-numba python3-numpy libjansson4 "${extra[@]}" >>"$log" 2>&1
    $SUDO chroot "$tmp" apt-get clean >>"$log" 2>&1
    ;;
bookworm-arm64|sid-arm64)
    suite=${name%-arm64}
    nocheck=(); [ "$suite" = sid ] && nocheck=(-o Acquire::Check-Valid-Until=false)
    # A private apt state for arm64 packages of the release: nothing of the host's apt changes.
    st=$cache/$name.apt
    rm -rf "$st"
    mkdir -p "$st/lists/partial" "$st/archives/partial" "$st/etc"
    printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
        "$mirror" "$suite" >"$st/etc/sources.list"
    : >"$st/status"
    apt_opts=(-o APT::Architecture=arm64 -o APT::Architectures=arm64 -o Dir::State="$st"
              -o Dir::State::status="$st/status" -o Dir::Cache="$st" -o Dir::Etc::SourceList="$st/etc/sources.list"
              -o Dir::Etc::SourceParts=/nonexistent -o Dir::Etc::Preferences=/nonexistent
              -o Dir::Etc::PreferencesParts=/nonexistent -o Debug::NoLocking=1 "${nocheck[@]}")
    apt-get "${apt_opts[@]}" update >>"$log" 2>&1
    apt-get "${apt_opts[@]}" install -y -q --download-only --no-install-recommends \
        python3-numba python3-numpy libjansson4 libc-bin >>"$log" 2>&1
    mkdir -p "$tmp"
    for deb in "$st"/archives/*.deb; do dpkg-deb -x "$deb" "$tmp"; done
    # Debian 12 and later are merged-/usr: the packages install under usr/, the root's /lib and /bin are links.
    for d in bin sbin lib; do [ -e "$tmp/$d" ] || ln -s "usr/$d" "$tmp/$d"; done
    # Its own ld.so.cache, written by its own ldconfig: the root's ld.so finds only the
    # root's libraries (one glibc in the process).
    mkdir -p "$tmp/etc/ld.so.conf.d"
    printf 'include /etc/ld.so.conf.d/*.conf\n' >"$tmp/etc/ld.so.conf"
    # libblas.so.3 and liblapack.so.3 (numpy) are alternatives that postinst scripts would
    # link; unpacked only, their directories go on the search path instead.
    find "$tmp/usr/lib/aarch64-linux-gnu" -name 'lib*blas.so.3' -o -name 'liblapack.so.3' |
        xargs -r -n1 dirname | sort -u | sed "s|^$tmp||" >"$tmp/etc/ld.so.conf.d/alternatives.conf"
    qemu-aarch64 -L "$tmp" "$tmp/sbin/ldconfig" -r "$tmp" >>"$log" 2>&1
    python_ver=$(qemu-aarch64 -L "$tmp" "$tmp/usr/bin/python3" -c 'import numba, llvmlite; print(numba.__version__, llvmlite.__version__)')
    echo "numba llvmlite: $python_ver" >>"$log"
    rm -rf "$st"
    ;;
*)
    echo "numba-root.sh: unknown root '$name' (trixie, sid, bookworm-arm64, sid-arm64)" >&2
    exit 2
    ;;
esac
date -u +%FT%TZ >"$tmp/.objrt-root"
mv "$tmp" "$root"
echo "$root"
