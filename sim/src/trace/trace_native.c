/* trace_native.c — tlbsim's own trace format (traces/FORMAT.md).
 *
 * A line is blank-separated fields; a field starting with # ends it. The
 * first field names the record; each record kind is a row of `records`:
 * its positional fields (required ones first) and the key=value options it
 * takes. One generic pass checks the shape of every line against its row,
 * so the builders below only convert and check values.
 */
#include "trace_fmt.h"

#include <stdio.h>
#include <string.h>

#include "tlbsim/pt.h"
#include "tlbsim/uvm.h"

#define MAX_FIELDS 12 /* the longest records: alloc ID SIZE and 8 options, map VA SIZE and 8 */
#define MAX_POS 2
#define MAX_OPTS 9
#define TRACE_VERSION 1

typedef struct fields {
  const char *pos[MAX_POS];   /* positional fields after the keyword */
  size_t npos;
  const char *opt[MAX_OPTS];  /* option values, indexed like record_spec.opts; NULL if absent */
} fields;

typedef int build_fn(const trace_line *ln, const fields *f, trace_record *rec, diag *d);

/* A record's options: the first `nown` its builder reads itself, the
 * rest (a capture's: t=, dur=, dev=, ...) the one table `cap_opts` reads
 * and writes for every record. */
/* Fields in the order the table below initializes them (its padding costs a few hundred bytes once). */
typedef struct record_spec { // NOLINT(clang-analyzer-optin.performance.Padding)
  const char *name;
  build_fn *build;
  uint8_t nreq, nopt;           /* required and optional positional fields */
  const char *args[MAX_POS];
  const char *opts[MAX_OPTS];
  uint8_t nown;
} record_spec;

/* ---- values ------------------------------------------------------------ */

/* "FILE:LINE: FIELD: 'VALUE' is not EXPECTED". */
static int bad_value(const trace_line *ln, diag *d, const char *what, const char *s,
                     const char *expect) {
  char q[48];
  return diag_set(d, ln->file, ln->no, "%s: '%s' is not %s", what, num_quote(s, q, sizeof q), expect);
}

/* A number that did not parse within [lo, hi]: "FILE:LINE: FIELD: 'VALUE'
 * is out of range (LO..HI)", or "... is not a whole number" (a size). */
static int bad_number(const trace_line *ln, diag *d, const char *what, const char *s, num_status st, num_kind k,
                      uint64_t lo, uint64_t hi) {
  char why[160];
  return diag_set(d, ln->file, ln->no, "%s: %s", what, num_complaint(st, k, s, lo, hi, why, sizeof why));
}

static int get_num(const trace_line *ln, diag *d, const char *what, const char *s, uint64_t max,
                   uint64_t *v) {
  num_status st = num_whole_in(s, 0, max, v);
  return st == NUM_OK ? 0 : bad_number(ln, d, what, s, st, NUM_WHOLE, 0, max);
}

/* A size of at least one byte in any of the numbers module's size forms. */
static int get_size(const trace_line *ln, diag *d, const char *what, const char *s, uint64_t *v) {
  num_status st = num_size_in(s, 1, UINT64_MAX, v);
  return st == NUM_OK ? 0 : bad_number(ln, d, what, s, st, NUM_SIZE, 1, UINT64_MAX);
}

static int get_pow2(const trace_line *ln, diag *d, const char *what, const char *s, uint64_t *v) {
  if (get_size(ln, d, what, s, v)) return -1;
  return is_pow2(*v) ? 0 : bad_value(ln, d, what, s, "a power of two");
}

/* "rw", "r-x", "---", "none": each of r, w, x at most once, '-' a spacer. */
static int get_prot(const trace_line *ln, diag *d, const char *s, uint8_t *prot) {
  *prot = 0;
  if (!strcmp(s, "none")) return 0;
  for (const char *c = s; *c; c++) {
    uint8_t bit = *c == 'r' ? PT_R : *c == 'w' ? PT_W : *c == 'x' ? PT_X : 0;
    if ((!bit && *c != '-') || (*prot & bit))
      return bad_value(ln, d, "prot", s, "a protection (r, w, x each at most once, such as rw or r-x, or none)");
    *prot |= bit;
  }
  return *s ? 0 : bad_value(ln, d, "prot", s, "a protection (r, w, x each at most once, such as rw or r-x, or none)");
}

/* [addr, addr + size) must not run past 2^64. */
static int check_range(const trace_line *ln, diag *d, uint64_t addr, uint64_t size) {
  if (addr + (size - 1) < addr)
    return diag_set(d, ln->file, ln->no, "range 0x%llx + 0x%llx wraps past the top of memory",
                    (unsigned long long)addr, (unsigned long long)size);
  return 0;
}

/* ---- builders, one per record kind ------------------------------------- */

