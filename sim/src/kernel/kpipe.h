/* kpipe.h — the kernel model's memory path on a thread of its own: the
 * warps issue on the model's thread, their memory instructions go through
 * the path (gdev.h) on another, in the order they issued, so each gets
 * the time it would get in one thread and the model waits only for a
 * load whose data it needs. Private to the kernel model.
 *
 * kpipe  a ring of requests (gdev_req and their lines, copied in: the
 *        block that gave them may be gone before they are served) from the
 *        model to the path's thread, and a ring of their times back. The
 *        model posts a request and goes on; it asks for a load's time
 *        before its events reach the earliest it can be (its issue plus
 *        gdev_lead), so the load's event joins the engine before any
 *        event it could come ahead of, and every event comes out as it
 *        would in one thread (the engine's order is by time and a hash,
 *        not by when events were scheduled: engine.h). Without a pipe
 *        (asked for no thread, the browser build, or none could start)
 *        the model calls the path itself.
 *
 * Errors: the path stops at its first failing request; the requests
 * before it are served, any later one reports that error (kpipe_done,
 * kpipe_drain, kpipe_post once the model has seen it), so the model
 * reports what one thread would: the first error in the order of the
 * model's own steps, once it drains the pipe on an error of its own.
 *
 * Waiting: each side spins a little, then yields its core, then sleeps;
 * the model wakes a sleeping path thread when it posts, the path wakes a
 * model waiting for a time once that time is ready.
 */
#ifndef TLBSIM_KPIPE_H
#define TLBSIM_KPIPE_H

#include "tlbsim/gdev.h"

/* Requests posted and not yet taken back at most: a load's time must be
 * asked for before this many later requests are posted (its slot is
 * reused). */
#define KPIPE_REQUESTS 4096u

typedef struct kpipe kpipe;

/* A pipe into p (the caller's to free, after kpipe_stop) on a thread of
 * its own, when jobs asks for one (2 or more; 0: where two cores are
 * online; 1: never); NULL when there is no thread (none asked for, out of
 * memory, or none could start): the caller calls the path itself. */
kpipe *kpipe_start(gdev *p, unsigned jobs);
/* Stops the thread (after the requests posted) and frees k; NULL is fine. */
void kpipe_stop(kpipe *k);
/* Posts r and its lines (copied): its number in *seq (0, 1, ...). 0, or
 * -1 with d set when the path has failed. */
int kpipe_post(kpipe *k, const gdev_req *r, const kmem_line *lines, uint64_t *seq, diag *d);
/* Posts the timed pass's start: the TLBs' counts start again there. */
int kpipe_post_reset(kpipe *k, diag *d);
/* Request seq's time (gdev_access's *done), waiting for it: 0, or -1 with
 * d set when the path failed at or before it. */
int kpipe_done(kpipe *k, uint64_t seq, double *done, diag *d);
/* Waits until every request posted is served: 0, or -1 with d set when
 * the path failed. After it the path's state is the caller's to read. */
int kpipe_drain(kpipe *k, diag *d);
/* Requests posted so far: the next one's number. */
uint64_t kpipe_posted(const kpipe *k);

#endif
