/* sim/src/quiz/quiz_impl.h — one exercise as its generator fills it and
 * quiz.c writes it, and what the generators share.
 *
 * quiz_exercise  a title, what the student is told, the scenario as a
 *                native trace, the command that replays it (TRACE stands
 *                for the file), a page table to decode (translate only)
 *                and the questions with their keys in words and as data.
 * quiz_seen      what one access did, as the MMU's observer saw it: the
 *                first level's look-up and the victim its fill evicted,
 *                and the translation's outcome.
 *
 * Generators: quiz_pt.c (translate, pt-size), quiz_tlb.c (tlb),
 * quiz_alloc.c (alloc, pool).
 */
#ifndef TLBSIM_QUIZ_IMPL_H
#define TLBSIM_QUIZ_IMPL_H

#include <json-c/json.h>

#include "tlbsim/quiz.h"

#define QUIZ_MAX_QUESTIONS 16

typedef struct quiz_question {
  char ask[96];        /* "r 0x1234" */
  char key[320];       /* the answer in words */
  json_object *answer; /* the answer as data, in the replaying command's own JSON keys (owned) */
} quiz_question;

typedef struct quiz_exercise {
  quiz_kind kind;
  char title[96];
  char prompt[640];
  char command[256];
  FILE *trace_out;     /* the scenario while it is written */
  char *trace;         /* ... and once closed */
  size_t trace_len;
  char *shown;         /* a page table to decode, or NULL */
  size_t shown_len;
  unsigned nq;
  quiz_question q[QUIZ_MAX_QUESTIONS];
} quiz_exercise;

typedef struct quiz_seen {
  bool looked, hit;     /* the first TLB level's first look-up */
  bool evicted;         /* its fill replaced a valid entry ... */
  uint64_t victim_vpn;  /* ... of this page */
  mmu_status status;
  uint64_t pa;
  unsigned page_shift;
} quiz_seen;

/* The presets whose formats the quiz draws: teaching16, x86-64, Hopper. */
const char *quiz_pick_preset(rng *r);
/* Appends a question (printf-style ask); NULL when the exercise is full. */
quiz_question *quiz_ask(quiz_exercise *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes r to the scenario in native syntax and applies it to m (m may be
 * NULL: the record is only written). */
int quiz_record(quiz_exercise *x, machine *m, const trace_record *r, diag *d);
/* quiz_record of one access of kind k at va, with what it did in *seen. */
int quiz_access(quiz_exercise *x, machine *m, trace_access k, uint64_t va, quiz_seen *seen, diag *d);
/* Keeps env->show_pt's text of m's page table in x->shown. */
int quiz_show_pt(quiz_exercise *x, const quiz_env *env, const machine *m, diag *d);

int quiz_translate(quiz_exercise *x, rng *r, const quiz_env *env, diag *d);
int quiz_pt_size(quiz_exercise *x, rng *r, const quiz_env *env, diag *d);
int quiz_tlb(quiz_exercise *x, rng *r, const quiz_env *env, diag *d);
int quiz_alloc(quiz_exercise *x, rng *r, diag *d);
int quiz_pool(quiz_exercise *x, rng *r, diag *d);

#endif