/* An access record, every field set (no memset on the hot path). */
static void set_access(trace_record *rec, trace_access a, uint64_t addr, uint64_t size, unsigned long line) {
  rec->kind = REC_ACCESS;
  rec->access = a;
  rec->relative = false;
  rec->prot = 0;
  rec->asid = 0;
  rec->stream = 0;
  rec->thread = 0;
  rec->alloc_id = 0;
  rec->addr = addr;
  rec->size = size;
  rec->align = 0;
  rec->page_size = 0;
  rec->frame = 0;
  rec->has_frame = false;
  rec->line = line;
  rec->label[0] = '\0';
}

/* Every builder but the access one (which sets each field itself) starts
 * from a zeroed record. */
static void start(trace_record *rec, trace_rec_kind kind, const trace_line *ln) {
  memset(rec, 0, sizeof *rec);
  rec->kind = kind;
  rec->line = ln->no;
}

static int get_word(const trace_line *ln, diag *d, const char *what, const char *s, const char *const *names,
                    uint16_t *v);

/* r/w/x ADDR [SIZE] [thread=T] [side=gpu|host]: side=host is the host's
 * touch of managed memory (cap.op = UVM_HOST), the device's by default. */
static int build_access(const trace_line *ln, const fields *f, trace_record *rec, diag *d,
                        trace_access a) {
  const char *s = f->pos[0];
  uint64_t addr, size = 1, id = 0;
  bool relative = *s == '@';
  if (relative) {
    const char *plus = strchr(s, '+');
    const char *id_end = plus ? plus : s + strlen(s);
    if (num_span_whole(s + 1, id_end, &id) || (plus && num_parse_size(plus + 1, &addr)))
      return bad_value(ln, d, "ADDR", s, "@ID or @ID+OFFSET, e.g. @3+0x40");
    if (!plus) addr = 0;
  } else {
    num_status st = num_whole_in(s, 0, UINT64_MAX, &addr);
    if (st == NUM_RANGE) return bad_number(ln, d, "ADDR", s, st, NUM_WHOLE, 0, UINT64_MAX);
    if (st != NUM_OK) return bad_value(ln, d, "ADDR", s, "an address (decimal, 0x hex, or @ID+OFFSET)");
  }
  if (f->npos > 1 && get_size(ln, d, "SIZE", f->pos[1], &size)) return -1;
  if (check_range(ln, d, addr, size)) return -1;
  set_access(rec, a, addr, size, ln->no);
  rec->relative = relative;
  rec->alloc_id = id;
  /* set_access leaves the capture fields alone (the hot path); a record
   * that goes out whole (relative, or the host's) has them zero. */
  if (relative || f->opt[1]) rec->cap = (trace_capture){0};
  else rec->cap.op = UVM_GPU;
  return f->opt[1] && get_word(ln, d, "side", f->opt[1], uvm_side_names, &rec->cap.op) ? -1 : 1;
}

static int build_read(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  return build_access(ln, f, rec, d, TRACE_READ);
}
static int build_write(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  return build_access(ln, f, rec, d, TRACE_WRITE);
}
static int build_exec(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  return build_access(ln, f, rec, d, TRACE_EXEC);
}

static int build_alloc(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  uint64_t stream = 0;
  start(rec, REC_ALLOC, ln);
  if (get_num(ln, d, "ID", f->pos[0], UINT64_MAX, &rec->alloc_id) ||
      get_size(ln, d, "SIZE", f->pos[1], &rec->size) ||
      (f->opt[0] && get_pow2(ln, d, "align", f->opt[0], &rec->align)) ||
      (f->opt[1] && get_num(ln, d, "stream", f->opt[1], UINT32_MAX, &stream)))
    return -1;
  rec->stream = (uint32_t)stream;
  return 1;
}

static int build_free(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_FREE, ln);
  return get_num(ln, d, "ID", f->pos[0], UINT64_MAX, &rec->alloc_id) ? -1 : 1;
}

/* VA SIZE, shared by map, unmap and protect. */
static int get_range(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  if (get_num(ln, d, "VA", f->pos[0], UINT64_MAX, &rec->addr) ||
      get_size(ln, d, "SIZE", f->pos[1], &rec->size))
    return -1;
  return check_range(ln, d, rec->addr, rec->size);
}

static int build_map(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_MAP, ln);
  rec->prot = PT_R | PT_W;
  if (get_range(ln, f, rec, d) || (f->opt[0] && get_pow2(ln, d, "page", f->opt[0], &rec->page_size)) ||
      (f->opt[1] && get_prot(ln, d, f->opt[1], &rec->prot)) ||
      (f->opt[2] && get_num(ln, d, "frame", f->opt[2], UINT64_MAX, &rec->frame)))
    return -1;
  rec->has_frame = f->opt[2] != NULL;
  if (!trace_map_whole_pages(rec))
    return diag_set(d, ln->file, ln->no, "map VA 0x%llx and SIZE 0x%llx must be multiples of page=%s",
                    (unsigned long long)rec->addr, (unsigned long long)rec->size, f->opt[0]);
  return 1;
}

