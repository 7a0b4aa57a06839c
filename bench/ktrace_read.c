/* bench_ktrace: how fast the kernel-trace reader delivers warp
 * instructions, with no model behind it (see bench/README.md, kernel.sh).
 *
 *   bench_ktrace [--repeats N] TRACE
 *
 * Reads TRACE (a kernelslist, .traceg or binary kernel trace) whole N times
 * (default 3) through ktrace_next and ktrace_next_tb, into one thread block
 * at a time, touching every address as a model would; prints warp
 * instructions, then the best and the median rate in M warp instructions/s.
 * A bad trace ends with its FILE:LINE error and exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"
#include "tlbsim/ktrace.h"

/* One pass: the warp instructions read, or -1 with d set. Every address
 * goes into *sink so the reads cannot be dropped. */
static long long read_all(const char *path, ktrace_tb *tb, uint64_t *sink, diag *d) {
  ktrace_reader *r = ktrace_open(path, d);
  if (!r) return -1;
  long long n = 0;
  ktrace_item it;
  int k;
  while ((k = ktrace_next(r, &it, d)) == 1)
    while ((k = ktrace_next_tb(r, tb, d)) == 1) {
      n += tb->ninst;
      for (uint32_t a = 0; a < tb->addr_at[tb->ninst]; a++) *sink ^= tb->addr[a];
    }
  ktrace_close(r);
  return k < 0 ? -1 : n;
}

int main(int argc, char **argv) {
  int repeats = 3, i = 1;
  if (argc == 4 && !strcmp(argv[1], "--repeats") && (repeats = atoi(argv[2])) > 0 && repeats <= 100) i = 3;
  if (i != argc - 1 || repeats <= 0 || repeats > 100) {
    fprintf(stderr, "usage: bench_ktrace [--repeats 1-100] TRACE\n");
    return 2;
  }
  ktrace_tb *tb = ktrace_tb_new();
  double t[100];
  uint64_t sink = 0;
  long long n = 0;
  diag d;
  for (int k = 0; tb && k < repeats; k++) {
    double t0 = bench_now();
    if ((n = read_all(argv[i], tb, &sink, &d)) < 0) {
      fprintf(stderr, "%s\n", d.msg);
      ktrace_tb_free(tb);
      return 1;
    }
    t[k] = bench_now() - t0;
  }
  if (!tb) return 1;
  ktrace_tb_free(tb);
  double median = bench_median(t, repeats);
  printf("%lld %.2f %.2f %llx\n", n, n / t[0] / 1e6, n / median / 1e6, (unsigned long long)(sink & 1));
  return 0;
}
