/* reg.h - a registry built the way ld allows: every object puts entries in section
 * "objrt_registry"; the program walks from __start_objrt_registry to __stop_objrt_registry. */
struct entry { const char *name; int value; };
#define REGISTER(n, v) static const struct entry reg_##n \
    __attribute__((used, section("objrt_registry"), aligned(16))) = { #n, v }
extern const struct entry __start_objrt_registry[], __stop_objrt_registry[];
