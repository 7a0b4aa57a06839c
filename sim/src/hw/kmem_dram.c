/* kmem_dram.c — DRAM banks with one open row each (tlbsim/kmem.h). A
 * row's bank is a hash of its number, as memory controllers hash
 * addresses over channels and banks. */
#include "tlbsim/kmem.h"

#include <stdlib.h>

struct kmem_dram {
  uint32_t banks;
  unsigned row_shift;
  uint64_t *open; /* each bank's open row + 1 (0: none) */
};

kmem_dram *kmem_dram_create(uint32_t banks, unsigned row_shift, diag *d) {
  kmem_dram *m = banks ? calloc(1, sizeof *m) : NULL;
  if (m && !(m->open = calloc(banks, sizeof *m->open))) {
    free(m);
    m = NULL;
  }
  if (!m) {
    diag_set(d, NULL, 0, banks ? "out of memory for %u DRAM banks" : "DRAM needs at least one bank (%u)", banks);
    return NULL;
  }
  m->banks = banks;
  m->row_shift = row_shift;
  return m;
}

void kmem_dram_destroy(kmem_dram *m) {
  if (!m) return;
  free(m->open);
  free(m);
}

bool kmem_dram_access(kmem_dram *m, uint64_t pa) {
  uint64_t row = pa >> m->row_shift, h = row * 0xD6E8FEB86659FD93ull;
  uint64_t *b = &m->open[(h ^ (h >> 32)) % m->banks];
  if (*b == row + 1) return true;
  *b = row + 1;
  return false;
}
