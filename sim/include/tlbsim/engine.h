/* tlbsim/engine.h — the timing engine timed models share: events in time
 * order, stages that take one request per interval, and miss-status slots.
 *
 * engine_event  something that happens at time t to request (or warp, or
 *               any actor) `id`; `kind` is the model's own step number.
 * engine        the events to come, earliest first. A model schedules its
 *               requests' next steps and handles what engine_next gives
 *               it: the functional part (which TLB levels a translation
 *               looked up, whether it walked: mmu_outcome) is decided
 *               first and exactly, and the engine replays those steps as
 *               requests through the stages, so timing never changes a
 *               count (gem5's walker: functional, then timed). A calendar:
 *               one bucket a cycle for ENGINE_RING cycles ahead, each
 *               sorted when its cycle comes, and a heap for the events
 *               beyond (a kernel's thousands of resident warps each wait
 *               in it: a pop of a heap of them all is a dozen levels of
 *               dependent loads and unpredictable branches, where a
 *               bucket's sort reads one buffer in order).
 * engine_stage  a FIFO server: it accepts a request at most once per
 *               interval and hands it on after its latency. Per SM, per
 *               L2-TLB group or GPU-wide, as the model places it.
 * engine_slots  n miss-status slots: a request takes one or waits, first
 *               come first served, until one is given back.
 * engine_band   a server of a given rate whose requests may be booked out
 *               of time order (a model that books a request's whole path
 *               when it issues: a request booked later may arrive
 *               earlier). Time is cut into bins of `width` cycles, each
 *               holding `width` cycles of service; a request takes the
 *               room left from its arrival on, so no idle time is lost to
 *               an earlier booking of a later arrival, as a FIFO stage
 *               would lose it.
 *
 * Times are in the agents' cycles (doubles: rates of shared stages are
 * scaled by the share of the device a model simulates). Events at equal
 * times come out in an order hashed from their id, kind and time
 * (engine_before), so that no SM, warp or request goes first at every
 * tie, as the GPU's arbiters favour none: a model run twice gives the
 * same result, and the order depends neither on how the calendar is cut
 * nor on the order equal events were scheduled in.
 */
#ifndef TLBSIM_ENGINE_H
#define TLBSIM_ENGINE_H

#include "tlbsim/base.h"

#define ENGINE_NONE UINT32_MAX

typedef struct engine_event {
  double t;
  uint32_t id;
  uint32_t kind;
} engine_event;

/* How far ahead the buckets reach, in cycles (a power of two): past a
 * DRAM load's return, so the heap beyond holds only stragglers. */
#define ENGINE_RING 4096u
/* Events engine_soon sees at least, where there are that many: the
 * cycles after the current one join it as it ends. */
#define ENGINE_SOON 32u
/* Room left before the current cycle's events, so that one scheduled for
 * now, ahead of those, is put in front without moving them. */
#define ENGINE_SLACK 64u

typedef struct engine_chunk engine_chunk; /* a bucket's events, in a list */
typedef struct engine_far engine_far;     /* an event beyond the ring */

typedef struct engine {
  engine_event *now; /* the current cycle's events, earliest first, from `head` to `end` */
  size_t head, end, cap_now;
  engine_event *scratch; /* the sort's */
  size_t cap_scratch;
  int64_t cycle;         /* the current bucket's */
  uint32_t *first, *last; /* per ring bucket: its chunks (1-based: 0 is none) */
  engine_chunk *chunk;
  uint32_t nchunk, cap_chunk, free_chunk;
  size_t ahead; /* events in the ring's buckets */
  engine_far *far; /* a min-heap by time, then scheduling order */
  size_t nfar, cap_far;
  uint64_t seq; /* events scheduled so far */
  size_t n;     /* events to come, in all */
} engine;

/* An empty engine: zero-initialised ({0}) is one too. */
void engine_init(engine *e);
void engine_free(engine *e);
/* 0, or -1 when out of memory. */
int engine_schedule(engine *e, double t, uint32_t id, uint32_t kind);
/* Whether a comes out before b: the earlier, and at equal times the one
 * of the smaller hash (events equal in time, id and kind: the first
 * scheduled). */
bool engine_before(const engine_event *a, const engine_event *b);
/* The earliest event (removed) into *out: 1, 0 when none is left, -1
 * when out of memory (the calendar moving on). */
int engine_next(engine *e, engine_event *out);
/* The earliest event's time, left in place: 1, 0 when none is left, -1
 * when out of memory (the calendar moving on). */
int engine_peek(engine *e, double *t);
/* Events about to come, left in place: the next *n (at most `want`) of
 * the current cycle's, in the order they will come unless one scheduled
 * before then goes ahead of them. A model reads them to prefetch the
 * state those events will touch while it handles the ones before;
 * nothing else may depend on them. */
static inline const engine_event *engine_soon(const engine *e, size_t want, size_t *n) {
  size_t left = e->end - e->head;
  *n = left < want ? left : want;
  return left ? e->now + e->head : e->now;
}

typedef struct engine_stage {
  double interval, latency;
  double free; /* when it takes its next request */
  double busy; /* intervals served: utilisation is busy over the span */
} engine_stage;

/* The time a request arriving at `now` leaves the stage, taking `interval`
 * of its time (a request may take longer than the stage's own). */
double engine_stage_pass(engine_stage *s, double now, double interval);

typedef struct engine_slots {
  uint32_t n, used;
  uint32_t *wait; /* waiting ids, a ring */
  uint32_t head, count, cap;
} engine_slots;

void engine_slots_init(engine_slots *s, uint32_t n);
void engine_slots_free(engine_slots *s);
/* Takes a slot for id: 1 when it got one (the caller goes on), 0 when it
 * waits, -1 when out of memory. */
int engine_slots_acquire(engine_slots *s, uint32_t id);
/* Gives a slot back: the id of the first waiter, which takes it (the caller
 * sends it on), or ENGINE_NONE when none waited. */
uint32_t engine_slots_release(engine_slots *s);

typedef struct engine_band {
  double width;   /* cycles a bin spans (and holds) */
  uint32_t nbins; /* a power of two: the ring of bins, how far ahead bookings may reach */
  double *used;   /* per bin: service booked in it (from its start) */
  int64_t *tag;   /* which bin of time the slot holds */
  double busy;    /* service booked in all */
} engine_band;

/* 0, or -1 when out of memory (nbins rounded up to a power of two). */
int engine_band_init(engine_band *b, double width, uint32_t nbins);
void engine_band_free(engine_band *b);
/* Books `interval` of service for a request arriving at `now`: the time
 * its service starts. */
double engine_band_take(engine_band *b, double now, double interval);

#endif
