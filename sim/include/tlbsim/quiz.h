/* tlbsim/quiz.h — seeded exercises whose answer keys the simulator computes
 * (`tlbsim quiz`).
 *
 * quiz_kind     what an exercise asks: translate addresses from a page
 *               table dump (or name the fault), predict a TLB's hits, misses
 *               and evictions, count the page-table pages and bytes a
 *               mapping needs, say which allocation fails first under
 *               first-fit, best-fit and buddy and why, count driver calls,
 *               shootdowns and PTE writes of cudaMalloc against PyTorch's
 *               caching allocator.
 * quiz_env      what the quiz needs from its caller: a machine built from a
 *               preset and --set assignments (the way `tlbsim run` builds
 *               one, so the key and a replay cannot disagree) and a way to
 *               print a page table (`tlbsim dump`'s form).
 * quiz_options  the seed, which kinds, whether the key is shown, the form.
 *
 * Every exercise carries its scenario as a native trace and the command
 * that replays it (`tlbsim run ... --log TRACE`, `tlbsim alloc ... TRACE`):
 * its answers are what that command reports. The same seed gives the same
 * text byte for byte; an exercise depends only on the seed and its kind,
 * so `--kind K` shows the one the full quiz shows.
 */
#ifndef TLBSIM_QUIZ_H
#define TLBSIM_QUIZ_H

#include <stdio.h>

#include "tlbsim/machine.h"

typedef enum { QUIZ_TRANSLATE, QUIZ_TLB, QUIZ_PT_SIZE, QUIZ_ALLOC, QUIZ_POOL, QUIZ_NKINDS } quiz_kind;

/* "translate", "tlb", "pt-size", "alloc", "pool" by quiz_kind, NULL-terminated. */
extern const char *const quiz_kind_names[];

typedef enum { QUIZ_TEXT, QUIZ_JSON } quiz_format;

typedef struct quiz_env {
  void *ctx;
  /* A machine of preset `preset` with `sets` ("tlb.l1d.entries=4") applied. */
  machine *(*build)(void *ctx, const char *preset, const char *const *sets, size_t nsets, diag *d);
  /* Writes m's page table as `tlbsim dump` does: -1 when out of memory. */
  int (*show_pt)(void *ctx, FILE *out, const machine *m);
} quiz_env;

typedef struct quiz_options {
  uint64_t seed;
  unsigned kinds;     /* bit (1 << quiz_kind) per kind to ask; 0: all */
  bool answers;       /* write the answer key too */
  quiz_format format; /* JSON: one object, exercises[] with their scenario, questions and (with answers) keys */
} quiz_options;

/* Writes the exercises to out: 0, or -1 (d) when a machine cannot be built
 * or memory runs out. */
int quiz_write(FILE *out, const quiz_options *o, const quiz_env *env, diag *d);

#endif
