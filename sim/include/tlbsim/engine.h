/* tlbsim/engine.h — the timing engine timed models share: events in time
 * order, stages that take one request per interval, and miss-status slots.
 *
 * engine_event  something that happens at time t to request (or warp, or
 *               any actor) `id`; `kind` is the model's own step number.
 * engine        a min-heap of events by time. A model schedules its
 *               requests' next steps and handles what engine_next gives
 *               it: the functional part (which TLB levels a translation
 *               looked up, whether it walked: mmu_outcome) is decided
 *               first and exactly, and the engine replays those steps as
 *               requests through the stages, so timing never changes a
 *               count (gem5's walker: functional, then timed).
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
 * times come out in the heap's order, which depends only on the order
 * they were scheduled: a model run twice gives the same result.
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

typedef struct engine {
  engine_event *e;
  size_t n, cap;
} engine;

/* An empty engine: zero-initialised ({0}) is one too. */
void engine_init(engine *e);
void engine_free(engine *e);
/* 0, or -1 when out of memory. */
int engine_schedule(engine *e, double t, uint32_t id, uint32_t kind);
/* The earliest event (removed) into *out; false when none is left. */
bool engine_next(engine *e, engine_event *out);
/* Events about to come, left in place: the first *n (at most `want`) of
 * the queue's heap order, the earliest first and then the two candidates
 * to follow it, and so on. A model reads them to prefetch the state those
 * events will touch while it handles the ones before; nothing else may
 * depend on them. */
static inline const engine_event *engine_soon(const engine *e, size_t want, size_t *n) {
  *n = e->n < want ? e->n : want;
  return e->e;
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
