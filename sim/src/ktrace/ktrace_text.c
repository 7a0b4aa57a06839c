/* ktrace_text.c — Accel-Sim's kernel-N.traceg (traces/FORMAT.md, "Kernel
 * traces"): the `-key = value` header, then thread blocks of
 *
 *   #BEGIN_TB
 *   thread block = X,Y,Z
 *   warp = W
 *   insts = N
 *   N instruction lines: [TBX TBY TBZ WARP] [SRCLINE] PC MASK NDST [Rd..]
 *                        OPCODE NSRC [Rs..] MEM_WIDTH [FORMAT ADDRESSES] [IMM]
 *   ... more warps
 *   #END_TB
 *
 * The fields in brackets depend on the kernel's tracer version (before 3,
 * each line repeats its block and warp; from 5, an immediate ends it) and
 * on -enable lineinfo. Lines are parsed in place, numbers by num.h's
 * scanners; an opcode is hashed while it is scanned and found in the
 * reader's table. Every field is checked (traces/FORMAT.md lists what):
 * where Accel-Sim's parser asserts or reads garbage, this one says which
 * line is wrong and why.
 */
#include "ktrace_fmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GRID_X_MAX UINT64_C(0x7fffffff) /* CUDA's limits on a launch */
#define GRID_YZ_MAX UINT64_C(65535)
#define BLOCK_THREADS_MAX 1024u
#define REG_MAX 255u

