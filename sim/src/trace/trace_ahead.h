/* trace_ahead.h — a trace reader's blocks filled on a thread of their own,
 * ahead of the consumer: parsing overlaps simulating where two cores exist.
 * Private to the trace module; one of the module's portability seams
 * (trace.cmake): the native build fills on a thread (trace_ahead.c), the
 * browser build, which has no threads, never starts one
 * (trace_ahead_none.c) and the reader fills in the caller's calls.
 *
 * trace_ahead  a ring of TRACE_AHEAD_SLOTS blocks and the thread filling
 *              them in order with the fill function, each with what fill
 *              returned (1, 0 or -1 and its diag) and the input bytes read
 *              by then. take hands them out in that order, so the consumer
 *              sees exactly the blocks, errors and end it would see filling
 *              them itself. After a 0 or -1 the thread has ended and take
 *              repeats that result.
 */
#ifndef TLBSIM_TRACE_AHEAD_H
#define TLBSIM_TRACE_AHEAD_H

#include "tlbsim/trace.h"

#define TRACE_AHEAD_SLOTS 4

/* Fills b as trace_read_block does (1, 0, or -1 with d) and sets *bytes to
 * the input's bytes read so far. */
typedef int trace_fill_fn(void *ctx, trace_block *b, diag *d, uint64_t *bytes);

typedef struct trace_ahead trace_ahead;

/* Whether this build and machine run a fill thread for `jobs` (0: the
 * cores available; 1: never). */
bool trace_ahead_wanted(unsigned jobs);
/* Starts the thread calling fill(ctx, ...): from now on only it touches
 * what fill reads. NULL when there is no thread (out of memory, or none
 * could be started): the caller fills in its own calls. */
trace_ahead *trace_ahead_start(trace_fill_fn *fill, void *ctx);
/* The next block into *b, as fill returned it; *bytes as fill set it. With
 * swap, *b (a block of malloc(sizeof (trace_block))) is exchanged for the
 * filled one instead of copied into: the ring fills it later. */
int trace_ahead_take(trace_ahead *a, trace_block **b, bool swap, diag *d, uint64_t *bytes);
/* Stops and joins the thread (it ends at its next block boundary) and
 * frees a; NULL is fine. */
void trace_ahead_stop(trace_ahead *a);

#endif
