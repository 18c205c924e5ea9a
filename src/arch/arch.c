/* arch.c - choose the backend for an object's e_machine: one list, one backend per machine. */
#include <elf.h>
#include <stddef.h>

#include "arch/arch.h"

/* Read by every load's parse, written by objrt_arch_register: each entry is one pointer,
 * stored and loaded atomically, so a load sees either backend, never a torn one. */
static const struct objrt_arch *backends[OBJRT_ARCH_SLOTS] = {
    &objrt_arch_x86_64,
    &objrt_arch_aarch64,
};

const struct objrt_arch *objrt_arch_for_machine(uint16_t machine)
{
    for (size_t i = 0; i < OBJRT_ARCH_SLOTS; i++) {
        const struct objrt_arch *a = __atomic_load_n(&backends[i], __ATOMIC_ACQUIRE);
        if (a && a->machine == machine)
            return a;
    }
    return NULL;
}

/* The entry of a->machine, else the first free one. Registrations are expected from one
 * thread at start-up; two racing for the last free entry may both take it (the later
 * store wins). */
int objrt_arch_register(const struct objrt_arch *a)
{
    size_t free_at = OBJRT_ARCH_SLOTS;
    for (size_t i = 0; i < OBJRT_ARCH_SLOTS; i++) {
        const struct objrt_arch *b = __atomic_load_n(&backends[i], __ATOMIC_ACQUIRE);
        if (b && b->machine == a->machine) {
            free_at = i;
            break;
        }
        if (!b && free_at == OBJRT_ARCH_SLOTS)
            free_at = i;
    }
    if (free_at == OBJRT_ARCH_SLOTS)
        return -1;
    __atomic_store_n(&backends[free_at], a, __ATOMIC_RELEASE);
    return 0;
}

/* The backend for the machine whose code this process can run: the list's, so that a
 * registered one serves objrt_load too. */
const objrt_arch *objrt_host_arch(void)
{
#if defined(__x86_64__)
    return objrt_arch_for_machine(EM_X86_64);
#elif defined(__aarch64__)
    return objrt_arch_for_machine(EM_AARCH64);
#else
#error "objrt supports x86_64 and aarch64 hosts"
#endif
}