__attribute__((format(printf, 3, 4))) static int fail(const ktrace_in *in, diag *d, const char *fmt, ...) {
  char msg[DIAG_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return diag_set(d, in->name, in->no, "%s", msg);
}

/* The token at p, quoted for a message ("the end of the line" for none). */
static const char *token(const char *p, char *buf, size_t len) {
  char tok[64];
  size_t n = 0;
  while (!ktrace_field_end(p[n]) && n + 1 < sizeof tok) tok[n] = p[n], n++;
  tok[n] = '\0';
  if (!n) return "the end of the line";
  char q[48];
  snprintf(buf, len, "'%s'", num_quote(tok, q, sizeof q));
  return buf;
}

/* ---- the header ------------------------------------------------------------ */

typedef enum {
  H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_STREAM, H_SHMEM_BASE, H_LOCAL_BASE, H_NVBIT,
  H_TRACER, H_LINEINFO, NKEYS
} header_key;

static const char *const key_names[NKEYS] = {
    [H_NAME] = "kernel name",           [H_ID] = "kernel id",         [H_GRID] = "grid dim",
    [H_BLOCK] = "block dim",            [H_SHMEM] = "shmem",          [H_NREGS] = "nregs",
    [H_BINARY] = "binary version",      [H_STREAM] = "cuda stream id", [H_SHMEM_BASE] = "shmem base_addr",
    [H_LOCAL_BASE] = "local mem base_addr", [H_NVBIT] = "nvbit version", [H_TRACER] = "accelsim tracer version",
    [H_LINEINFO] = "enable lineinfo"};

/* The key of "-KEY = VALUE" (blanks in KEY taken as one space); NKEYS for
 * one this reader does not know. */
static header_key key_of(const char *s, const char *eq) {
  char key[64];
  size_t n = 0;
  for (const char *p = ktrace_blanks(s); p < eq && n + 1 < sizeof key; p++) {
    bool blank = *p == ' ' || *p == '\t';
    if (blank && (n == 0 || key[n - 1] == ' ')) continue;
    key[n++] = blank ? ' ' : *p;
  }
  while (n && key[n - 1] == ' ') n--;
  key[n] = '\0';
  for (int k = 0; k < NKEYS; k++)
    if (!strcmp(key, key_names[k])) return (header_key)k;
  return NKEYS;
}

static int bad_value(const ktrace_in *in, diag *d, header_key k, num_status st, const char *v, uint64_t lo,
                     uint64_t hi) {
  char why[160];
  return fail(in, d, "-%s: %s", key_names[k], num_complaint(st, NUM_WHOLE, v, lo, hi, why, sizeof why));
}

static int whole_value(const ktrace_in *in, diag *d, header_key k, const char *v, uint64_t hi, uint64_t *out) {
  num_status st = num_whole_in(v, 0, hi, out);
  return st == NUM_OK ? 0 : bad_value(in, d, k, st, v, 0, hi);
}

/* A base address: hex, with or without 0x (Accel-Sim reads std::hex). */
static int hex_value(const ktrace_in *in, diag *d, header_key k, const char *v, uint64_t *out) {
  const char *p = v + (v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 2 : 0);
  if (num_scan_hex_to_stop(&p, out) == 0 && *p == '\0') return 0;
  return fail(in, d, "-%s: '%s' is not a hex address", key_names[k], v);
}

/* "(X,Y,Z)", each in [1, hi[i]]. */
static int dim_value(const ktrace_in *in, diag *d, header_key k, const char *v, const uint64_t hi[3],
                     uint32_t out[3]) {
  const char *p = ktrace_blanks(v);
  char q[48];
  if (*p++ != '(') goto syntax;
  for (int i = 0; i < 3; i++) {
    p = ktrace_blanks(p);
    const char *at = p;
    uint64_t x;
    if (num_scan_dec(&p, p + 24, &x)) {
      if (*at >= '0' && *at <= '9') x = UINT64_MAX;
      else goto syntax;
    }
    if (x < 1 || x > hi[i]) {
      char digits[24], why[160];
      snprintf(digits, sizeof digits, "%.*s", (int)(p - at), at);
      return fail(in, d, "-%s: %c %s", key_names[k], "xyz"[i],
                  num_complaint(NUM_RANGE, NUM_WHOLE, digits, 1, hi[i], why, sizeof why));
    }
    out[i] = (uint32_t)x;
    p = ktrace_blanks(p);
    if (*p++ != (i < 2 ? ',' : ')')) goto syntax;
  }
  if (*ktrace_blanks(p) == '\0') return 0;
syntax:
  return fail(in, d, "-%s: '%s' is not (X,Y,Z)", key_names[k], num_quote(v, q, sizeof q));
}

/* "N" or "N.M" (1.2 reads as 1, as Accel-Sim's %d does). */
static int version_value(const ktrace_in *in, diag *d, const char *v, uint32_t *out) {
  const char *p = v;
  uint64_t major, minor;
  char q[48];
  if (num_scan_dec(&p, p + 24, &major) || major > NUM_U32_MAX ||
      (*p == '.' && (++p, num_scan_dec(&p, p + 24, &minor))) || *p)
    return fail(in, d, "-%s: '%s' is not a version (N or N.M)", key_names[H_TRACER], num_quote(v, q, sizeof q));
  *out = (uint32_t)major;
  return 0;
}

static int header_value(ktrace_reader *r, diag *d, header_key k, char *v, size_t len) {
  static const uint64_t grid_hi[3] = {GRID_X_MAX, GRID_YZ_MAX, GRID_YZ_MAX};
  static const uint64_t block_hi[3] = {BLOCK_THREADS_MAX, BLOCK_THREADS_MAX, 64};
  ktrace_kernel *kn = &r->k;
  const ktrace_in *in = &r->in;
  uint64_t x = 0;
  int rc = 0;
  switch (k) {
  case H_NAME:
    if (!len) return fail(in, d, "-kernel name: empty");
    if (ktrace_set_string(&r->kname, v, len)) return fail(in, d, "out of memory");
    kn->name = r->kname;
    return 0;
  case H_NVBIT:
    if (ktrace_set_string(&r->knvbit, v, len)) return fail(in, d, "out of memory");
    kn->nvbit_version = r->knvbit;
    return 0;
  case H_ID: rc = whole_value(in, d, k, v, NUM_U32_MAX, &x), kn->id = (uint32_t)x; break;
  case H_SHMEM: rc = whole_value(in, d, k, v, NUM_U32_MAX, &x), kn->shmem = (uint32_t)x; break;
  case H_NREGS: rc = whole_value(in, d, k, v, NUM_U32_MAX, &x), kn->nregs = (uint32_t)x; break;
  case H_BINARY: rc = whole_value(in, d, k, v, NUM_U32_MAX, &x), kn->binary_version = (uint32_t)x; break;
  case H_STREAM: rc = whole_value(in, d, k, v, UINT64_MAX, &kn->stream); break;
  case H_LINEINFO: rc = whole_value(in, d, k, v, 1, &x), kn->lineinfo = x == 1; break;
  case H_SHMEM_BASE: rc = hex_value(in, d, k, v, &kn->shmem_base); break;
  case H_LOCAL_BASE: rc = hex_value(in, d, k, v, &kn->local_base); break;
  case H_TRACER: rc = version_value(in, d, v, &kn->tracer_version); break;
  case H_GRID: rc = dim_value(in, d, k, v, grid_hi, kn->grid); break;
  case H_BLOCK:
    if ((rc = dim_value(in, d, k, v, block_hi, kn->block))) break;
    if ((uint64_t)kn->block[0] * kn->block[1] * kn->block[2] > BLOCK_THREADS_MAX)
      return fail(in, d, "-block dim: (%u,%u,%u) is %llu threads, more than a block's %u", kn->block[0],
                  kn->block[1], kn->block[2],
                  (unsigned long long)kn->block[0] * kn->block[1] * kn->block[2], BLOCK_THREADS_MAX);
    break;
  case NKEYS: break;
  }
  return rc;
}

/* "-KEY = VALUE": a key this reader knows is checked and kept (once per
 * header); one it does not know is skipped, as Accel-Sim skips it, so the
 * headers of newer tracers still read. */
static int header_line(ktrace_reader *r, diag *d, char *s, size_t len, unsigned *seen) {
  if (memchr(s, '\0', len)) return fail(&r->in, d, "a NUL byte in a header line");
  char *eq = memchr(s, '=', len);
  if (!eq) return fail(&r->in, d, "a header line is '-KEY = VALUE'; this one has no '='");
  header_key k = key_of(s + 1, eq);
  if (k == NKEYS) return 0;
  if (*seen & 1u << k) return fail(&r->in, d, "a second '-%s' line", key_names[k]);
  *seen |= 1u << k;
  char *v = (char *)ktrace_blanks(eq + 1), *e = s + len;
  while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
  *e = '\0';
  return header_value(r, d, k, v, (size_t)(e - v));
}

static bool is_marker(const char *s, const char *marker) {
  size_t n = strlen(marker);
  return !strncmp(s, marker, n) && *ktrace_blanks(s + n) == '\0';
}

int ktrace_text_header(ktrace_reader *r, diag *d) {
  ktrace_kernel *k = &r->k;
  *k = (ktrace_kernel){.name = r->kfile, .file = r->kfile, .nvbit_version = ""};
  r->text = (ktrace_text_state){0};
  unsigned seen = 0;
  char *s;
  size_t len;
  int got;
  while ((got = ktrace_in_line(&r->in, &s, &len, d)) == 1) {
    const char *p = ktrace_blanks(s);
    if (*p == '\0') continue;
    if (*p == '#') {
      r->text.begin_pending = is_marker(p, "#BEGIN_TB");
      break;
    }
    if (*p != '-')
      return fail(&r->in, d, "expected a '-KEY = VALUE' header line before the first '#' line, found %s",
                  token(p, (char[64]){0}, 64));
    if (header_line(r, d, (char *)p, len - (size_t)(p - s), &seen)) return -1;
  }
  if (got < 0) return -1;
  r->text.done = got == 0;
  for (header_key need = H_GRID; need <= H_BLOCK; need++)
    if (!(seen & 1u << need))
      return diag_set(d, r->in.name, 0, "no '-%s = (X,Y,Z)' line in the header", key_names[need]);
  k->warps_per_block = (k->block[0] * k->block[1] * k->block[2] + KTRACE_WARP_LANES - 1) / KTRACE_WARP_LANES;
  k->blocks = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
  return 0;
}

/* ---- instruction lines ------------------------------------------------------- */

/* What an instruction line's parse knows: for messages. */
typedef struct inst_ctx {
  ktrace_reader *r;
  ktrace_tb *tb;
  diag *d;
  const char *end;      /* the line's NUL */
  uint32_t warp;        /* the warp being read */
} inst_ctx;

__attribute__((noinline)) static int bad_field(const inst_ctx *c, const char *what, const char *at) {
  char buf[64];
  return fail(&c->r->in, c->d, "instruction line: expected %s, found %s", what, token(at, buf, sizeof buf));
}

__attribute__((noinline)) static int bad_range(const inst_ctx *c, const char *what, const char *at, uint64_t lo,
                                               uint64_t hi) {
  char digits[64], why[160];
  size_t n = 0;
  while (!ktrace_field_end(at[n]) && n + 1 < sizeof digits) digits[n] = at[n], n++;
  digits[n] = '\0';
  return fail(&c->r->in, c->d, "%s: %s", what, num_complaint(NUM_RANGE, NUM_WHOLE, digits, lo, hi, why, sizeof why));
}

/* A decimal field at *p (after blanks) up to hi. */
static inline int dec_field(const inst_ctx *c, const char **p, uint64_t hi, uint64_t *out, const char *what) {
  const char *s = ktrace_blanks(*p), *at = s;
  if (num_scan_dec(&s, c->end, out)) /* no digit, or more than 64 bits of them */
    return *at >= '0' && *at <= '9' ? bad_range(c, what, at, 0, hi) : bad_field(c, what, at);
  if (!ktrace_field_end(*s)) return bad_field(c, what, at);
  if (*out > hi) return bad_range(c, what, at, 0, hi);
  *p = s;
  return 0;
}

/* A signed decimal field in [lo, hi] (lo < 0). */
static inline int signed_field(const inst_ctx *c, const char **p, int64_t lo, int64_t hi, int64_t *out,
                               const char *what) {
  const char *s = ktrace_blanks(*p), *at = s;
  bool neg = *s == '-';
  uint64_t mag;
  s += neg;
  if (num_scan_dec(&s, c->end, &mag)) {
    if (*s >= '0' && *s <= '9') goto range;
    return bad_field(c, what, at);
  }
  if (!ktrace_field_end(*s)) return bad_field(c, what, at);
  if (neg ? mag > (uint64_t)0 - (uint64_t)lo : mag > (uint64_t)hi) goto range;
  *out = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
  *p = s;
  return 0;
range:
  return fail(&c->r->in, c->d, "%s: %s is out of range (%lld..%lld)", what, token(at, (char[64]){0}, 64),
              (long long)lo, (long long)hi);
}

/* A hex field, with or without 0x, of at most 64 bits (or hi). */
static inline int hex_field(const inst_ctx *c, const char **p, uint64_t hi, uint64_t *out, const char *what) {
  const char *s = ktrace_blanks(*p), *at = s;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  if (num_scan_hex_to_stop(&s, out))
    return num_hexval[(unsigned char)*s] ? bad_range(c, what, at, 0, hi) : bad_field(c, what, at);
  if (!ktrace_field_end(*s)) return bad_field(c, what, at);
  if (*out > hi) return bad_range(c, what, at, 0, hi);
  *p = s;
  return 0;
}

/* A register "R<n>", n <= 255. */
static inline int reg_field(const inst_ctx *c, const char **p, uint8_t *out) {
  const char *s = ktrace_blanks(*p), *at = s;
  uint64_t n;
  if (*s++ != 'R' || num_scan_dec(&s, c->end, &n) || !ktrace_field_end(*s))
    return bad_field(c, "a register (R0 to R255)", at);
  if (n > REG_MAX) return bad_range(c, "register number", at + 1, 0, REG_MAX);
  *out = (uint8_t)n;
  *p = s;
  return 0;
}

/* The opcode token: its id in the reader's table. */
static inline int op_field(const inst_ctx *c, const char **p, uint16_t *out) {
  const char *s = ktrace_blanks(*p), *at = s;
  while (!ktrace_field_end(*s)) s++;
  size_t len = (size_t)(s - at);
  int id = len < KTRACE_OP_NAME_MAX ? ktrace_optab_find(&c->r->ops, at, len, ktrace_op_hash(at, len)) : -1;
  if (id == -2) return fail(&c->r->in, c->d, "more than %d distinct opcodes", KTRACE_OPS_MAX);
  if (id < 0) return bad_field(c, "an opcode (letters, digits, '_' and '.', at most 63)", at);
  *out = (uint16_t)id;
  *p = s;
  return 0;
}

/* The first fields of a line of tracer version < 3, "TBX TBY TBZ WARP":
 * they must name the block and warp the line is in. */
static int old_prefix(const inst_ctx *c, const char **p) {
  uint64_t v[4];
  static const char *const what[4] = {"the thread block's x", "the thread block's y", "the thread block's z",
                                      "the warp"};
  for (int i = 0; i < 4; i++)
    if (dec_field(c, p, NUM_U32_MAX, &v[i], what[i])) return -1;
  const ktrace_tb *tb = c->tb;
  if (v[0] != tb->x || v[1] != tb->y || v[2] != tb->z || v[3] != c->warp)
    return fail(&c->r->in, c->d,
                "the line names thread block %llu,%llu,%llu warp %llu, but it is in thread block %u,%u,%u warp %u",
                (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2],
                (unsigned long long)v[3], tb->x, tb->y, tb->z, c->warp);
  return 0;
}

/* a + delta without passing 0 or 2^64 - 1: 0, or -1 when it would. */
static inline int add_delta(uint64_t a, int64_t delta, uint64_t *out) {
  if (delta >= 0) return __builtin_add_overflow(a, (uint64_t)delta, out) ? -1 : 0;
  uint64_t m = (uint64_t)0 - (uint64_t)delta;
  if (m > a) return -1;
  *out = a - m;
  return 0;
}

static int wraps(const inst_ctx *c, uint64_t before, unsigned k) {
  return fail(&c->r->in, c->d, "the address of active lane %u wraps past 0 or 2^64 (the lane before it: 0x%llx)", k,
              (unsigned long long)before);
}

/* The addresses after FORMAT, n of them (the mask's active lanes), into a. */
static int addresses(const inst_ctx *c, const char **p, unsigned fmt, uint32_t mask, unsigned n, uint64_t *a) {
  if (fmt == 0) {
    for (unsigned k = 0; k < n; k++) {
      if (*ktrace_blanks(*p) == '\0')
        return fail(&c->r->in, c->d, "the mask %08x has %u active lanes but the list gives %u addresses", mask, n, k);
      if (hex_field(c, p, UINT64_MAX, &a[k], "an address (hex)")) return -1;
    }
    return 0;
  }
  uint64_t base = 0; /* set by every path that returns 0: compilers cannot tell */
  if (hex_field(c, p, UINT64_MAX, &base, "a base address (hex)")) return -1;
  if (fmt == 1) {
    int64_t stride = 0;
    if (signed_field(c, p, INT32_MIN, INT32_MAX, &stride, "a stride (decimal)")) return -1;
    if (!n) return 0; /* the tracer writes "1 0x0 0" for an instruction no lane executes */
    uint32_t run = mask >> __builtin_ctz(mask);
    if (run & (run + 1))
      return fail(&c->r->in, c->d, "base_stride needs contiguous active lanes, but the mask is %08x", mask);
    __int128 last = (__int128)base + (__int128)stride * (n - 1);
    if (last < 0 || last > (__int128)UINT64_MAX)
      return fail(&c->r->in, c->d, "the address of active lane %u wraps past 0 or 2^64 (base 0x%llx, stride %lld)",
                  n - 1, (unsigned long long)base, (long long)stride);
    for (unsigned k = 0; k < n; k++) a[k] = base + (uint64_t)stride * k;
    return 0;
  }
  if (!n) return 0;
  uint64_t x = a[0] = base;
  for (unsigned k = 1; k < n; k++) {
    int64_t delta = 0;
    if (*ktrace_blanks(*p) == '\0')
      return fail(&c->r->in, c->d, "the mask %08x has %u active lanes, so %u deltas after the base, but the line gives %u",
                  mask, n, n - 1, k - 1);
    if (signed_field(c, p, INT64_MIN, INT64_MAX, &delta, "a delta (decimal)")) return -1;
    if (add_delta(x, delta, &x)) return wraps(c, x, k);
    a[k] = x;
  }
  return 0;
}

/* What follows the fields: from tracer version 5 an immediate (Accel-Sim
 * keeps it for DEPBAR), then nothing. */
static int line_end(const inst_ctx *c, const char *p, bool addrs, unsigned fmt, uint32_t mask) {
  p = ktrace_blanks(p);
  if (*p && c->r->k.tracer_version >= 5) {
    int64_t imm;
    const char *s = p;
    if (*s != '0' || (s[1] != 'x' && s[1] != 'X')) {
      if (signed_field(c, &s, INT64_MIN, INT64_MAX, &imm, "an immediate (decimal)")) return -1;
      p = ktrace_blanks(s);
    }
  }
  if (!*p) return 0;
  if (addrs && fmt != 1)
    return fail(&c->r->in, c->d, "the mask %08x has %u active lanes but the line gives more %s", mask,
                (unsigned)__builtin_popcount(mask), fmt == 0 ? "addresses" : "deltas (one per lane after the first)");
  return fail(&c->r->in, c->d, "unexpected %s after the instruction's fields", token(p, (char[64]){0}, 64));
}

static int parse_inst(const inst_ctx *c, const char *s) {
  ktrace_reader *r = c->r;
  ktrace_tb *tb = c->tb;
  const ktrace_kernel *k = &r->k;
  const char *p = s;
  uint64_t pc = 0, mask = 0, n = 0, width = 0, fmt = 0;
  uint32_t i = tb->ninst;
  if (k->tracer_version < 3 && old_prefix(c, &p)) return -1;
  if (k->lineinfo && dec_field(c, &p, NUM_U32_MAX, &n, "a source line number")) return -1;
  if (hex_field(c, &p, NUM_U32_MAX, &pc, "a PC (hex)") || hex_field(c, &p, NUM_U32_MAX, &mask, "an active mask (hex)") ||
      dec_field(c, &p, KTRACE_DST_MAX, &n, "a destination count"))
    return -1;
  tb->ndst[i] = (uint8_t)n;
  for (unsigned j = 0; j < n; j++)
    if (reg_field(c, &p, &tb->dst[i][j])) return -1;
  if (op_field(c, &p, &tb->op[i]) || dec_field(c, &p, KTRACE_SRC_MAX, &n, "a source count")) return -1;
  tb->nsrc[i] = (uint8_t)n;
  tb->hold[i] = 0;
  for (unsigned j = 0; j < n; j++)
    if (reg_field(c, &p, &tb->src[i][j])) return -1;
  if (dec_field(c, &p, NUM_U32_MAX, &width, "a memory width")) return -1;
  uint32_t at = tb->addr_at[i], lanes = 0;
  const ktrace_op *op = &r->ops.op[tb->op[i]];
  if (width) {
    if (dec_field(c, &p, 2, &fmt, "an address format (0 list_all, 1 base_stride, 2 base_delta)")) return -1;
    if (!op->width)
      return fail(&r->in, c->d, "opcode '%s' has a width suffix tlbsim does not know (it reads 8, 16, 32, 64 and 128 "
                  "bits)", op->name);
    lanes = (uint32_t)__builtin_popcount((uint32_t)mask);
    if (addresses(c, &p, (unsigned)fmt, (uint32_t)mask, lanes, tb->addr + at)) return -1;
    for (unsigned l = 0; l < lanes; l++)
      if (tb->addr[at + l] > UINT64_MAX - (op->width - 1u))
        return fail(&r->in, c->d, "the access at 0x%llx runs past 2^64", (unsigned long long)tb->addr[at + l]);
  }
  if (line_end(c, p, width != 0, (unsigned)fmt, (uint32_t)mask)) return -1;
  tb->pc[i] = (uint32_t)pc;
  tb->mask[i] = (uint32_t)mask;
  tb->cls[i] = (uint8_t)ktrace_resolve(k, op->cls, lanes ? &tb->addr[at] : NULL);
  tb->line[i] = r->in.no;
  tb->addr_at[i + 1] = at + lanes;
  tb->ninst = i + 1;
  return 0;
}

/* ---- thread blocks ------------------------------------------------------------ */

/* "KEY = " at s: what follows, or NULL. */
static const char *after_key(const char *s, const char *key) {
  size_t n = strlen(key);
  if (strncmp(s, key, n) || !ktrace_field_end(s[n])) return NULL;
  s = ktrace_blanks(s + n);
  return *s == '=' ? ktrace_blanks(s + 1) : NULL;
}

/* "thread block = X,Y,Z": the block's index, inside the grid. */
static int block_line(ktrace_reader *r, ktrace_tb *tb, const char *v, diag *d) {
  uint64_t x[3];
  const char *p = v;
  for (int i = 0; i < 3; i++) {
    p = ktrace_blanks(p);
    if (num_scan_dec(&p, p + 24, &x[i]) || *(p = ktrace_blanks(p)) != (i < 2 ? ',' : '\0'))
      return fail(&r->in, d, "expected 'thread block = X,Y,Z', found '%s'", v);
    p++;
  }
  const uint32_t *g = r->k.grid;
  if (x[0] >= g[0] || x[1] >= g[1] || x[2] >= g[2])
    return fail(&r->in, d, "thread block %llu,%llu,%llu is outside the grid (%u,%u,%u)", (unsigned long long)x[0],
                (unsigned long long)x[1], (unsigned long long)x[2], g[0], g[1], g[2]);
  ktrace_tb_begin(tb, r->ops.op, (uint32_t)x[0], (uint32_t)x[1], (uint32_t)x[2]);
  return 0;
}

/* A block being read: its warps so far and the one being read. */
typedef struct tb_state {
  bool have_block;     /* "thread block =" read */
  bool in_warp;        /* "warp =" read */
  bool have_count;     /* its "insts =" read */
  uint32_t warp;
  uint64_t left;       /* instruction lines the warp still needs */
  uint64_t warps_seen; /* bit w: warp w listed */
} tb_state;

/* The warp being read ends here: did it get its lines? */
static int warp_done(ktrace_reader *r, const ktrace_tb *tb, const tb_state *st, diag *d) {
  if (!st->in_warp) return 0;
  if (!st->have_count) return fail(&r->in, d, "warp %u of thread block %u,%u,%u has no 'insts = N' line", st->warp, tb->x, tb->y, tb->z);
  if (st->left)
    return fail(&r->in, d, "warp %u of thread block %u,%u,%u: 'insts = %u' but %u instruction lines", st->warp,
                tb->x, tb->y, tb->z, tb->count[tb->nwarps - 1] + (uint32_t)st->left, tb->count[tb->nwarps - 1]);
  return 0;
}

static int warp_line(ktrace_reader *r, ktrace_tb *tb, tb_state *st, const char *v, diag *d) {
  uint64_t w;
  const char *p = v;
  if (!st->have_block) return fail(&r->in, d, "'warp =' before 'thread block ='");
  if (warp_done(r, tb, st, d)) return -1;
  if (num_scan_dec(&p, p + 24, &w) || *ktrace_blanks(p)) return fail(&r->in, d, "expected 'warp = W', found '%s'", v);
  if (w >= r->k.warps_per_block)
    return fail(&r->in, d, "warp %llu is outside the block: %u threads make warps 0 to %u", (unsigned long long)w,
                r->k.block[0] * r->k.block[1] * r->k.block[2], r->k.warps_per_block - 1);
  if (st->warps_seen >> w & 1) return fail(&r->in, d, "warp %llu is listed twice in thread block %u,%u,%u",
                                           (unsigned long long)w, tb->x, tb->y, tb->z);
  if (ktrace_tb_room_warp(tb)) return fail(&r->in, d, "out of memory");
  st->warps_seen |= UINT64_C(1) << w;
  *st = (tb_state){.have_block = true, .in_warp = true, .warp = (uint32_t)w, .warps_seen = st->warps_seen};
  tb->warp[tb->nwarps] = (uint32_t)w;
  tb->first[tb->nwarps] = tb->ninst;
  tb->count[tb->nwarps++] = 0;
  return 0;
}

static int insts_line(ktrace_reader *r, tb_state *st, const char *v, diag *d) {
  const char *p = v;
  if (!st->in_warp || st->have_count) return fail(&r->in, d, "'insts =' must follow 'warp ='");
  if (num_scan_dec(&p, p + 24, &st->left) || *ktrace_blanks(p)) return fail(&r->in, d, "expected 'insts = N', found '%s'", v);
  if (st->left > KTRACE_TB_INSTS_MAX)
    return fail(&r->in, d, "insts = %llu: a thread block holds at most %u warp instructions",
                (unsigned long long)st->left, KTRACE_TB_INSTS_MAX);
  st->have_count = true;
  return 0;
}

static int inst_line(ktrace_reader *r, ktrace_tb *tb, tb_state *st, const char *s, size_t len, diag *d) {
  if (!st->have_count) return fail(&r->in, d, "an instruction line before 'warp =' and 'insts ='");
  if (!st->left)
    return fail(&r->in, d, "warp %u of thread block %u,%u,%u has more instruction lines than 'insts = %u'", st->warp,
                tb->x, tb->y, tb->z, tb->count[tb->nwarps - 1]);
  int room = ktrace_tb_room(tb, KTRACE_WARP_LANES);
  if (room == -2)
    return fail(&r->in, d, "thread block %u,%u,%u holds more than %u warp instructions or %u addresses", tb->x,
                tb->y, tb->z, KTRACE_TB_INSTS_MAX, KTRACE_TB_ADDRS_MAX);
  if (room) return fail(&r->in, d, "out of memory");
  inst_ctx c = {.r = r, .tb = tb, .d = d, .end = s + len, .warp = st->warp};
  if (parse_inst(&c, s)) return -1;
  st->left--;
  tb->count[tb->nwarps - 1]++;
  return 0;
}

/* One line inside a block: 1 at #END_TB, 0 to go on, -1 on error. */
static int tb_line(ktrace_reader *r, ktrace_tb *tb, tb_state *st, char *s, size_t len, diag *d) {
  const char *p = ktrace_blanks(s), *v;
  switch (*p) {
  case '\0': return 0;
  case '#':
    if (is_marker(p, "#END_TB")) {
      if (!st->have_block) return fail(&r->in, d, "#END_TB before 'thread block ='");
      return warp_done(r, tb, st, d) ? -1 : 1;
    }
    if (is_marker(p, "#BEGIN_TB")) return fail(&r->in, d, "#BEGIN_TB inside a thread block (no #END_TB before it)");
    return fail(&r->in, d, "a '#' line inside a thread block");
  case 't':
    if (!strncmp(p, "thread", 6) && ktrace_field_end(p[6]) && (v = after_key(ktrace_blanks(p + 6), "block"))) {
      if (st->have_block) return fail(&r->in, d, "a second 'thread block =' line in one block");
      st->have_block = true;
      return block_line(r, tb, v, d);
    }
    break;
  case 'w':
    if ((v = after_key(p, "warp"))) return warp_line(r, tb, st, v, d);
    break;
  case 'i':
    if ((v = after_key(p, "insts"))) return insts_line(r, st, v, d);
    break;
  default: return inst_line(r, tb, st, p, len - (size_t)(p - s), d);
  }
  return fail(&r->in, d, "expected 'thread block =', 'warp =', 'insts =', an instruction or #END_TB, found %s",
              token(p, (char[64]){0}, 64));
}

/* Between blocks: 1 at #BEGIN_TB, 0 to go on, -1 on error. */
static int outside_line(ktrace_reader *r, const char *s, diag *d) {
  const char *p = ktrace_blanks(s);
  if (*p == '\0') return 0;
  if (is_marker(p, "#BEGIN_TB")) return 1;
  if (is_marker(p, "#END_TB")) return fail(&r->in, d, "#END_TB outside a thread block");
  if (*p == '#') return 0; /* a comment, such as the tracer's "#traces format = ..." */
  if (num_hexval[(unsigned char)*p])
    return fail(&r->in, d, "an instruction line outside a thread block: kernel-N.traceg files group them in "
                "#BEGIN_TB ... #END_TB (a raw kernel-N.trace goes through Accel-Sim's post-traces-processing first)");
  return fail(&r->in, d, "expected #BEGIN_TB, found %s", token(p, (char[64]){0}, 64));
}

int ktrace_text_tb(ktrace_reader *r, ktrace_tb *tb, diag *d) {
  char *s;
  size_t len;
  int got, rc = 0;
  if (r->text.done) return 0;
  if (!r->text.begin_pending) {
    while ((got = ktrace_in_line(&r->in, &s, &len, d)) == 1 && !(rc = outside_line(r, s, d))) {
    }
    if (got < 0 || (got == 1 && rc < 0)) return -1;
    if (got == 0) {
      r->text.done = true;
      return 0;
    }
  }
  r->text.begin_pending = false;
  tb_state st = {0};
  ktrace_tb_begin(tb, r->ops.op, 0, 0, 0);
  while ((got = ktrace_in_line(&r->in, &s, &len, d)) == 1)
    if ((rc = tb_line(r, tb, &st, s, len, d))) return rc;
  if (got < 0) return -1;
  r->text.done = true;
  return diag_set(d, r->in.name, r->in.no, "the file ends inside a thread block%s (no #END_TB): is it cut short?",
                  st.have_block ? "" : " before its 'thread block =' line");
}
