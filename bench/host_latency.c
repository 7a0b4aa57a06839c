/* bench_host_latency: the host's own time per dependent load, at working
 * sets from its L2 out to DRAM, so that a kernel-model speed measured on a
 * host can be read beside what that host's memory costs (bench/README.md,
 * round 11: two hosts of one kind ran the same model 2x apart; round 12
 * runs it before and after each sweep).
 *
 *   bench_host_latency
 *
 * For each size, one random cycle through the buffer's 64-byte lines
 * (Sattolo's shuffle, seed 1: every run walks the same cycle), walked
 * 2 M steps after one warming lap's worth (at most 2 M); prints the size
 * and ns per load, the best of three walks. Huge pages are the host's
 * default for malloc (no madvise). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"
#include "tlbsim/base.h"

#define LINE_WORDS 8 /* uint64_t a 64-byte line */
#define STEPS (2u << 20)

/* A walk of `steps` loads from line 0; returns where it ended (kept so
 * the loads are not dropped). */
static uint64_t walk(const uint64_t *next, uint64_t steps) {
  uint64_t at = 0;
  for (uint64_t k = 0; k < steps; k++) at = next[at * LINE_WORDS];
  return at;
}

static int measure(size_t mib, uint64_t *sink) {
  size_t lines = (mib << 20) / 64;
  uint64_t *next = malloc(lines * 64), *order = malloc(lines * sizeof *order);
  if (!next || !order) {
    free(next);
    free(order);
    fprintf(stderr, "bench_host_latency: out of memory for %zu MiB\n", mib);
    return -1;
  }
  rng r;
  rng_seed(&r, 1);
  for (size_t i = 0; i < lines; i++) order[i] = i;
  for (size_t i = lines - 1; i > 0; i--) { /* Sattolo: one cycle through every line */
    size_t j = (size_t)rng_below(&r, i), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < lines; i++) next[order[i] * LINE_WORDS] = order[(i + 1) % lines];
  free(order);
  *sink += walk(next, lines < STEPS ? lines : STEPS);
  double best = 0;
  for (int k = 0; k < 3; k++) {
    double t0 = bench_now();
    *sink += walk(next, STEPS);
    double ns = (bench_now() - t0) * 1e9 / STEPS;
    if (!k || ns < best) best = ns;
  }
  printf("%6zu MiB %8.2f ns/load\n", mib, best);
  free(next);
  return 0;
}

int main(void) {
  static const size_t sizes[] = {1, 8, 64, 256};
  uint64_t sink = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (measure(sizes[i], &sink)) return 1;
  return sink == UINT64_MAX; /* never: the walks' ends are line numbers */
}
