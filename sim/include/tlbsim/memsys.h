/* tlbsim/memsys.h — the memory below the MMU: what a data access or a
 * page-table read costs once it leaves the translation hardware.
 *
 * memsys_request  one request: its physical address and size, whether it
 *                 is the data of an access or an entry a walk reads, and
 *                 the agent (CPU core, GPU SM) that sent it. Page-table
 *                 reads and data loads are the same kind of thing here, so
 *                 a cache or DRAM model placed behind this interface sees
 *                 both, in the order they happen.
 * memsys_config   plain data: the model and its parameters. The one model
 *                 today is `constant` ([latency] data_cycles and
 *                 walk_ref_cycles): every data access costs data_cycles,
 *                 every page-table read that reaches memory walk_ref_cycles,
 *                 whatever its address and whatever came before. That is
 *                 the latency model every preset's numbers were fitted
 *                 with; caches, HBM bandwidth and migration plug in as
 *                 further models behind the same calls.
 * memsys          one per system (hw/system.h), shared by its agents' MMUs
 *                 and its walker; it owns whatever state its model keeps
 *                 (none for `constant`).
 *
 * memsys_access is functional: it returns the request's latency and
 * updates the model's state. Timing (queues, bandwidth) is the timing
 * engine's (hw/engine.h), which replays a translation's steps as requests.
 * memsys_fixed says whether every request of a kind costs the same: fast
 * paths (a run of hits on one page, counted at once) may then count the
 * cost without asking, which keeps them exact.
 */
#ifndef TLBSIM_MEMSYS_H
#define TLBSIM_MEMSYS_H

#include "tlbsim/config.h"

typedef enum { MEMSYS_DATA, MEMSYS_TABLE, MEMSYS_NKINDS } memsys_kind;

typedef struct memsys_request {
  uint64_t pa;
  uint32_t bytes;
  memsys_kind kind;
  uint32_t agent;
} memsys_request;

typedef enum { MEMSYS_CONSTANT } memsys_model;

typedef struct memsys_config {
  memsys_model model;
  uint32_t data_cycles;  /* [latency] data_cycles: the access itself once translated */
  uint32_t table_cycles; /* [latency] walk_ref_cycles: one page-table entry read from memory */
} memsys_config;

/* Reads [latency] data_cycles and walk_ref_cycles into *out. */
int memsys_config_read(cfg *c, memsys_config *out, diag *d);
const cfg_keys *memsys_config_keys(void);

typedef struct memsys memsys;

memsys *memsys_create(const memsys_config *c, diag *d);
void memsys_destroy(memsys *m);
const memsys_config *memsys_get_config(const memsys *m);
/* The latency of one request, in cycles of the agent that sent it. */
uint32_t memsys_access(memsys *m, const memsys_request *r);
/* Whether every request of kind k costs the same; *cycles gets it. */
bool memsys_fixed(const memsys *m, memsys_kind k, uint32_t *cycles);

#endif
