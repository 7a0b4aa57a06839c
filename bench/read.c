/* bench_read: how fast tlbsim's trace readers deliver accesses, with no
 * simulation behind them (see bench/README.md, binary.sh).
 *
 *   bench_read [--repeats N] [--trace-format F] [--jobs J] TRACE
 *
 * Reads TRACE whole N times (default 5) through trace_take_block, as
 * `tlbsim run` does, with J jobs as `tlbsim run --jobs J` has (default 1:
 * everything in this thread; 2 or more: xz's decode threads and the fill
 * thread), and prints one line: accesses, then the best and the median
 * rate in M accesses/s. A bad trace ends with its FILE:LINE error and
 * exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"
#include "tlbsim/trace.h"

/* One pass: the accesses read, or -1 with d set. The OR of every address
 * is kept so the compiler cannot drop the reads. */
static long long read_all(const char *path, trace_format fmt, unsigned jobs, trace_block **bp, uint64_t *sink,
                          diag *d) {
  trace_reader *r = trace_open_jobs(path, fmt, jobs, d);
  if (!r) return -1;
  long long n = 0;
  int k;
  while ((k = trace_take_block(r, bp, d)) == 1) {
    const trace_block *b = *bp;
    n += (long long)b->n;
    *sink |= b->last_byte_or;
  }
  trace_close(r);
  return k < 0 ? -1 : n;
}

int main(int argc, char **argv) {
  int repeats = 5, i = 1, jobs = 1;
  trace_format fmt = TRACE_AUTO;
  for (; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
    if (!strcmp(argv[i], "--repeats") && (repeats = atoi(argv[i + 1])) > 0 && repeats <= 100) continue;
    if (!strcmp(argv[i], "--trace-format") && !trace_format_parse(argv[i + 1], &fmt)) continue;
    if (!strcmp(argv[i], "--jobs") && (jobs = atoi(argv[i + 1])) > 0 && jobs <= 1024) continue;
    break;
  }
  if (i != argc - 1) {
    fprintf(stderr, "usage: bench_read [--repeats 1-100] [--trace-format F] [--jobs 1-1024] TRACE\n");
    return 2;
  }
  trace_block *b = malloc(sizeof *b);
  double t[100];
  uint64_t sink = 0;
  long long n = 0;
  diag d;
  for (int k = 0; b && k < repeats; k++) {
    double t0 = bench_now();
    if ((n = read_all(argv[i], fmt, (unsigned)jobs, &b, &sink, &d)) < 0) {
      fprintf(stderr, "%s\n", d.msg);
      free(b);
      return 1;
    }
    t[k] = bench_now() - t0;
  }
  free(b);
  if (!b) return 1;
  double median = bench_median(t, repeats);
  printf("%lld %.1f %.1f %llx\n", n, n / t[0] / 1e6, n / median / 1e6, (unsigned long long)(sink & 1));
  return 0;
}