static int build_unmap(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_UNMAP, ln);
  return get_range(ln, f, rec, d) ? -1 : 1;
}

static int build_protect(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_PROTECT, ln);
  if (!f->opt[0]) return diag_set(d, ln->file, ln->no, "protect needs prot=, e.g. prot=r");
  return get_range(ln, f, rec, d) || get_prot(ln, d, f->opt[0], &rec->prot) ? -1 : 1;
}

static int build_ctx(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  uint64_t asid;
  if (get_num(ln, d, "ASID", f->pos[0], UINT32_MAX, &asid)) return -1;
  start(rec, REC_CTX, ln);
  rec->asid = (uint32_t)asid;
  return 1;
}

static int build_mark(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  const char *s = f->pos[0], *why = trace_label_problem(s, strlen(s));
  size_t len = strlen(s);
  if (why) return diag_set(d, ln->file, ln->no, "%s", why);
  start(rec, REC_MARK, ln);
  memcpy(rec->label, s, len + 1);
  return 1;
}

/* ---- captured programs' records ------------------------------------------ */

/* A word of a name table (pool ops, memory kinds, ...) as its index. */
static int get_word(const trace_line *ln, diag *d, const char *what, const char *s, const char *const *names,
                    uint16_t *v) {
  int i = trace_name_index(names, s);
  if (i >= 0) {
    *v = (uint16_t)i;
    return 0;
  }
  char list[160];
  size_t n = 0;
  list[0] = '\0';
  for (int k = 0; names[k] && n < sizeof list; k++)
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", names[k]);
  char ex[48];
  return diag_set(d, ln->file, ln->no, "%s: '%s' is not one of %s", what, trace_excerpt(s, strlen(s), ex, sizeof ex),
                  list);
}

static int build_pool(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_POOL, ln);
  return get_num(ln, d, "POOL", f->pos[0], UINT64_MAX, &rec->cap.pool) ||
                 get_word(ln, d, "OP", f->pos[1], trace_pool_op_names, &rec->cap.op)
             ? -1
             : 1;
}

static int build_reserve(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_RESERVE, ln);
  return get_range(ln, f, rec, d) || (f->opt[0] && get_pow2(ln, d, "align", f->opt[0], &rec->align)) ? -1 : 1;
}

static int build_unreserve(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_UNRESERVE, ln);
  return get_range(ln, f, rec, d) ? -1 : 1;
}

static int build_handle(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_HANDLE, ln);
  return get_num(ln, d, "HANDLE", f->pos[0], UINT64_MAX, &rec->cap.handle) ||
                 get_size(ln, d, "SIZE", f->pos[1], &rec->size)
             ? -1
             : 1;
}

static int build_release(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_RELEASE, ln);
  return get_num(ln, d, "HANDLE", f->pos[0], UINT64_MAX, &rec->cap.handle) ? -1 : 1;
}

static int build_meminfo(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_MEMINFO, ln);
  if (get_num(ln, d, "FREE", f->pos[0], UINT64_MAX, &rec->size) || get_size(ln, d, "TOTAL", f->pos[1], &rec->cap.total))
    return -1;
  if (rec->size > rec->cap.total)
    return diag_set(d, ln->file, ln->no, "meminfo FREE %llu is more than TOTAL %llu", (unsigned long long)rec->size,
                    (unsigned long long)rec->cap.total);
  return 1;
}

static int build_prefetch(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_PREFETCH, ln);
  if (!f->opt[0]) return diag_set(d, ln->file, ln->no, "prefetch needs to=gpu or to=host");
  return get_range(ln, f, rec, d) || get_word(ln, d, "to", f->opt[0], uvm_side_names, &rec->cap.op) ? -1 : 1;
}

static int build_advise(const trace_line *ln, const fields *f, trace_record *rec, diag *d) {
  start(rec, REC_ADVISE, ln);
  if (!f->opt[0]) return diag_set(d, ln->file, ln->no, "advise needs advice=, e.g. advice=read_mostly");
  return get_range(ln, f, rec, d) || get_word(ln, d, "advice", f->opt[0], uvm_advice_names, &rec->cap.op) ? -1
                                                                                                            : 1;
}

/* ---- the options of captured records: one table reads and writes them --- */

typedef int cap_get_fn(const trace_line *ln, diag *d, const char *s, trace_record *rec);
typedef int cap_put_fn(const trace_record *rec, char *s, size_t n);

