"""jitdump_read.py - 66-perf's own reader of a jitdump file (the layout of the Linux kernel's
tools/perf/Documentation/jitdump-specification.txt): checks the file header, walks every
record by its total_size, and prints one line per JIT_CODE_LOAD record:
    load INDEX NAME SIZE HEXBYTES
Exit 1 with the reason on anything malformed.   usage: jitdump_read.py FILE PID MACHINE"""
import struct
import sys

path, pid, mach = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
magic, version, hsize, elf_mach, _pad, hpid, _ts, flags = struct.unpack_from("<6IQQ", data, 0)
if magic != 0x4A695444 or version != 1 or hsize != 40 or elf_mach != mach or hpid != pid or flags:
    sys.exit("bad header: magic %#x version %d size %d mach %d pid %d flags %d"
             % (magic, version, hsize, elf_mach, hpid, flags))
at, last_ts = hsize, 0
while at < len(data):
    if len(data) - at < 16:
        sys.exit("a record header cut off at %d" % at)
    rid, size, ts = struct.unpack_from("<IIQ", data, at)
    if size < 16 or at + size > len(data):
        sys.exit("record at %d: size %d past the end" % (at, size))
    if ts < last_ts:
        sys.exit("record at %d: timestamp goes back" % at)
    last_ts = ts
    if rid == 0:
        rpid, _tid, vma, addr, csize, index = struct.unpack_from("<IIQQQQ", data, at + 16)
        end = data.index(b"\0", at + 56)
        name = data[at + 56:end].decode()
        code = data[end + 1:at + size]
        if rpid != pid or vma != addr or len(code) != csize:
            sys.exit("load record %s: pid %d vma %#x addr %#x code %d of %d"
                     % (name, rpid, vma, addr, len(code), csize))
        print("load", index, name, csize, code.hex())
    at += size
