/* sim/cli/alloc_live.h — the allocations alive at the end of a `tlbsim
 * alloc` replay, as tlbsim-gpu's churn-gather measures them on the GPU
 * (gpu/README.md, "An allocation history"): how many 2 MiB and 32 MiB VA
 * regions they touch, and their layout file.
 *
 * live_buf  one live allocation: where a policy put it, the bytes asked,
 *           the input's own name for it.
 */
#ifndef TLBSIM_CLI_ALLOC_LIVE_H
#define TLBSIM_CLI_ALLOC_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct live_buf {
  uint64_t va, size, name;
} live_buf;

/* What the GPU suite reports of a buffer set (its regions_2m, regions_32m
 * and va_span_bytes columns): distinct 2 MiB and 32 MiB VA regions any byte
 * of a buffer lies in, and lowest to highest byte. */
typedef struct live_stats {
  uint64_t buffers, va_span, regions_2m, regions_32m;
} live_stats;

/* Measures n buffers (sorts them by address; zero-byte ones touch no
 * region). */
void live_measure(live_buf *b, size_t n, live_stats *out);

/* CSV header and one policy's rows, b in allocation order:
 * source,case,index,id,size_bytes,offset_bytes with case the policy and
 * offsets from the first buffer, the schema of gpu/results/h200/layout_*. */
void live_layout_header(FILE *f);
void live_layout_rows(FILE *f, const char *source, const char *policy, const live_buf *b, size_t n);

#endif
