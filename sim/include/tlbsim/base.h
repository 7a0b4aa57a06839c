/* tlbsim/base.h — what every module shares: diagnostics, numbers, a seeded
 * RNG.
 *
 * diag   one error message in the form "FILE:LINE: what is wrong". Every
 *        function that can fail on user input takes a `diag *` and returns -1
 *        (or NULL) after filling it; nothing prints or exits below the CLI.
 * num    every number that enters tlbsim is parsed and range-checked by the
 *        numbers module (tlbsim/num.h).
 * rng    xoshiro256** state. Each component that makes random choices owns
 *        one, seeded from configuration: there is no global state.
 */
#ifndef TLBSIM_BASE_H
#define TLBSIM_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tlbsim/num.h"

#define DIAG_MSG_MAX 512

typedef struct diag {
  char msg[DIAG_MSG_MAX];
} diag;

/* Fills d with "file:line: message" (or "file: message" when line is 0, or
 * just the message when file is NULL). Returns -1 so callers can
 * `return diag_set(...)`. d may be NULL. */
int diag_set(diag *d, const char *file, unsigned long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static inline unsigned log2_u64(uint64_t x) { return 63u - (unsigned)__builtin_clzll(x); }

typedef struct rng {
  uint64_t s[4];
} rng;

void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
/* Uniform in [0, bound); bound > 0. */
uint64_t rng_below(rng *r, uint64_t bound);

#endif
