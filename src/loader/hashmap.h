/* hashmap.h - the two small open-addressing maps the linker needs: names and slot keys. */
#ifndef OBJRT_HASHMAP_H
#define OBJRT_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct objrt_strmap {   /* const char * (not owned) -> uint32_t */
    const char **keys;
    uint32_t *vals;
    uint32_t *hashes;
    size_t cap, n;
} objrt_strmap;

typedef struct objrt_keymap {   /* (uint64_t id, int64_t addend) -> uint32_t */
    uint64_t *ids;
    int64_t *addends;
    uint32_t *vals;             /* UINT32_MAX marks an empty slot */
    size_t cap, n;
} objrt_keymap;

/* The hash every strmap uses for key (SipHash-1-3 under the per-process key): for looking
 * one name up in several maps with objrt_strmap_get_hashed. */
uint32_t objrt_strmap_hash(const char *key);
/* Lookups return UINT32_MAX when absent. Inserts return 0, or -1 when out of memory. */
uint32_t objrt_strmap_get(const objrt_strmap *m, const char *key);
/* The same, for a key whose hash is already known (from objrt_strmap_intern on any map):
 * every map hashes with the one per-process key, so a name is hashed once per link. */
uint32_t objrt_strmap_get_hashed(const objrt_strmap *m, const char *key, uint32_t hash);
int objrt_strmap_put(objrt_strmap *m, const char *key, uint32_t val);
/* One probe for lookup-or-insert: returns the existing value, or inserts `val` and returns
 * it (UINT32_MAX when out of memory). *hash receives the key's hash for later reuse. */
uint32_t objrt_strmap_intern(objrt_strmap *m, const char *key, uint32_t val, uint32_t *hash);
/* Insert a key whose hash is already known (from objrt_strmap_intern on another map). */
int objrt_strmap_put_hashed(objrt_strmap *m, const char *key, uint32_t hash, uint32_t val);
/* Size an empty map for n keys at once (no rehash while they go in); 0, or -1 when out of
 * memory. A map that already holds keys is left as it is. */
int objrt_strmap_reserve(objrt_strmap *m, size_t n);
void objrt_strmap_free(objrt_strmap *m);

uint32_t objrt_keymap_get(const objrt_keymap *m, uint64_t id, int64_t addend);
int objrt_keymap_put(objrt_keymap *m, uint64_t id, int64_t addend, uint32_t val);
void objrt_keymap_free(objrt_keymap *m);

#endif
