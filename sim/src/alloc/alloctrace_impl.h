/* alloctrace_impl.h — what the allocation-trace sources share (internal).
 *
 * at_source   one input format: produce the next event, release its state.
 * struct alloctrace  the reader: info, the name → dense id table, the
 *             stream table, the running recorded reserved bytes. Sources
 *             report through the at_* helpers so that every format counts
 *             ground truth and pairs frees the same way.
 */
#ifndef TLBSIM_ALLOCTRACE_IMPL_H
#define TLBSIM_ALLOCTRACE_IMPL_H

#include "tlbsim/alloctrace.h"

#define AT_MAX_STREAMS 256
#define AT_PATH_MAX 1024

typedef struct at_source {
  int (*next)(alloctrace *t, alloctrace_event *ev, diag *d);
  void (*close)(alloctrace *t);
} at_source;

typedef struct at_slot {
  uint64_t name, id;
  bool used;
} at_slot;

struct alloctrace {
  const at_source *src;
  void *impl;
  alloctrace_info info;
  char path[AT_PATH_MAX];
  /* live names → ids: open addressing, linear probing, backward-shift delete */
  at_slot *slots;
  size_t cap, live;
  uint64_t *spare_ids; /* freed ids, reused last-in first-out */
  uint64_t *names;     /* by id: the name it was last given (as many as spare_ids) */
  size_t nspare, spare_cap;
  uint64_t id_limit;
  uint64_t streams[AT_MAX_STREAMS];
  unsigned nstreams;
  uint64_t reserved; /* recorded, running */
  unsigned jobs;     /* a native trace's decode threads (trace_open_jobs) */
  bool marks;        /* hand out AT_MARK and AT_MEMINFO too (alloctrace_want_marks) */
};

/* Opens the sources; each fills t->src and t->impl. */
int at_open_snapshot(alloctrace *t, const char *text, size_t len, int device, diag *d);
int at_open_rmm(alloctrace *t, void *gz, diag *d);
int at_open_native(alloctrace *t, diag *d);
int at_open_synth(alloctrace *t, const alloctrace_synth *s, diag *d);

/* A new live name: its id in *id. -1 (with d) if the name is live already
 * or host memory ran out. */
int at_name_alloc(alloctrace *t, uint64_t name, uint64_t *id, diag *d);
/* 1 with *id: the name was live and is now free; 0: not live. */
int at_name_free(alloctrace *t, uint64_t name, uint64_t *id);
/* Dense index of a stream; -1 when there are more than AT_MAX_STREAMS. */
int at_stream(alloctrace *t, uint64_t raw, uint32_t *out);
/* Ground truth: the input's allocator mapped (or unmapped) size bytes. */
void at_segment(alloctrace *t, uint64_t size, bool release);

#endif
