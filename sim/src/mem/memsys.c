/* memsys.c — the memory below the MMU (see tlbsim/memsys.h). */
#include "tlbsim/memsys.h"

#include <stdlib.h>

struct memsys {
  memsys_config cfg;
  uint32_t cycles[MEMSYS_NKINDS]; /* the constant model's latency by kind */
};

memsys *memsys_create(const memsys_config *c, diag *d) {
  memsys *m = calloc(1, sizeof *m);
  if (!m) return diag_set(d, NULL, 0, "out of memory"), NULL;
  m->cfg = *c;
  m->cycles[MEMSYS_DATA] = c->data_cycles;
  m->cycles[MEMSYS_TABLE] = c->table_cycles;
  return m;
}

void memsys_destroy(memsys *m) { free(m); }

const memsys_config *memsys_get_config(const memsys *m) { return &m->cfg; }

uint32_t memsys_access(memsys *m, const memsys_request *r) { return m->cycles[r->kind]; }

bool memsys_fixed(const memsys *m, memsys_kind k, uint32_t *cycles) {
  *cycles = m->cycles[k];
  return m->cfg.model == MEMSYS_CONSTANT;
}
