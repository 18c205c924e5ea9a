/* hashmap.c - linear probing, power-of-two capacity, grown at 1/2 load. */
#include "loader/hashmap.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY UINT32_MAX

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    while (*s)
        h = (h ^ (uint8_t)*s++) * 16777619u;
    return h;
}

static uint64_t hash_key(uint64_t id, int64_t addend)
{
    uint64_t h = (id ^ ((uint64_t)addend * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

uint32_t objrt_strmap_get(const objrt_strmap *m, const char *key)
{
    if (!m->cap)
        return EMPTY;
    uint32_t h = hash_str(key);
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i])
            return EMPTY;
        if (m->hashes[i] == h && strcmp(m->keys[i], key) == 0)
            return m->vals[i];
    }
}

static void strmap_insert(objrt_strmap *m, const char *key, uint32_t h, uint32_t val)
{
    size_t i = h & (m->cap - 1);
    while (m->keys[i] && !(m->hashes[i] == h && strcmp(m->keys[i], key) == 0))
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        m->n++;
    m->keys[i] = key;
    m->hashes[i] = h;
    m->vals[i] = val;
}

static int strmap_grow(objrt_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    objrt_strmap g = { calloc(cap, sizeof(char *)), malloc(cap * 4), malloc(cap * 4), cap, 0 };
    if (!g.keys || !g.vals || !g.hashes) {
        objrt_strmap_free(&g);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            strmap_insert(&g, m->keys[i], m->hashes[i], m->vals[i]);
    objrt_strmap_free(m);
    *m = g;
    return 0;
}

int objrt_strmap_put(objrt_strmap *m, const char *key, uint32_t val)
{
    return objrt_strmap_put_hashed(m, key, hash_str(key), val);
}

int objrt_strmap_put_hashed(objrt_strmap *m, const char *key, uint32_t hash, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && strmap_grow(m))
        return -1;
    strmap_insert(m, key, hash, val);
    return 0;
}

uint32_t objrt_strmap_intern(objrt_strmap *m, const char *key, uint32_t val, uint32_t *hash)
{
    if ((m->n + 1) * 2 > m->cap && strmap_grow(m))
        return EMPTY;
    uint32_t h = *hash = hash_str(key);
    size_t i = h & (m->cap - 1);
    for (; m->keys[i]; i = (i + 1) & (m->cap - 1))
        if (m->hashes[i] == h && strcmp(m->keys[i], key) == 0)
            return m->vals[i];
    m->keys[i] = key;
    m->hashes[i] = h;
    m->vals[i] = val;
    m->n++;
    return val;
}

void objrt_strmap_free(objrt_strmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->hashes);
    memset(m, 0, sizeof *m);
}

uint32_t objrt_keymap_get(const objrt_keymap *m, uint64_t id, int64_t addend)
{
    if (!m->cap)
        return EMPTY;
    for (size_t i = hash_key(id, addend) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->vals[i] == EMPTY)
            return EMPTY;
        if (m->ids[i] == id && m->addends[i] == addend)
            return m->vals[i];
    }
}

static void keymap_insert(objrt_keymap *m, uint64_t id, int64_t addend, uint32_t val)
{
    size_t i = hash_key(id, addend) & (m->cap - 1);
    while (m->vals[i] != EMPTY && !(m->ids[i] == id && m->addends[i] == addend))
        i = (i + 1) & (m->cap - 1);
    if (m->vals[i] == EMPTY)
        m->n++;
    m->ids[i] = id;
    m->addends[i] = addend;
    m->vals[i] = val;
}

static int keymap_grow(objrt_keymap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    objrt_keymap g = { malloc(cap * 8), malloc(cap * 8), malloc(cap * 4), cap, 0 };
    if (!g.ids || !g.addends || !g.vals) {
        objrt_keymap_free(&g);
        return -1;
    }
    memset(g.vals, 0xff, cap * 4);
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i] != EMPTY)
            keymap_insert(&g, m->ids[i], m->addends[i], m->vals[i]);
    objrt_keymap_free(m);
    *m = g;
    return 0;
}

int objrt_keymap_put(objrt_keymap *m, uint64_t id, int64_t addend, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && keymap_grow(m))
        return -1;
    keymap_insert(m, id, addend, val);
    return 0;
}

void objrt_keymap_free(objrt_keymap *m)
{
    free(m->ids);
    free(m->addends);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
