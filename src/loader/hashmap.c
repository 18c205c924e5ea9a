/* hashmap.c - linear probing, power-of-two capacity, grown at 1/2 load.
 *
 * Keys come from the input (symbol names, relocation addends), so the hash is keyed with a
 * per-process random secret: with a fixed hash (FNV-1a before) an object could choose
 * 100k names that share their low bits and turn every insert into a walk of one long
 * probe chain (18 s instead of 0.05 s). SipHash-1-3 (Aumasson and Bernstein), the keyed
 * hash Python (3.11 on) and Rust use for the same reason; only a table's own slots depend
 * on it. It stays although it is most of a name's cost (issue 13): the faster keyed hashes
 * do not claim that the key cannot be learned - foldhash's documentation advises against
 * it where someone may study a long-running program to reverse engineer its random state
 * and craft colliding inputs, which is a host loading objects - and PEP 456 chose SipHash
 * because only a cryptographic function keeps the key from being extracted. So the costs
 * cut are around it: the keyed state is made once, and a name is hashed once per link
 * (objrt_strmap_intern returns the hash; *_hashed reuse it). */
#include "loader/hashmap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define EMPTY UINT32_MAX

static uint64_t seed_state[4];     /* SipHash's v0..v3 after keying, the same for every hash */
static pthread_once_t seed_once = PTHREAD_ONCE_INIT;
static atomic_bool seeded;          /* set once seed_state[] is final: skips pthread_once per hash */

static void make_seed(void)
{
    uint64_t seed[2] = { 0, 0 };
    if (getrandom(seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
        struct timespec t;          /* no entropy yet (early boot): still unpredictable */
        clock_gettime(CLOCK_MONOTONIC, &t);
        seed[0] ^= (uint64_t)t.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uintptr_t)&t;
        seed[1] ^= (uint64_t)t.tv_sec * 0xff51afd7ed558ccdull ^ (uintptr_t)seed_state;
    }
    seed_state[0] = seed[0] ^ 0x736f6d6570736575ull;
    seed_state[1] = seed[1] ^ 0x646f72616e646f6dull;
    seed_state[2] = seed[0] ^ 0x6c7967656e657261ull;
    seed_state[3] = seed[1] ^ 0x7465646279746573ull;
    atomic_store_explicit(&seeded, true, memory_order_release);
}

static inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

typedef struct sip { uint64_t v0, v1, v2, v3; } sip;

/* Hot (every symbol name of every input is hashed once per load): the state must stay in
 * registers, so the rounds are inlined into each hash rather than called. */
#define SIP_INLINE static inline __attribute__((always_inline))

SIP_INLINE void sip_round(sip *s)
{
    s->v0 += s->v1; s->v1 = rotl(s->v1, 13); s->v1 ^= s->v0; s->v0 = rotl(s->v0, 32);
    s->v2 += s->v3; s->v3 = rotl(s->v3, 16); s->v3 ^= s->v2;
    s->v0 += s->v3; s->v3 = rotl(s->v3, 21); s->v3 ^= s->v0;
    s->v2 += s->v1; s->v1 = rotl(s->v1, 17); s->v1 ^= s->v2; s->v2 = rotl(s->v2, 32);
}

SIP_INLINE sip sip_init(void)
{
    if (!atomic_load_explicit(&seeded, memory_order_acquire))
        pthread_once(&seed_once, make_seed);
    return (sip){ seed_state[0], seed_state[1], seed_state[2], seed_state[3] };
}

SIP_INLINE void sip_word(sip *s, uint64_t m)
{
    s->v3 ^= m;
    sip_round(s);                   /* 1 compression round */
    s->v0 ^= m;
}

SIP_INLINE uint64_t sip_final(sip *s, uint64_t last)
{
    sip_word(s, last);
    s->v2 ^= 0xff;
    sip_round(s);                   /* 3 finalization rounds */
    sip_round(s);
    sip_round(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

static uint32_t hash_str(const char *str)
{
    sip s = sip_init();
    size_t len = strlen(str), i = 0;
    uint64_t m;
    for (; i + 8 <= len; i += 8) {
        memcpy(&m, str + i, 8);     /* little-endian words, as the reference */
        sip_word(&s, m);
    }
    m = (uint64_t)len << 56;
    const uint8_t *t = (const uint8_t *)str + i;
    switch (len - i) {              /* the last 0..7 bytes, without a loop */
    case 7: m |= (uint64_t)t[6] << 48; /* fall through */
    case 6: m |= (uint64_t)t[5] << 40; /* fall through */
    case 5: m |= (uint64_t)t[4] << 32; /* fall through */
    case 4: { uint32_t w; memcpy(&w, t, 4); m |= w; break; }
    case 3: m |= (uint64_t)t[2] << 16; /* fall through */
    case 2: m |= (uint64_t)t[1] << 8;  /* fall through */
    case 1: m |= t[0]; break;
    default: break;
    }
    return (uint32_t)sip_final(&s, m);
}

static uint64_t hash_key(uint64_t id, int64_t addend)
{
    sip s = sip_init();
    sip_word(&s, id);
    sip_word(&s, (uint64_t)addend);
    return sip_final(&s, (uint64_t)16 << 56);
}

uint32_t objrt_strmap_hash(const char *key)
{
    return hash_str(key);
}

uint32_t objrt_strmap_get(const objrt_strmap *m, const char *key)
{
    return m->cap ? objrt_strmap_get_hashed(m, key, hash_str(key)) : EMPTY;
}

uint32_t objrt_strmap_get_hashed(const objrt_strmap *m, const char *key, uint32_t h)
{
    if (!m->cap)
        return EMPTY;
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

int objrt_strmap_reserve(objrt_strmap *m, size_t n)
{
    if (m->n)
        return 0;
    size_t cap = 64;
    while (cap < (n + 1) * 2) {               /* the load bound strmap_put keeps */
        if (cap > SIZE_MAX / 32)
            return -1;
        cap *= 2;
    }
    if (cap <= m->cap)
        return 0;
    objrt_strmap g = { calloc(cap, sizeof(char *)), malloc(cap * 4), malloc(cap * 4), cap, 0 };
    if (!g.keys || !g.vals || !g.hashes) {
        objrt_strmap_free(&g);
        return -1;
    }
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
