/* version.c - objrt_version(): the version this library was built as. */
#include "objrt.h"

const char *objrt_version(void) { return OBJRT_VERSION; }