static int get_time(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_num(ln, d, "t", s, UINT64_MAX, &rec->cap.time_ns);
}
static int get_dur(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_num(ln, d, "dur", s, UINT64_MAX, &rec->cap.dur_ns);
}
static int get_va(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_num(ln, d, "va", s, UINT64_MAX, &rec->cap.va);
}
static int get_dev(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  uint64_t v;
  if (get_num(ln, d, "dev", s, UINT32_MAX, &v)) return -1;
  rec->cap.device = (uint32_t)v;
  return 0;
}
static int get_pool(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_num(ln, d, "pool", s, UINT64_MAX, &rec->cap.pool);
}
static int get_handle(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_num(ln, d, "handle", s, UINT64_MAX, &rec->cap.handle);
}
static int get_offset(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  num_status st = num_size_in(s, 0, UINT64_MAX, &rec->cap.offset);
  return st == NUM_OK ? 0 : bad_number(ln, d, "offset", s, st, NUM_SIZE, 0, UINT64_MAX);
}
static int get_keep(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  num_status st = num_size_in(s, 0, UINT64_MAX, &rec->size);
  return st == NUM_OK ? 0 : bad_number(ln, d, "keep", s, st, NUM_SIZE, 0, UINT64_MAX);
}
static int get_stream(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  uint64_t v;
  if (get_num(ln, d, "stream", s, UINT32_MAX, &v)) return -1;
  rec->stream = (uint32_t)v;
  return 0;
}
static int get_kind(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_word(ln, d, "kind", s, trace_mem_kind_names, &rec->cap.mem);
}

/* X[,Y[,Z]]: each 1..2^31-1, the missing ones 1. */
static int get_dim3(const trace_line *ln, diag *d, const char *what, const char *s, uint32_t v[3]) {
  char q[48];
  v[0] = v[1] = v[2] = 1;
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    const char *comma = strchr(p, ',');
    const char *end = comma ? comma : p + strlen(p);
    uint64_t x;
    if (num_span_whole(p, end, &x) || x < 1 || x > INT32_MAX || (comma && i == 2))
      return diag_set(d, ln->file, ln->no, "%s: '%s' is not X[,Y[,Z]] of 1..2147483647 each", what,
                      num_quote(s, q, sizeof q));
    v[i] = (uint32_t)x;
    if (!comma) break;
    p = comma + 1;
  }
  return 0;
}
static int get_grid(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_dim3(ln, d, "grid", s, rec->cap.grid);
}
static int get_block(const trace_line *ln, diag *d, const char *s, trace_record *rec) {
  return get_dim3(ln, d, "block", s, rec->cap.block);
}

#define PUT(...) snprintf(s, n, __VA_ARGS__)
static int put_time(const trace_record *r, char *s, size_t n) { return PUT(" t=%llu", (unsigned long long)r->cap.time_ns); }
static int put_dur(const trace_record *r, char *s, size_t n) { return PUT(" dur=%llu", (unsigned long long)r->cap.dur_ns); }
static int put_va(const trace_record *r, char *s, size_t n) { return PUT(" va=%#llx", (unsigned long long)r->cap.va); }
static int put_dev(const trace_record *r, char *s, size_t n) { return PUT(" dev=%u", r->cap.device); }
static int put_pool(const trace_record *r, char *s, size_t n) { return PUT(" pool=%llu", (unsigned long long)r->cap.pool); }
static int put_handle(const trace_record *r, char *s, size_t n) {
  return PUT(" handle=%llu", (unsigned long long)r->cap.handle);
}
static int put_offset(const trace_record *r, char *s, size_t n) {
  return PUT(" offset=%#llx", (unsigned long long)r->cap.offset);
}
static int put_keep(const trace_record *r, char *s, size_t n) { return PUT(" keep=%llu", (unsigned long long)r->size); }
static int put_stream(const trace_record *r, char *s, size_t n) { return PUT(" stream=%u", r->stream); }
static int put_kind(const trace_record *r, char *s, size_t n) {
  return PUT(" kind=%s", r->cap.mem <= TRACE_MEM_PINNED ? trace_mem_kind_names[r->cap.mem] : "?");
}
static int put_grid(const trace_record *r, char *s, size_t n) {
  return PUT(" grid=%u,%u,%u", r->cap.grid[0], r->cap.grid[1], r->cap.grid[2]);
}
static int put_block(const trace_record *r, char *s, size_t n) {
  return PUT(" block=%u,%u,%u", r->cap.block[0], r->cap.block[1], r->cap.block[2]);
}
#undef PUT

/* The kind= option has no attribute bit: a record has it when it is not
 * device memory (kind=device reads as no kind=). */
#define HAS_KIND 0

typedef struct cap_opt {
  const char *name;
  uint64_t bit; /* the TRACE_HAS_* it sets */
  cap_get_fn *get;
  cap_put_fn *put;
} cap_opt;

