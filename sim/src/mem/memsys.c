/* memsys.c — the memory below the MMU (see tlbsim/memsys.h). */
#include "tlbsim/memsys.h"

#include <stddef.h>
#include <stdlib.h>

/* [latency]: what the constant model's requests cost. */
static const cfg_key latency_table[] = {
    {"data_cycles", CFG_KEY_U32, offsetof(memsys_config, data_cycles), 0, 0, NUM_U32_MAX, 0, 0, 0, "cycles", "0",
     "the data access itself, added to every access's translation"},
    {"walk_ref_cycles", CFG_KEY_U32, offsetof(memsys_config, table_cycles), 0, 0, NUM_U32_MAX, 0, 0, 0, "cycles", "0",
     "each page-table read of a walk that no cache serves"},
};
static const cfg_keys latency_keys = {"latency", latency_table, sizeof latency_table / sizeof latency_table[0]};

const cfg_keys *memsys_config_keys(void) { return &latency_keys; }

int memsys_config_read(cfg *c, memsys_config *out, diag *d) {
  *out = (memsys_config){.model = MEMSYS_CONSTANT};
  return cfg_read_keys(c, "latency", &latency_keys, out, d);
}

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
