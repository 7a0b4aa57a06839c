/* gpu_idmap.h — a map from 64-bit keys to 64-bit values with deletion:
 * the trace replay's allocation IDs to buffer slots (gpu_trace.c), the
 * capture's live addresses, handles and pools to their numbers (cap_log.c).
 * Open addressing with linear probing; deletion shifts the run back, so no
 * tombstones accumulate over millions of insertions and deletions. A zeroed
 * gpu_idmap is an empty one. Plain C.
 */
#ifndef TLBSIM_GPU_IDMAP_H
#define TLBSIM_GPU_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_idmap {
  uint64_t *key, *val;
  unsigned char *used;
  size_t cap, n; /* cap a power of two */
} gpu_idmap;

/* The slot holding key, or SIZE_MAX; its value is m->val[slot]. */
size_t gpu_idmap_find(const gpu_idmap *m, uint64_t key);
/* Sets key's value (a new key is inserted): 0, or -1 when memory ran out. */
int gpu_idmap_put(gpu_idmap *m, uint64_t key, uint64_t val);
/* Removes the entry in slot i (from gpu_idmap_find). */
void gpu_idmap_erase(gpu_idmap *m, size_t i);
void gpu_idmap_free(gpu_idmap *m);

#ifdef __cplusplus
}
#endif

#endif
