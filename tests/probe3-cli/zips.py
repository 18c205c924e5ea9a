#!/usr/bin/python3
"""zips.py DIR - the .npz files of suite 54-probe3-cli, written into DIR: ok.npz (one
deflated member a.npy), big.npz (its central directory says a.npy inflates to 1 GiB + 1),
cut.npz (its compressed size runs past the file's end), esc.npz (a member named
"e<ESC>[31m.npy" whose CRC-32 does not match) and escg.npz (that name, intact)."""
import io
import struct
import sys
import zipfile

import numpy as np

CD_SIG = b"PK\x01\x02"


def member_zip(name):
    npy = io.BytesIO()
    np.save(npy, np.zeros((1, 4), np.float32))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, npy.getvalue())
    return bytearray(out.getvalue())


def patch_cd(data, offset, value):
    """Set the 32-bit field at `offset` of the (only) central directory entry."""
    at = data.rindex(CD_SIG)
    struct.pack_into("<I", data, at + offset, value)
    return data


def main():
    d = sys.argv[1]
    files = {
        "ok.npz": member_zip("a.npy"),
        "big.npz": patch_cd(member_zip("a.npy"), 24, (1 << 30) + 1),     # uncompressed size
        "cut.npz": patch_cd(member_zip("a.npy"), 20, 1 << 20),           # compressed size
        "esc.npz": patch_cd(member_zip("e\x1b[31m.npy"), 16, 0x12345678),  # CRC-32
        "escg.npz": member_zip("e\x1b[31m.npy"),
    }
    for name, data in files.items():
        with open("%s/%s" % (d, name), "wb") as f:
            f.write(data)


main()