static const cap_opt cap_opts[] = {
    {"kind", HAS_KIND, get_kind, put_kind},
    {"va", TRACE_HAS_VA, get_va, put_va},
    {"pool", TRACE_HAS_POOL, get_pool, put_pool},
    {"handle", TRACE_HAS_HANDLE, get_handle, put_handle},
    {"offset", TRACE_HAS_OFFSET, get_offset, put_offset},
    {"keep", TRACE_HAS_KEEP, get_keep, put_keep},
    {"grid", TRACE_HAS_GRID, get_grid, put_grid},
    {"block", TRACE_HAS_BLOCK, get_block, put_block},
    {"stream", TRACE_HAS_STREAM, get_stream, put_stream},
    {"dev", TRACE_HAS_DEV, get_dev, put_dev},
    {"t", TRACE_HAS_TIME, get_time, put_time},
    {"dur", TRACE_HAS_DUR, get_dur, put_dur},
};
#define NCAP_OPTS (sizeof cap_opts / sizeof cap_opts[0])

static const cap_opt *find_cap_opt(const char *name) {
  for (size_t i = 0; i < NCAP_OPTS; i++)
    if (!strcmp(cap_opts[i].name, name)) return &cap_opts[i];
  return NULL;
}

const char *trace_cap_problem(const trace_record *rec) {
  uint64_t a = rec->cap.attrs;
  if (rec->kind == REC_MAP && (a & TRACE_HAS_HANDLE) && rec->has_frame) return "map takes frame= or handle=, not both";
  if (rec->kind == REC_MAP && (a & TRACE_HAS_OFFSET) && !(a & TRACE_HAS_HANDLE))
    return "offset= is an offset into a handle: it needs handle=";
  if (rec->kind == REC_POOL && (a & TRACE_HAS_KEEP) && rec->cap.op != TRACE_POOL_TRIM)
    return "keep= goes with pool ... trim only";
  if (rec->kind == REC_POOL && (a & TRACE_HAS_VA) && rec->cap.op != TRACE_POOL_CREATE)
    return "va= goes with pool ... create only";
  return NULL;
}

static int check_cap(const trace_line *ln, const trace_record *rec, diag *d) {
  const char *why = trace_cap_problem(rec);
  return why ? diag_set(d, ln->file, ln->no, "%s", why) : 0;
}

/* The capture options of a record: every option after the builder's own. */
static int capture_opts(const trace_line *ln, const record_spec *r, const fields *f, trace_record *rec, diag *d) {
  for (unsigned k = r->nown; k < MAX_OPTS && r->opts[k]; k++) {
    if (!f->opt[k]) continue;
    const cap_opt *o = find_cap_opt(r->opts[k]);
    if (o->get(ln, d, f->opt[k], rec)) return -1;
    rec->cap.attrs |= o->bit;
  }
  return check_cap(ln, rec, d);
}

/* Appends the capture options rec has, in the spec's order, to s[len, n). */
static int put_capture_opts(const record_spec *r, const trace_record *rec, char *s, int len, size_t n) {
  for (unsigned k = r->nown; len > 0 && k < MAX_OPTS && r->opts[k]; k++) {
    const cap_opt *o = find_cap_opt(r->opts[k]);
    bool has = o->bit == HAS_KIND ? rec->cap.mem != TRACE_MEM_DEVICE : (rec->cap.attrs & o->bit) != 0;
    if (has) len += o->put(rec, s + len, n - (size_t)len);
  }
  return len;
}

/* The options every captured record may carry. */
static const record_spec *spec_of(trace_rec_kind k);
#define CAP_COMMON "dev", "t", "dur"

static const record_spec records[] = {
    {"r", build_read, 1, 1, {"ADDR", "SIZE"}, {"thread", "side"}, 2},
    {"w", build_write, 1, 1, {"ADDR", "SIZE"}, {"thread", "side"}, 2},
    {"x", build_exec, 1, 1, {"ADDR", "SIZE"}, {"thread", "side"}, 2},
    {"alloc", build_alloc, 2, 0, {"ID", "SIZE"}, {"align", "stream", "kind", "va", "pool", CAP_COMMON}, 2},
    {"free", build_free, 1, 0, {"ID"}, {CAP_COMMON}, 0},
    {"map", build_map, 2, 0, {"VA", "SIZE"}, {"page", "prot", "frame", "handle", "offset", CAP_COMMON}, 3},
    {"unmap", build_unmap, 2, 0, {"VA", "SIZE"}, {CAP_COMMON}, 0},
    {"protect", build_protect, 2, 0, {"VA", "SIZE"}, {"prot", CAP_COMMON}, 1},
    {"ctx", build_ctx, 1, 0, {"ASID"}, {NULL}, 0},
    {"mark", build_mark, 1, 0, {"LABEL"}, {"grid", "block", "stream", CAP_COMMON}, 0},
    {"pool", build_pool, 2, 0, {"POOL", "OP"}, {"va", "keep", "dev", "t"}, 0},
    {"reserve", build_reserve, 2, 0, {"VA", "SIZE"}, {"align", CAP_COMMON}, 1},
    {"unreserve", build_unreserve, 2, 0, {"VA", "SIZE"}, {CAP_COMMON}, 0},
    {"handle", build_handle, 2, 0, {"HANDLE", "SIZE"}, {CAP_COMMON}, 0},
    {"release", build_release, 1, 0, {"HANDLE"}, {CAP_COMMON}, 0},
    {"meminfo", build_meminfo, 2, 0, {"FREE", "TOTAL"}, {"dev", "t"}, 0},
    {"prefetch", build_prefetch, 2, 0, {"ADDR", "SIZE"}, {"to", "stream", CAP_COMMON}, 1},
    {"advise", build_advise, 2, 0, {"ADDR", "SIZE"}, {"advice", CAP_COMMON}, 1},
};
#define NRECORDS (sizeof records / sizeof records[0])

