#!/usr/bin/env python3
"""Write an assembly file with more than 65280 sections, so the object needs SHN_XINDEX
(symbols whose section index does not fit st_shndx) and e_shnum escapes."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 66000
out = ["\t.text"]
for i in range(n):
    out.append(f"\t.section .text.f{i},\"ax\",@progbits")
    out.append(f"\t.globl f{i}\nf{i}:\n\tmovl ${i}, %eax\n\tret")
# entry: sums a few functions near the end, whose section indexes are above 0xff00
out.append("\t.section .text.entry,\"ax\",@progbits\n\t.globl xindex_entry\nxindex_entry:")
out.append("\tpushq %rbx\n\txorl %ebx, %ebx")
for i in (1, n // 2, n - 3, n - 1):
    out.append(f"\tcall f{i}\n\taddl %eax, %ebx")
out.append("\tmovl %ebx, %eax\n\tpopq %rbx\n\tret")
sys.stdout.write("\n".join(out) + "\n")
