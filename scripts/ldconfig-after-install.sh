#!/usr/bin/env bash
# ldconfig-after-install.sh LIBDIR [uninstall]: what `make install` (and uninstall) does about
# the dynamic linker's cache. A host linked with -lobjrt finds libobjrt.so.0 at start-up only
# through /etc/ld.so.cache (or an rpath / LD_LIBRARY_PATH): a library copied into a searched
# directory without refreshing the cache is not found until someone runs ldconfig.
#   LIBDIR among the directories ld.so.conf names -> run ldconfig (it must, as root)
#   any other LIBDIR                           -> say how hosts will find the library
# The Makefile does not call this under DESTDIR: a staged tree is not this machine's.
set -u
libdir=$1 mode=${2:-install}
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
want=$(realpath -m "$libdir")
# The directories ld.so searches through its cache: ldconfig lists each existing one (and
# where it was configured) without writing anything under -N -X. /usr/lib and /lib are one
# directory on merged-/usr systems, hence realpath on both sides.
searched=no
while IFS= read -r d; do
    [ "$(realpath -m "$d")" = "$want" ] && searched=yes
done < <("$LDCONFIG" -v -N -X 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p')
if [ "$searched" = yes ]; then
    if "$LDCONFIG"; then
        [ "$mode" = install ] && echo "install: ran ldconfig ($libdir is in the dynamic linker's search path)"
    else
        echo "install: ldconfig failed; run 'ldconfig' as root before starting a host linked with -lobjrt" >&2
    fi
elif [ "$mode" = install ]; then
    cat >&2 <<MSG
install: note: $libdir is not a directory the dynamic linker searches; a host linked with
  -lobjrt will not start ("libobjrt.so.0: cannot open shared object file") until it is told:
  link with -Wl,-rpath,$libdir, or run it with LD_LIBRARY_PATH=$libdir, or (as root)
  echo $libdir > /etc/ld.so.conf.d/objrt.conf && ldconfig
MSG
fi
exit 0
