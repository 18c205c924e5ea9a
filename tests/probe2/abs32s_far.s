# A 32-bit sign-extended absolute address of the unit 2.25 GiB past its start: no base
# satisfies it (the unit would have to start below 0). Issue 27, item 10.
    .text
    .globl main
main:
    movq $big + 0x90000000, %rax
    xor %eax, %eax
    ret
    .bss
big:  .zero 16
