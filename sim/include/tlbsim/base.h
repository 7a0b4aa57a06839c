/* tlbsim/base.h — what every module shares: diagnostics, sizes, a seeded RNG.
 *
 * diag   one error message in the form "FILE:LINE: what is wrong". Every
 *        function that can fail on user input takes a `diag *` and returns -1
 *        (or NULL) after filling it; nothing prints or exits below the CLI.
 * rng    xoshiro256** state. Each component that makes random choices owns
 *        one, seeded from configuration: there is no global state.
 */
#ifndef TLBSIM_BASE_H
#define TLBSIM_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIAG_MSG_MAX 512

typedef struct diag {
  char msg[DIAG_MSG_MAX];
} diag;

/* Fills d with "file:line: message" (or "file: message" when line is 0, or
 * just the message when file is NULL). Returns -1 so callers can
 * `return diag_set(...)`. d may be NULL. */
int diag_set(diag *d, const char *file, unsigned long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses 4096, 0x1000, 4K, 4KiB, 2M, 2MiB, 1G, 1GiB, 1T (case-insensitive
 * suffix, binary units). Rejects empty input, trailing garbage and overflow. */
int size_parse(const char *text, uint64_t *out);
/* Parses an unsigned decimal or 0x-hex integer with no suffix. */
int u64_parse(const char *text, uint64_t *out);
/* Writes a size as the largest exact binary unit: "4KiB", "2MiB", "1536B". */
const char *size_format(uint64_t bytes, char *buf, size_t len);

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
