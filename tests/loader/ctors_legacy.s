# Legacy .ctors/.dtors entries next to .init_array/.fini_array ones: a static link runs
# .init_array, then .ctors last-to-first; at exit .fini_array, then .dtors first-to-last.
	.text
	.globl main
main:
	leaq .Lmain(%rip), %rdi
	jmp puts@PLT
.macro say name, text
\name:
	leaq \text(%rip), %rdi
	jmp puts@PLT
.endm
	say c1, .Lc1
	say c2, .Lc2
	say i1, .Li1
	say d1, .Ld1
	say d2, .Ld2
	say f1, .Lf1
	.section .rodata.str1.1,"aMS",@progbits,1
.Lmain:	.string "main"
.Lc1:	.string "ctors entry 1"
.Lc2:	.string "ctors entry 2"
.Li1:	.string "init_array"
.Ld1:	.string "dtors entry 1"
.Ld2:	.string "dtors entry 2"
.Lf1:	.string "fini_array"
	.section .ctors,"aw"
	.quad c1
	.quad c2
	.section .dtors,"aw"
	.quad d1
	.quad d2
	.section .init_array,"aw"
	.quad i1
	.section .fini_array,"aw"
	.quad f1
	.section .note.GNU-stack,"",@progbits
