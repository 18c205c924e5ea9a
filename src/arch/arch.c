/* arch.c - choose the backend for an object's e_machine. */
#include <elf.h>
#include <stddef.h>

#include "arch/arch.h"

const struct objrt_arch *objrt_arch_for_machine(uint16_t machine)
{
    if (machine == EM_X86_64)
        return &objrt_arch_x86_64;
    if (machine == EM_AARCH64)
        return &objrt_arch_aarch64;
    return NULL;
}

/* The architecture whose code this process can run. */
const objrt_arch *objrt_host_arch(void)
{
#if defined(__x86_64__)
    return &objrt_arch_x86_64;
#elif defined(__aarch64__)
    return &objrt_arch_aarch64;
#else
#error "objrt supports x86_64 and aarch64 hosts"
#endif
}
