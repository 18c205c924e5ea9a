// TLS relocation forms compilers rarely emit: TPOFF64 and DTPOFF64 in data, the addq
// form of GOTTPOFF, LE as an immediate. Prints the mask of wrong forms; status 0 when
// none. -DBREAK: one reported wrong (the control).
    .section .tdata, "awT", @progbits
    .p2align 3
pad: .quad 7
v:   .long 42
    .data
    .p2align 3
tpoff_word:  .quad v@tpoff              // R_X86_64_TPOFF64
dtpoff_word: .quad v@dtpoff             // R_X86_64_DTPOFF64
    .text
    .globl main
main:
    push %rbx
    xor %ebx, %ebx                      // bitmask of failed forms
    // 1: TPOFF64 from data, added to the thread pointer
    mov %fs:0, %rax
    add tpoff_word(%rip), %rax
    cmpl $42, (%rax)
    je 1f
    or $1, %ebx
1:  // 2: IE with the GOT slot added (addq form, not movq)
    mov %fs:0, %rax
    addq v@gottpoff(%rip), %rax
    cmpl $42, (%rax)
    je 1f
    or $2, %ebx
1:  // 3: LD pair, then DTPOFF64 from data
    lea v@tlsld(%rip), %rdi
    call __tls_get_addr@PLT
    add dtpoff_word(%rip), %rax
    cmpl $42, (%rax)
    je 1f
    or $4, %ebx
1:  // 4: LE with a 32-bit immediate into a register (movq $v@tpoff)
    movq $v@tpoff, %rax
    add %fs:0, %rax
    cmpl $42, (%rax)
    je 1f
    or $8, %ebx
1:
#ifdef BREAK
    or $16, %ebx
#endif
    lea fmt(%rip), %rdi
    mov %ebx, %esi
    xor %eax, %eax
    call printf@PLT
    xor %eax, %eax
    test %ebx, %ebx
    setne %al
    pop %rbx
    ret
    .section .rodata.str1.1, "aMS", @progbits, 1
fmt: .asciz "failed forms: %#x\n"
