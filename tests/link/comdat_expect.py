#!/usr/bin/env python3
"""comdat_expect.py OBJ... - what ld's COMDAT rule drops from these objects, in link order:
prints "groups=<n> bytes=<n>", the groups whose signature an earlier group had, and the
SHF_ALLOC bytes of their member sections. Read straight from the ELF (an independent
computation for the objrt_stats check of tests/suites/49-link-rules.sh)."""
import struct
import sys

SHT_SYMTAB, SHT_GROUP, SHF_ALLOC, GRP_COMDAT = 2, 17, 2, 1


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", data, 0x3c)
    out = []
    for i in range(shnum):
        name, typ, flags, _addr, off, size, link, info = struct.unpack_from(
            "<IIQQQQII", data, shoff + 64 * i)
        out.append(dict(name=name, type=typ, flags=flags, off=off, size=size, link=link,
                        info=info))
    return out


def cstr(data, off):
    return data[off:data.index(b"\0", off)].decode()


def groups(path):
    data = open(path, "rb").read()
    sh = sections(data)
    for s in sh:
        if s["type"] != SHT_GROUP:
            continue
        words = struct.unpack_from("<%dI" % (s["size"] // 4), data, s["off"])
        symtab = sh[s["link"]]
        name, info, _o, shndx = struct.unpack_from("<IBBH", data, symtab["off"] + 24 * s["info"])
        if info & 0xf == 3:                 # STT_SECTION: the section's name
            shstr = sh[struct.unpack_from("<H", data, 0x3e)[0]]
            sig = cstr(data, shstr["off"] + sh[shndx]["name"])
        else:
            sig = cstr(data, sh[symtab["link"]]["off"] + name)
        alloc = sum(sh[m]["size"] for m in words[1:] if sh[m]["flags"] & SHF_ALLOC)
        yield words[0] & GRP_COMDAT, sig, alloc


def main():
    seen, dropped, saved = set(), 0, 0
    for path in sys.argv[1:]:
        for comdat, sig, alloc in groups(path):
            if not comdat:
                continue
            if sig in seen:
                dropped += 1
                saved += alloc
            seen.add(sig)
    print("groups=%d bytes=%d" % (dropped, saved))


if __name__ == "__main__":
    main()
