/* bench/timing.h — what the benchmark programs that time repeats share: a
 * monotonic clock, and the best and median of a run's times. */
#ifndef TLBSIM_BENCH_TIMING_H
#define TLBSIM_BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int bench_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts t[0, n) (n >= 1): t[0] is then the best; returns the median. */
static inline double bench_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof t[0], bench_by_value);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

#endif
