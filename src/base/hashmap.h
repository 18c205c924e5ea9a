/* hashmap.h - the two small open-addressing maps the linker needs: names and slot keys. */
#ifndef OBJRT_HASHMAP_H
#define OBJRT_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A name with its length and its hash (SipHash-1-3 under the per-process key), computed
 * once (objrt_strkey_of) and carried to every map that looks the name up. */
typedef struct objrt_strkey {
    const char *s;              /* not owned; s[len] is NUL */
    size_t len;
    uint64_t hash;
} objrt_strkey;

typedef struct objrt_strent {   /* one key of a strmap, in insertion order */
    objrt_strkey key;
    uint32_t val;
} objrt_strent;

/* const char * (not owned) -> uint32_t. The slots hold (high 32 bits of the hash) << 32 |
 * entry index, so a probe rejects a slot without reading the entry, and an entry is read
 * (full hash, length, then the bytes) only for a likely match. */
typedef struct objrt_strmap {
    uint64_t *slots;            /* UINT64_MAX marks an empty slot */
    objrt_strent *ents;
    size_t cap, n, capents;
} objrt_strmap;

/* A set of names whose keys the caller keeps: entry i of the caller's array starts with an
 * objrt_strkey and lies i * stride bytes after the first. The index holds only the slots
 * ((high 32 bits of the hash) << 32 | entry index), 16 bytes a name at its load bound,
 * where a strmap adds a 32-byte copy of the key (libcrypto's global table: 20k names,
 * 0.6 MB of copies the link wrote and read again). */
typedef struct objrt_strindex {
    uint64_t *slots;            /* UINT64_MAX marks an empty slot */
    size_t cap, n;
} objrt_strindex;

typedef struct objrt_keymap {   /* (uint64_t id, int64_t addend) -> uint32_t */
    uint64_t *ids;
    int64_t *addends;
    uint32_t *vals;             /* UINT32_MAX marks an empty slot */
    size_t cap, n;
} objrt_keymap;

/* The length and hash every strmap uses for the NUL-terminated name s. */
objrt_strkey objrt_strkey_of(const char *s);
/* The same for a name whose length is known. */
objrt_strkey objrt_strkey_len(const char *s, size_t len);

/* Lookups return UINT32_MAX when absent. Inserts return 0, or -1 when out of memory. */
uint32_t objrt_strmap_get(const objrt_strmap *m, const char *key);
/* The same, for a key made by objrt_strkey_of: every map hashes with the one per-process
 * key, so a name is hashed once per link whatever the maps it is looked up in. */
uint32_t objrt_strmap_find(const objrt_strmap *m, const objrt_strkey *key);
int objrt_strmap_put(objrt_strmap *m, const char *key, uint32_t val);
/* Insert (or replace the value of) a key made by objrt_strkey_of; key->s must outlive the
 * map. */
int objrt_strmap_put_key(objrt_strmap *m, const objrt_strkey *key, uint32_t val);
/* Adds key, which the caller knows is not in m (a unit's global names are unique), without
 * comparing it with the keys on its probe path: -1 when out of memory. */
int objrt_strmap_add_new(objrt_strmap *m, const objrt_strkey *key, uint32_t val);
/* One probe for lookup-or-insert: returns the existing value, or inserts `val` and returns
 * it (UINT32_MAX when out of memory). */
uint32_t objrt_strmap_intern(objrt_strmap *m, const objrt_strkey *key, uint32_t val);
/* Size an empty map for n keys at once (no rehash while they go in); 0, or -1 when out of
 * memory. A map that already holds keys is left as it is. */
int objrt_strmap_reserve(objrt_strmap *m, size_t n);
void objrt_strmap_free(objrt_strmap *m);

/* The entry of key in the caller's array `ents` (stride bytes apart, as it is now: it may
 * have moved since the last call), or `next` after recording that key is entry `next`;
 * the caller then writes that entry (starting with *key) before its next call, and entries
 * are numbered 0, 1, 2, ... in the order they were added. UINT32_MAX when out of memory. */
