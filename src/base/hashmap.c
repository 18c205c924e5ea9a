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
 * cut are around it: the keyed state is made once, a name is hashed at most once per link
 * (its objrt_strkey carries length and hash to every map; the global table's memo finds a
 * name seen before without hashing it again), and a probe compares the stored hash and
 * length before it reads a name's bytes. */
#include "base/hashmap.h"

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

#define load64 objrt_load64
#define load32 objrt_load32

/* SipHash's last block: the len % 8 bytes after the last whole word, little-endian, with
 * len in the top byte. The bytes are read with loads that stay inside s[0, len): one
 * overlapping 8-byte load when the name has a whole word, else two 4-byte or three 1-byte
 * loads that may overlap (no per-byte loop or jump table). */
static inline uint64_t last_block(const char *s, size_t len)
{
    uint64_t m = (uint64_t)len << 56;
    size_t rem = len & 7;
    if (!rem)
        return m;
    if (len >= 8)
        return m | load64(s + len - 8) >> (64 - 8 * rem);
    if (rem >= 4)
        return m | load32(s) | (uint64_t)load32(s + rem - 4) << (8 * (rem - 4));
    const uint8_t *t = (const uint8_t *)s;
    return m | t[0] | (uint64_t)t[rem / 2] << (8 * (rem / 2)) | (uint64_t)t[rem - 1] << (8 * (rem - 1));
}

static uint64_t hash_bytes(const char *str, size_t len)
{
#ifdef OBJRT_BENCH_ABLATE
    /* bench/link's ablated build: what a load costs with an unkeyed hash, one multiply a
     * word, which names chosen to collide defeat (30-robustness builds 100k such names) */
    uint64_t h = len * 0x9e3779b97f4a7c15ull;
    for (const char *p = str, *e = str + (len & ~(size_t)7); p < e; p += 8)
        h = (h ^ load64(p)) * 0xff51afd7ed558ccdull, h ^= h >> 29;
    h = (h ^ last_block(str, len)) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
#endif
    sip s = sip_init();
    const char *end = str + (len & ~(size_t)7);
    for (const char *p = str; p < end; p += 8)
        sip_word(&s, load64(p));    /* little-endian words, as the reference */
    return sip_final(&s, last_block(str, len));
}

static uint64_t hash_key(uint64_t id, int64_t addend)
{
    sip s = sip_init();
    sip_word(&s, id);
    sip_word(&s, (uint64_t)addend);
    return sip_final(&s, (uint64_t)16 << 56);
}

objrt_strkey objrt_strkey_len(const char *s, size_t len)
{
    return (objrt_strkey){ s, len, hash_bytes(s, len) };
}

objrt_strkey objrt_strkey_of(const char *s)
{
    return objrt_strkey_len(s, strlen(s));
}

#define NO_SLOT UINT64_MAX

static inline uint64_t slot_of(uint64_t hash, uint32_t ent)
{
    return (hash & 0xffffffff00000000ull) | ent;
}

/* Entry e of an array whose entries start with their key, stride bytes apart: a strmap's
 * own entries, or the caller's for a strindex. */
static inline const objrt_strkey *key_at(const void *ents, size_t stride, uint32_t e)
{
    return (const objrt_strkey *)((const char *)ents + (size_t)e * stride);
}

/* The slot holding key, or the empty slot where it would go. */
static inline size_t probe_keys(const uint64_t *slots, size_t cap, const void *ents,
                                size_t stride, const objrt_strkey *k)
{
    size_t mask = cap - 1;
    uint64_t tag = k->hash & 0xffffffff00000000ull;
    for (size_t i = k->hash & mask;; i = (i + 1) & mask) {
        uint64_t s = slots[i];
        if (s == NO_SLOT)
            return i;
        if ((s & 0xffffffff00000000ull) == tag) {
            const objrt_strkey *e = key_at(ents, stride, (uint32_t)s);
            if (e->hash == k->hash && e->len == k->len && objrt_same_bytes(e->s, k->s, k->len))
                return i;
        }
    }
}

_Static_assert(offsetof(objrt_strent, key) == 0, "a strmap's entries start with their key");

static inline size_t probe(const objrt_strmap *m, const objrt_strkey *k)
{
    return probe_keys(m->slots, m->cap, m->ents, sizeof *m->ents, k);
}

/* *slots becomes a table of cap slots (a power of two) for the n entries at ents, which
 * stay; on failure (-1) nothing changes. */
static int rehash_slots(uint64_t **slots, size_t *capp, const void *ents, size_t stride,
                        size_t n, size_t cap)
{
    uint64_t *v = malloc(cap * sizeof *v);
    if (!v)
        return -1;
    memset(v, 0xff, cap * sizeof *v);
    for (size_t e = 0; e < n; e++) {
        uint64_t h = key_at(ents, stride, (uint32_t)e)->hash;
        size_t i = h & (cap - 1);
        while (v[i] != NO_SLOT)
            i = (i + 1) & (cap - 1);
        v[i] = slot_of(h, (uint32_t)e);
    }
    free(*slots);
    *slots = v;
    *capp = cap;
    return 0;
}

/* Slots for n keys at once, at the load bound the inserts keep (at most half full); 0 when
 * n is too large. */
static size_t slot_count(size_t n)
{
    size_t cap = 64;
    while (cap < (n + 1) * 2) {
        if (cap > SIZE_MAX / 32)
            return 0;
        cap *= 2;
    }
    return cap;
}