/* ---- line shape -------------------------------------------------------- */

static const record_spec *find_record(const char *word) {
  for (size_t i = 0; i < NRECORDS; i++)
    if (!strcmp(word, records[i].name)) return &records[i];
  return NULL;
}

/* Cuts the line into NUL-terminated fields in place, up to a # field. */
static int split(const trace_line *ln, char **field, size_t *n, diag *d) {
  char *p = ln->text, *end = p + ln->len;
  *n = 0;
  for (;;) {
    while (p < end && trace_is_blank(*p)) p++;
    if (p == end || *p == '#') return 0;
    if (*n == MAX_FIELDS)
      return diag_set(d, ln->file, ln->no, "too many fields (no record has more than %d)",
                      MAX_FIELDS);
    field[(*n)++] = p;
    while (p < end && !trace_is_blank(*p))
      if (*p++ == '\0') return diag_set(d, ln->file, ln->no, "a NUL byte inside a field");
    *p = '\0'; /* a blank, or the NUL already at text[len] */
    if (p < end) p++;
  }
}

static int usage_error(const trace_line *ln, diag *d, const record_spec *r, const char *what,
                       const char *field) {
  char usage[256];
  size_t n = (size_t)snprintf(usage, sizeof usage, "%s", r->name);
  for (unsigned i = 0; i < (unsigned)(r->nreq + r->nopt) && n < sizeof usage; i++)
    n += (size_t)snprintf(usage + n, sizeof usage - n, i < r->nreq ? " %s" : " [%s]", r->args[i]);
  for (unsigned i = 0; i < MAX_OPTS && r->opts[i] && n < sizeof usage; i++)
    n += (size_t)snprintf(usage + n, sizeof usage - n, " [%s=...]", r->opts[i]);
  char ex[48];
  return diag_set(d, ln->file, ln->no, "%s%s%s%s (usage: %s)", what, field ? " '" : "",
                  field ? trace_excerpt(field, strlen(field), ex, sizeof ex) : "",
                  field ? "'" : "", usage);
}

/* Sorts the fields after the keyword into positionals and options. */
static int shape(const trace_line *ln, const record_spec *r, char **field, size_t n, fields *f,
                 diag *d) {
  memset(f, 0, sizeof *f);
  size_t i = 1;
  for (; i < n && !strchr(field[i], '='); i++) {
    if (f->npos == (size_t)(r->nreq + r->nopt))
      return usage_error(ln, d, r, "unexpected field", field[i]);
    f->pos[f->npos++] = field[i];
  }
  if (f->npos < r->nreq) {
    char what[32];
    snprintf(what, sizeof what, "missing %s", r->args[f->npos]);
    return usage_error(ln, d, r, what, NULL);
  }
  for (; i < n; i++) {
    char *eq = strchr(field[i], '=');
    if (!eq) return usage_error(ln, d, r, "positional field after an option", field[i]);
    *eq = '\0';
    size_t k = 0;
    while (k < MAX_OPTS && r->opts[k] && strcmp(r->opts[k], field[i])) k++;
    *eq = '=';
    if (k == MAX_OPTS || !r->opts[k]) return usage_error(ln, d, r, "unknown option", field[i]);
    if (f->opt[k]) return usage_error(ln, d, r, "repeated option", field[i]);
    f->opt[k] = eq + 1;
  }
  return 0;
}

/* "#tlbsim-trace N": the optional version line. Other # lines are comments. */
static int version_line(const trace_line *ln, diag *d) {
  const char *p = ln->text + 13, *end = ln->text + ln->len;
  uint64_t v;
  while (p < end && trace_is_blank(*p)) p++;
  const char *num = p;
  if (num_scan_dec(&p, end, &v)) return diag_set(d, ln->file, ln->no, "version line needs a number");
  while (p < end && trace_is_blank(*p)) p++;
  if (p != end || v != TRACE_VERSION)
    return diag_set(d, ln->file, ln->no, "unsupported trace version '%.*s' (tlbsim reads %d)",
                    (int)(end - num > 16 ? 16 : end - num), num, TRACE_VERSION);
  return 0;
}

