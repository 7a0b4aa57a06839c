/* Allocation inputs (FUZZ_FORMAT: ALLOCTRACE_SNAPSHOT, ALLOCTRACE_RMM,
 * ALLOCTRACE_NATIVE or ALLOCTRACE_AUTO) and every allocator policy behind
 * them, as `tlbsim alloc` replays them: each event goes to all seven
 * policies in lockstep, a free to those whose allocation succeeded.
 *
 * Oracle: errors are one line naming the input; no policy's allocated
 * bytes ever exceed its capacity (a size that wrapped in a round-up would
 * pass as a small one); a failed alloc leaves the counts unchanged but for
 * the OOM. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tlbsim/alloctrace.h"
#include "tlbsim/vas.h"

#ifndef FUZZ_FORMAT
#error FUZZ_FORMAT names the allocation input format
#endif

#define CAPACITY (UINT64_C(1) << 30)
#define MAX_IDS 1024 /* events past this many live ids are read but not replayed */
#define FAILED UINT64_MAX

typedef struct policies {
  vas *heap[16];
  size_t n;
  uint64_t va[16][MAX_IDS];
} policies;

static void start(policies *p) {
  vas_config c = {.phys_capacity = CAPACITY};
  diag d;
  p->n = vas_policy_count();
  for (size_t i = 0; i < p->n; i++)
    if (!(p->heap[i] = vas_create(vas_policy_at(i), &c, NULL, &d))) abort();
}

static void apply(policies *p, const alloctrace_event *ev) {
  if (ev->id >= MAX_IDS || (ev->kind != AT_ALLOC && ev->kind != AT_FREE)) return;
  for (size_t i = 0; i < p->n; i++) {
    diag d;
    vas_stats before = *vas_get_stats(p->heap[i]);
    if (ev->kind == AT_FREE) {
      if (p->va[i][ev->id] != FAILED && vas_free(p->heap[i], p->va[i][ev->id], &d)) abort();
      continue;
    }
    int rc = vas_alloc(p->heap[i], ev->size, ev->align, ev->stream, &p->va[i][ev->id], &d);
    const vas_stats *after = vas_get_stats(p->heap[i]);
    if (after->reserved_bytes > CAPACITY || after->allocated_bytes > after->reserved_bytes) abort();
    if (rc == VAS_ERR) fuzz_check_diag(&d);
    if (rc != VAS_OK) {
      p->va[i][ev->id] = FAILED;
      if (rc == VAS_OOM && after->ooms != before.ooms + 1) abort();
    } else if (after->allocated_bytes < before.allocated_bytes + ev->size) {
      abort(); /* a block smaller than the request: a round-up wrapped */
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_file f;
  if (fuzz_file_open(&f, data, size)) abort();
  policies *p = calloc(1, sizeof *p);
  if (!p) abort();
  start(p);
  diag d;
  alloctrace *t = alloctrace_open(f.path, FUZZ_FORMAT, -1, &d);
  if (!t) {
    fuzz_check_diag(&d);
  } else {
    alloctrace_event ev;
    int got;
    while ((got = alloctrace_next(t, &ev, &d)) == 1) {
      if ((ev.kind == AT_ALLOC || ev.kind == AT_FREE) && ev.id >= alloctrace_id_limit(t)) abort();
      apply(p, &ev);
    }
    if (got < 0) fuzz_check_diag(&d);
    alloctrace_close(t);
  }
  for (size_t i = 0; i < p->n; i++) vas_destroy(p->heap[i]);
  free(p);
  fuzz_file_close(&f);
  return 0;
}