uint32_t objrt_strmap_find(const objrt_strmap *m, const objrt_strkey *key)
{
    if (!m->cap)
        return EMPTY;
    uint64_t s = m->slots[probe(m, key)];
    return s == NO_SLOT ? EMPTY : m->ents[(uint32_t)s].val;
}

uint32_t objrt_strmap_get(const objrt_strmap *m, const char *key)
{
    if (!m->cap)
        return EMPTY;
    objrt_strkey k = objrt_strkey_of(key);
    return objrt_strmap_find(m, &k);
}

static int strmap_rehash(objrt_strmap *m, size_t cap)
{
    return rehash_slots(&m->slots, &m->cap, m->ents, sizeof *m->ents, m->n, cap);
}

static int strmap_reserve_ents(objrt_strmap *m, size_t n)
{
    if (n <= m->capents)
        return 0;
    size_t cap = m->capents ? m->capents : 32;
    while (cap < n)
        cap *= 2;
    objrt_strent *v = realloc(m->ents, cap * sizeof *v);
    if (!v)
        return -1;
    m->ents = v;
    m->capents = cap;
    return 0;
}

/* Room for one more key: the slots at most half full, the entry indices below NO_SLOT's. */
static int strmap_grow(objrt_strmap *m)
{
    if (m->n >= UINT32_MAX - 1)
        return -1;
    if ((m->n + 1) * 2 > m->cap && strmap_rehash(m, m->cap ? m->cap * 2 : 64))
        return -1;
    return strmap_reserve_ents(m, m->n + 1);
}

static inline int strmap_room(objrt_strmap *m)
{
    return (m->n + 1) * 2 > m->cap || m->n >= m->capents ? strmap_grow(m) : 0;
}

int objrt_strmap_reserve(objrt_strmap *m, size_t n)
{
    if (m->n)
        return 0;
    size_t cap = slot_count(n);
    if (!cap || (cap > m->cap && strmap_rehash(m, cap)))
        return -1;
    return strmap_reserve_ents(m, n);
}

static uint32_t strmap_add(objrt_strmap *m, size_t i, const objrt_strkey *key, uint32_t val)
{
    m->ents[m->n] = (objrt_strent){ *key, val };
    m->slots[i] = slot_of(key->hash, (uint32_t)m->n++);
    return val;
}

int objrt_strmap_put_key(objrt_strmap *m, const objrt_strkey *key, uint32_t val)
{
    if (strmap_room(m))
        return -1;
    size_t i = probe(m, key);
    if (m->slots[i] == NO_SLOT)
        strmap_add(m, i, key, val);
    else
        m->ents[(uint32_t)m->slots[i]].val = val;
    return 0;
}

int objrt_strmap_add_new(objrt_strmap *m, const objrt_strkey *key, uint32_t val)
{
    if (strmap_room(m))
        return -1;
    size_t mask = m->cap - 1, i = key->hash & mask;
    while (m->slots[i] != NO_SLOT)          /* no key compared: the caller knows it is new */
        i = (i + 1) & mask;
    strmap_add(m, i, key, val);
    return 0;
}

int objrt_strmap_put(objrt_strmap *m, const char *key, uint32_t val)
{
    objrt_strkey k = objrt_strkey_of(key);
    return objrt_strmap_put_key(m, &k, val);
}

uint32_t objrt_strmap_intern(objrt_strmap *m, const objrt_strkey *key, uint32_t val)
{
    if (strmap_room(m))
        return EMPTY;
    size_t i = probe(m, key);
    return m->slots[i] == NO_SLOT ? strmap_add(m, i, key, val) : m->ents[(uint32_t)m->slots[i]].val;
}

void objrt_strmap_free(objrt_strmap *m)
{
    free(m->slots);
    free(m->ents);
    memset(m, 0, sizeof *m);
}

/* ---- strindex: the keys are the caller's ---- */

uint32_t objrt_strindex_intern(objrt_strindex *m, const void *ents, size_t stride,
                               const objrt_strkey *key, uint32_t next)
{
    if (next != m->n || m->n >= UINT32_MAX - 1 ||
        ((m->n + 1) * 2 > m->cap &&
         rehash_slots(&m->slots, &m->cap, ents, stride, m->n, m->cap ? m->cap * 2 : 64)))
        return EMPTY;                       /* next out of order: a caller's bug, refused */
    size_t i = probe_keys(m->slots, m->cap, ents, stride, key);
    if (m->slots[i] != NO_SLOT)
        return (uint32_t)m->slots[i];
    m->slots[i] = slot_of(key->hash, next);
    m->n++;
    return next;
}

int objrt_strindex_reserve(objrt_strindex *m, size_t n)
{
    if (m->n)
        return 0;
    size_t cap = slot_count(n);
    return !cap ? -1 : cap > m->cap ? rehash_slots(&m->slots, &m->cap, NULL, 0, 0, cap) : 0;
}

void objrt_strindex_free(objrt_strindex *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

int objrt_strmemo_init(objrt_strmemo *m, size_t n)
{
    if (m->slots)
        return 0;
    unsigned bits = 6;
    while (bits < 30 && ((size_t)1 << bits) < n * 2)
        bits++;
    if (!(m->slots = malloc(sizeof *m->slots << bits)))
        return -1;
    memset(m->slots, 0xff, sizeof *m->slots << bits);
    m->shift = 64 - bits;
    return 0;
}

void objrt_strmemo_free(objrt_strmemo *m)
{
    free(m->slots);
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
