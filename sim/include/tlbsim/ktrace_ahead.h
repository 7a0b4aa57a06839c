/* tlbsim/ktrace_ahead.h — a kernel trace's thread blocks read on a thread
 * of their own, ahead of the model that simulates them: reading (decoding
 * text or the binary form, growing the blocks' arrays) overlaps simulating
 * where two cores exist.
 *
 * ktrace_ahead  one ktrace_reader's blocks for the current kernel. Between
 *               ktrace_ahead_begin and ktrace_ahead_end a thread calls
 *               ktrace_next_tb on the reader into a ring of
 *               KTRACE_AHEAD_SLOTS blocks, each with what it returned (1, 0
 *               or -1 and its diag); ktrace_ahead_next_tb hands them out in
 *               that order, so the caller sees exactly the blocks, errors
 *               (the same "FILE:LINE: ...") and end it would see calling
 *               ktrace_next_tb itself. A block is handed over by exchanging
 *               the ktrace_tb's contents (its array pointers and
 *               capacities) with the caller's, never by copying its arrays:
 *               the ring refills the caller's old arrays. Memory: the ring's
 *               blocks, each as large as the largest block read into it.
 *
 * The opcode table tb->ops points to stays valid though the thread reads
 * further: the reader's table is allocated whole at open and only appended
 * to (an id a block uses is written before the block is handed over).
 * Without a thread (jobs 1, one core, the browser build, or none could be
 * started) next_tb is ktrace_next_tb in the caller's call.
 */
#ifndef TLBSIM_KTRACE_AHEAD_H
#define TLBSIM_KTRACE_AHEAD_H

#include "tlbsim/ktrace.h"

#define KTRACE_AHEAD_SLOTS 16

typedef struct ktrace_ahead ktrace_ahead;

/* Reads r's blocks ahead when jobs (0: the cores available, as a trace's
 * fill thread decides; 1: never; 2 or more: always) asks for a thread. r
 * stays the caller's to close, after ktrace_ahead_free. NULL when out of
 * memory. */
ktrace_ahead *ktrace_ahead_new(ktrace_reader *r, unsigned jobs);
/* After ktrace_next gave r's next kernel: starts reading its blocks. From
 * now until ktrace_ahead_end only the thread touches r. */
void ktrace_ahead_begin(ktrace_ahead *a);
/* The kernel's next block into tb (its arrays exchanged for a filled
 * block's), as ktrace_next_tb: 1, 0 after its last, -1 with d set. */
int ktrace_ahead_next_tb(ktrace_ahead *a, ktrace_tb *tb, diag *d);
/* Stops and joins the thread (it ends at its next block; blocks read but
 * not handed out are dropped, as ktrace_next skips a kernel's unread
 * blocks): r is the caller's again. Without a running thread, nothing. */
void ktrace_ahead_end(ktrace_ahead *a);
/* Ends the thread and frees a and its ring; NULL is fine. */
void ktrace_ahead_free(ktrace_ahead *a);

#endif