static bool is_version_line(const char *s, size_t len) {
  return len >= 13 && !memcmp(s, "#tlbsim-trace", 13) && (len == 13 || trace_is_blank(s[13]));
}

/* An access's thread (its thread=, else the reader's default): a
 * REC_THREAD goes ahead of it when that is not the last access's. */
static int emit_thread(const trace_line *ln, const fields *f, trace_block *b, diag *d) {
  uint64_t t = ln->thread_default;
  if (f->opt[0] && get_num(ln, d, "thread", f->opt[0], TRACE_THREAD_MAX - 1, &t)) return -1;
  if (t != *ln->thread_now) {
    *ln->thread_now = (uint32_t)t;
    trace_emit_thread(b, (uint32_t)t, ln->no);
  }
  return 0;
}

/* The device's absolute accesses go to the block compactly, everything
 * else (the host's accesses too: they are rare) whole. */
static void emit(trace_block *b, const trace_record *rec) {
  if (rec->kind == REC_ACCESS && !rec->relative && rec->cap.op == UVM_GPU) trace_emit_access(b, rec->access, rec->addr, rec->size, rec->line);
  else *trace_emit_other(b, rec->kind, rec->line) = *rec;
}

/* "r, w, x, alloc, ..., or advise": every keyword. */
static const char *keyword_list(char *buf, size_t n) {
  size_t len = 0;
  for (size_t i = 0; i < NRECORDS && len < n; i++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", i == 0 ? "" : i + 1 == NRECORDS ? " or " : ", ",
                            records[i].name);
  return buf;
}

int trace_native_parse(const trace_line *ln, trace_block *b, diag *d) {
  if (is_version_line(ln->text, ln->len)) return version_line(ln, d);
  char *field[MAX_FIELDS];
  size_t n;
  if (split(ln, field, &n, d)) return -1;
  if (n == 0) return 0;
  const record_spec *r = find_record(field[0]);
  if (!r) {
    char ex[48], list[192];
    return diag_set(d, ln->file, ln->no, "unknown record '%s' (expected %s)",
                    trace_excerpt(field[0], strlen(field[0]), ex, sizeof ex), keyword_list(list, sizeof list));
  }
  fields f;
  trace_record rec;
  if (shape(ln, r, field, n, &f, d) || r->build(ln, &f, &rec, d) < 0) return -1;
  if (rec.kind == REC_ACCESS && emit_thread(ln, &f, b, d)) return -1;
  if (rec.kind != REC_ACCESS &&
      (capture_opts(ln, r, &f, &rec, d) || trace_clock_check(ln->clock, &rec, ln->file, d)))
    return -1;
  emit(b, &rec);
  return 0;
}

bool trace_native_sniff(const char *s, size_t len) {
  if (is_version_line(s, len)) return true;
  size_t b = 0;
  while (b < len && trace_is_blank(s[b])) b++;
  size_t i = b;
  while (i < len && !trace_is_blank(s[i])) i++;
  char word[16];
  if (i - b >= sizeof word) return false;
  memcpy(word, s + b, i - b);
  word[i - b] = '\0';
  return find_record(word) != NULL;
}

/* ---- writing ------------------------------------------------------------ */

static const char *prot_text(uint8_t prot, char buf[4]) {
  if (!prot) return "none";
  buf[0] = prot & PT_R ? 'r' : '-', buf[1] = prot & PT_W ? 'w' : '-', buf[2] = prot & PT_X ? 'x' : '-';
  buf[3] = '\0';
  return buf;
}

static const record_spec *spec_of(trace_rec_kind k) {
  static const char *const names[] = {[REC_ALLOC] = "alloc",         [REC_FREE] = "free",       [REC_MAP] = "map",
                                      [REC_UNMAP] = "unmap",         [REC_PROTECT] = "protect", [REC_MARK] = "mark",
                                      [REC_POOL] = "pool",           [REC_RESERVE] = "reserve",
                                      [REC_UNRESERVE] = "unreserve", [REC_HANDLE] = "handle",
                                      [REC_RELEASE] = "release",     [REC_MEMINFO] = "meminfo",
                                      [REC_PREFETCH] = "prefetch",   [REC_ADVISE] = "advise"};
  return (unsigned)k < sizeof names / sizeof *names && names[k] ? find_record(names[k]) : NULL;
}