uint32_t objrt_strindex_intern(objrt_strindex *m, const void *ents, size_t stride,
                               const objrt_strkey *key, uint32_t next);
/* Size an empty index for n names at once (0, or -1 when out of memory); an index that
 * already holds names is left as it is. */
int objrt_strindex_reserve(objrt_strindex *m, size_t n);
void objrt_strindex_free(objrt_strindex *m);

/* A memo in front of a strmap for names that come again and again (the global table: each
 * name of a link is entered 3.6 times on average, once per object that defines or
 * references it): sets of OBJRT_STRMEMO_WAYS slots, no probing beyond the set, holding the
 * entries last seen there. A hit saves the keyed hash of the name; a miss (empty, or other
 * names) costs a few instructions and at most one compare per way, then the keyed map
 * decides. The set is chosen by an unkeyed mix of the length and the first and last 8
 * bytes, which is safe because nothing depends on it but whether the memo hits: names
 * chosen to share a set only make every lookup miss, a bounded cost per name, never a chain
 * (the keyed map's own slots, where chains form, still depend only on SipHash). */
#define OBJRT_STRMEMO_WAYS 2
typedef struct objrt_strmemo {
    uint32_t *slots;            /* UINT32_MAX: empty */
    unsigned shift;             /* 64 - log2(number of slots) */
} objrt_strmemo;

/* Slots for about n names (0, or -1 when out of memory); a memo that has slots is kept. */
int objrt_strmemo_init(objrt_strmemo *m, size_t n);
/* Remember entry e in its set (the oldest leaves). */
static inline void objrt_strmemo_put(uint32_t *set, uint32_t e)
{
    for (int w = OBJRT_STRMEMO_WAYS - 1; w > 0; w--)
        set[w] = set[w - 1];
    set[0] = e;
}
void objrt_strmemo_free(objrt_strmemo *m);

static inline uint64_t objrt_load64(const char *p) { uint64_t w; memcpy(&w, p, 8); return w; }
static inline uint32_t objrt_load32(const char *p) { uint32_t w; memcpy(&w, p, 4); return w; }

/* The memo set (OBJRT_STRMEMO_WAYS slots, most recent first) of the name s of len bytes;
 * NULL when the memo has no slots. */
static inline uint32_t *objrt_strmemo_set(const objrt_strmemo *m, const char *s, size_t len)
{
    if (!m->slots)
        return NULL;
    uint64_t a, b;
    if (len >= 8) {
        a = objrt_load64(s);
        b = objrt_load64(s + len - 8);
    } else if (len >= 4) {
        a = objrt_load32(s);
        b = objrt_load32(s + len - 4);
    } else {
        a = len ? (uint8_t)s[0] : 0;
        b = len ? (uint8_t)s[len - 1] : 0;
    }
    uint64_t x = (a ^ (b << 29 | b >> 35) ^ len) * 0x9e3779b97f4a7c15ull;
    return &m->slots[(x >> m->shift) & ~(uint64_t)(OBJRT_STRMEMO_WAYS - 1)];
}

/* a == b for two names of n bytes each: word compares, the last one overlapping, that read
 * only inside both names (no call, no per-byte loop for n >= 4). */
static inline bool objrt_same_bytes(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            if (objrt_load64(a + i) != objrt_load64(b + i))
                return false;
        return objrt_load64(a + n - 8) == objrt_load64(b + n - 8);
    }
    if (n >= 4)
        return objrt_load32(a) == objrt_load32(b) &&
               objrt_load32(a + n - 4) == objrt_load32(b + n - 4);
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

uint32_t objrt_keymap_get(const objrt_keymap *m, uint64_t id, int64_t addend);
int objrt_keymap_put(objrt_keymap *m, uint64_t id, int64_t addend, uint32_t val);
void objrt_keymap_free(objrt_keymap *m);

#endif
