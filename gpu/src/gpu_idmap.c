/* gpu_idmap.c — 64-bit keys to values (gpu_idmap.h). */
#include "gpu_idmap.h"

#include <stdlib.h>

static size_t home(uint64_t key, size_t cap) { return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1); }

size_t gpu_idmap_find(const gpu_idmap *m, uint64_t key) {
  if (!m->cap) return SIZE_MAX;
  for (size_t i = home(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (!m->used[i]) return SIZE_MAX;
    if (m->key[i] == key) return i;
  }
}

static void insert(gpu_idmap *m, uint64_t key, uint64_t val) {
  size_t i = home(key, m->cap);
  while (m->used[i]) i = (i + 1) & (m->cap - 1);
  m->used[i] = 1, m->key[i] = key, m->val[i] = val;
  m->n++;
}

static int grow(gpu_idmap *m) {
  gpu_idmap g = {.cap = m->cap ? m->cap * 2 : 1024};
  g.key = malloc(g.cap * sizeof *g.key);
  g.val = malloc(g.cap * sizeof *g.val);
  g.used = calloc(g.cap, 1);
  if (!g.key || !g.val || !g.used) {
    gpu_idmap_free(&g);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++)
    if (m->used[i]) insert(&g, m->key[i], m->val[i]);
  free(m->key), free(m->val), free(m->used); /* the old arrays; g's replace them */
  m->key = g.key, m->val = g.val, m->used = g.used, m->cap = g.cap, m->n = g.n;
  return 0;
}

int gpu_idmap_put(gpu_idmap *m, uint64_t key, uint64_t val) {
  size_t at = gpu_idmap_find(m, key);
  if (at != SIZE_MAX) {
    m->val[at] = val;
    return 0;
  }
  if (2 * (m->n + 1) > m->cap && grow(m)) return -1;
  insert(m, key, val);
  return 0;
}

void gpu_idmap_erase(gpu_idmap *m, size_t i) {
  m->used[i] = 0;
  m->n--;
  for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
    size_t h = home(m->key[j], m->cap);
    /* Move j back into the hole at i unless its home lies in (i, j]. */
    if (((j - h) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
      m->used[i] = 1, m->key[i] = m->key[j], m->val[i] = m->val[j];
      m->used[j] = 0;
      i = j;
    }
  }
}

void gpu_idmap_free(gpu_idmap *m) {
  free(m->key), free(m->val), free(m->used);
  *m = (gpu_idmap){0};
}