size_t trace_native_encode(const trace_record *rec, trace_enc *st, uint8_t *out, const char **why) {
  static const char access_word[] = {[TRACE_READ] = 'r', [TRACE_WRITE] = 'w', [TRACE_EXEC] = 'x'};
  char *s = (char *)out, p[4];
  const size_t n = TRACE_ENC_MAX;
  unsigned long long addr = rec->addr, size = rec->size;
  int len = -1;
  switch (rec->kind) {
  case REC_ACCESS:
    if (rec->relative)
      len = snprintf(s, n, "%c @%llu+%#llx %llu", access_word[rec->access], (unsigned long long)rec->alloc_id, addr,
                     size);
    else len = snprintf(s, n, "%c %#llx %llu", access_word[rec->access], addr, size);
    if (st->thread) len += snprintf(s + len, n - (size_t)len, " thread=%u", st->thread);
    if (rec->cap.op > UVM_HOST) len = -1;
    else if (rec->cap.op) len += snprintf(s + len, n - (size_t)len, " side=%s", uvm_side_names[rec->cap.op]);
    break;
  case REC_ALLOC:
    len = snprintf(s, n, "alloc %llu %llu", (unsigned long long)rec->alloc_id, size);
    if (rec->align) len += snprintf(s + len, n - (size_t)len, " align=%llu", (unsigned long long)rec->align);
    if (rec->stream) len += snprintf(s + len, n - (size_t)len, " stream=%u", rec->stream);
    break;
  case REC_FREE: len = snprintf(s, n, "free %llu", (unsigned long long)rec->alloc_id); break;
  case REC_MAP:
    len = snprintf(s, n, "map %#llx %llu", addr, size);
    if (rec->page_size) len += snprintf(s + len, n - (size_t)len, " page=%llu", (unsigned long long)rec->page_size);
    len += snprintf(s + len, n - (size_t)len, " prot=%s", prot_text(rec->prot, p));
    if (rec->has_frame) len += snprintf(s + len, n - (size_t)len, " frame=%llu", (unsigned long long)rec->frame);
    break;
  case REC_UNMAP: len = snprintf(s, n, "unmap %#llx %llu", addr, size); break;
  case REC_PROTECT: len = snprintf(s, n, "protect %#llx %llu prot=%s", addr, size, prot_text(rec->prot, p)); break;
  case REC_CTX: len = snprintf(s, n, "ctx %u", rec->asid); break;
  case REC_MARK: len = snprintf(s, n, "mark %.*s", TRACE_LABEL_MAX - 1, rec->label); break;
  case REC_THREAD: st->thread = rec->thread; return 0; /* written as the accesses' thread= */
  case REC_POOL:
    if (rec->cap.op > TRACE_POOL_DESTROY) break;
    len = snprintf(s, n, "pool %llu %s", (unsigned long long)rec->cap.pool, trace_pool_op_names[rec->cap.op]);
    break;
  case REC_RESERVE:
    len = snprintf(s, n, "reserve %#llx %llu", addr, size);
    if (rec->align) len += snprintf(s + len, n - (size_t)len, " align=%llu", (unsigned long long)rec->align);
    break;
  case REC_UNRESERVE: len = snprintf(s, n, "unreserve %#llx %llu", addr, size); break;
  case REC_HANDLE: len = snprintf(s, n, "handle %llu %llu", (unsigned long long)rec->cap.handle, size); break;
  case REC_RELEASE: len = snprintf(s, n, "release %llu", (unsigned long long)rec->cap.handle); break;
  case REC_MEMINFO: len = snprintf(s, n, "meminfo %llu %llu", size, (unsigned long long)rec->cap.total); break;
  case REC_PREFETCH:
    if (rec->cap.op > UVM_HOST) break;
    len = snprintf(s, n, "prefetch %#llx %llu to=%s", addr, size, uvm_side_names[rec->cap.op]);
    break;
  case REC_ADVISE:
    if (rec->cap.op >= UVM_ADVICE_COUNT) break;
    len = snprintf(s, n, "advise %#llx %llu advice=%s", addr, size, uvm_advice_names[rec->cap.op]);
    break;
  }
  const record_spec *r = spec_of(rec->kind);
  if (r) len = put_capture_opts(r, rec, s, len, n);
  if (len > 0) len += snprintf(s + len, n - (size_t)len, "\n");
  if (len <= 0) *why = "an unknown record kind, access side, pool op, prefetch target or advice";
  return len > 0 ? (size_t)len : 0;
}

uint64_t trace_cap_allowed(trace_rec_kind kind, bool *takes_kind) {
  const record_spec *r = spec_of(kind);
  uint64_t bits = 0;
  *takes_kind = false;
  for (unsigned k = r ? r->nown : MAX_OPTS; k < MAX_OPTS && r->opts[k]; k++) {
    const cap_opt *o = find_cap_opt(r->opts[k]);
    bits |= o->bit;
    *takes_kind = *takes_kind || o->bit == HAS_KIND;
  }
  return bits;
}
