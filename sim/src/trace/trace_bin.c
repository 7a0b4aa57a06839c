/* trace_bin.c — tlbsim's binary trace format (traces/FORMAT.md, "Binary
 * format"): an 8-byte header, then records of one tag byte and LEB128
 * numbers. An access is its tag alone when its address moves by the same
 * delta as the access before (a stride), else the tag and the delta
 * (zigzag): one or two bytes for most accesses of a real trace.
 *
 * Tag of an access:  bits 0-1 kind (0 r, 1 w, 2 x); bits 2-4 size code
 *                    (size 1 << code; 7: a size number follows the
 *                    address); bit 5 repeat (no delta follows); bits 6-7 0.
 * Tag of the rest:   bits 0-1 = 3; bits 2-7 the record code (record_code).
 *
 * The decoder reads from padded input without end tests and checks once
 * per record that it stayed inside what was there (trace_bytes).
 */
#include "trace_fmt.h"

#include <string.h>

#include "tlbsim/num.h"
#include "tlbsim/pt.h"
#include "tlbsim/uvm.h"

const uint8_t trace_bin_magic[TRACE_BIN_HEADER] = {0x89, 'T', 'L', 'B', 'T', 'R', 'C', 1};

enum { MAP_HAS_FRAME = 8 };
enum { TAG_OTHER = 3, TAG_SIZE_SHIFT = 2, TAG_SIZE_VARINT = 7, TAG_REPEAT = 1u << 5, TAG_RESERVED = 0xc0u };

/* The record codes of tags with kind 3, in order: each one's numbers. */
typedef enum {
  CODE_RELATIVE, /* ACCESS_KIND ID OFFSET SIZE: an access at an offset into allocation ID */
  CODE_ALLOC,    /* ID SIZE ALIGN STREAM */
  CODE_FREE,     /* ID */
  CODE_MAP,      /* VA SIZE PAGE PROT [FRAME] (PAGE 0: the configured default; PROT bit 3: FRAME follows) */
  CODE_UNMAP,    /* VA SIZE */
  CODE_PROTECT,  /* VA SIZE PROT */
  CODE_CTX,      /* ASID */
  CODE_MARK,     /* LENGTH, then that many label bytes */
  CODE_THREAD,   /* THREAD: the accesses after it are this thread's (or CPU's) */
  CODE_ATTRS,    /* FLAGS, then a number per flag: a capture's options of the record that follows */
  CODE_POOL,     /* POOL OP KEEP */
  CODE_RESERVE,  /* VA SIZE ALIGN */
  CODE_UNRESERVE, /* VA SIZE */
  CODE_HANDLE,   /* HANDLE SIZE */
  CODE_RELEASE,  /* HANDLE */
  CODE_MEMINFO,  /* FREE TOTAL */
  CODE_PREFETCH, /* VA SIZE TO */
  CODE_ADVISE,   /* VA SIZE ADVICE */
  CODE_HOST,     /* ACCESS ADDR SIZE: the host's access (side=host) */
  CODE_HOST_RELATIVE, /* ACCESS ID OFFSET SIZE: the host's, into an allocation */
  NCODES
} record_code;

/* CODE_ATTRS's FLAGS: TRACE_HAS_* bits 0-10 (t as a delta from the last
 * t=, grid and block three numbers each, keep none: the pool record holds
 * it), and bit 11: a memory kind number follows (kind=). */
enum { ATTR_KIND = 1u << 11, ATTR_ALL = (1u << 12) - 1 };

/* ---- decoding ------------------------------------------------------------ */

_Static_assert(TRACE_THREAD_MAX == 64, "decode_other's message names the thread limit");

static int bad(const trace_bytes *in, diag *d, const char *what) {
  return diag_set(d, in->file, in->recno, "binary record %lu: %s", in->recno, what);
}

/* Reads n numbers into v; -1 on an overlong one. */
static int get_nums(trace_bytes *in, diag *d, uint64_t *v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (!(in->p = num_get_leb128(in->p, &v[i]))) return bad(in, d, "a number longer than 64 bits");
  return 0;
}

static int check_range(const trace_bytes *in, diag *d, uint64_t addr, uint64_t size) {
  if (size == 0) return bad(in, d, "a size of 0");
  return addr + (size - 1) < addr ? bad(in, d, "a range that wraps past the top of memory") : 0;
}

static int check_prot(const trace_bytes *in, diag *d, uint64_t prot) {
  return prot > (PT_R | PT_W | PT_X) ? bad(in, d, "a protection beyond r, w and x") : 0;
}

static int check_pow2(const trace_bytes *in, diag *d, uint64_t v, const char *what) {
  return v && !is_pow2(v) ? bad(in, d, what) : 0;
}

static int check_u32(const trace_bytes *in, diag *d, uint64_t v) {
  return v > UINT32_MAX ? bad(in, d, "a stream or ASID beyond 32 bits") : 0;
}

static int decode_mark(trace_bytes *in, trace_record *rec, diag *d) {
  uint64_t len = 0; /* gcc -O2 cannot see get_nums sets it or fails */
  if (get_nums(in, d, &len, 1)) return -1;
  if (len == 0 || len >= TRACE_LABEL_MAX) return bad(in, d, "a mark label of 0 or more than 63 bytes");
  if (len > (uint64_t)(in->end - in->p)) return bad(in, d, "cut off at the end of the input");
  const char *why = trace_label_problem((const char *)in->p, (size_t)len);
  if (why) return bad(in, d, why);
  memcpy(rec->label, in->p, len);
  rec->label[len] = '\0';
  in->p += len;
  return 0;
}

/* A record of kind 3 (anything but an absolute access) into rec. */
static int decode_other(trace_bytes *in, unsigned code, trace_record *rec, diag *d) {
  static const trace_rec_kind kind_of[NCODES] = {
      REC_ACCESS,  REC_ALLOC,   REC_FREE,      REC_MAP,    REC_UNMAP,   REC_PROTECT,  REC_CTX,      REC_MARK,
      REC_THREAD,  REC_ACCESS,  REC_POOL,      REC_RESERVE, REC_UNRESERVE, REC_HANDLE, REC_RELEASE, REC_MEMINFO,
      REC_PREFETCH, REC_ADVISE, REC_ACCESS,  REC_ACCESS};
  static const uint8_t nums_of[NCODES] = {4, 4, 1, 4, 2, 3, 1, 0, 1, 0, 3, 3, 2, 2, 1, 2, 3, 3, 3, 4};
  if (code >= NCODES || code == CODE_ATTRS) return bad(in, d, "an unknown record code");
  uint64_t v[4];
  if (get_nums(in, d, v, nums_of[code])) return -1;
  memset(rec, 0, sizeof *rec);
  rec->kind = kind_of[code];
  rec->line = in->recno;
  switch ((record_code)code) {
  case CODE_RELATIVE:
    if (v[0] > TRACE_EXEC) return bad(in, d, "an access kind beyond 2");
    *rec = (trace_record){.kind = REC_ACCESS, .access = (trace_access)v[0], .relative = true, .alloc_id = v[1],
                          .addr = v[2], .size = v[3], .line = in->recno};
    return check_range(in, d, v[2], v[3]);
  case CODE_HOST:
  case CODE_HOST_RELATIVE: {
    bool rel = code == CODE_HOST_RELATIVE;
    if (v[0] > TRACE_EXEC) return bad(in, d, "an access kind beyond 2");
    *rec = (trace_record){.kind = REC_ACCESS, .access = (trace_access)v[0], .relative = rel,
                          .alloc_id = rel ? v[1] : 0, .addr = v[rel + 1], .size = v[rel + 2], .line = in->recno,
                          .cap.op = UVM_HOST};
    return check_range(in, d, rec->addr, rec->size);
  }
  case CODE_ALLOC:
    rec->alloc_id = v[0], rec->size = v[1], rec->align = v[2], rec->stream = (uint32_t)v[3];
    if (!v[1]) return bad(in, d, "a size of 0");
    return check_pow2(in, d, v[2], "an alignment that is not a power of two") || check_u32(in, d, v[3]) ? -1 : 0;
  case CODE_FREE: rec->alloc_id = v[0]; return 0;
  case CODE_MAP:
    rec->addr = v[0], rec->size = v[1], rec->page_size = v[2], rec->prot = (uint8_t)(v[3] & ~MAP_HAS_FRAME);
    rec->has_frame = v[3] & MAP_HAS_FRAME;
    if (rec->has_frame && get_nums(in, d, &rec->frame, 1)) return -1;
    if (check_range(in, d, v[0], v[1]) || check_pow2(in, d, v[2], "a page size that is not a power of two") ||
        check_prot(in, d, v[3] & ~(uint64_t)MAP_HAS_FRAME))
      return -1;
    return trace_map_whole_pages(rec) ? 0 : bad(in, d, "a map whose VA or SIZE is not a multiple of its page size");
  case CODE_UNMAP: rec->addr = v[0], rec->size = v[1]; return check_range(in, d, v[0], v[1]);
  case CODE_PROTECT:
    rec->addr = v[0], rec->size = v[1], rec->prot = (uint8_t)v[2];
    return check_range(in, d, v[0], v[1]) || check_prot(in, d, v[2]) ? -1 : 0;
  case CODE_CTX: rec->asid = (uint32_t)v[0]; return check_u32(in, d, v[0]);
  case CODE_MARK: return decode_mark(in, rec, d);
  case CODE_THREAD:
    rec->thread = (uint32_t)v[0];
    return v[0] >= TRACE_THREAD_MAX ? bad(in, d, "a thread id beyond 63") : 0;
  case CODE_POOL:
    rec->cap.pool = v[0], rec->size = v[2];
    if (v[1] > TRACE_POOL_DESTROY) return bad(in, d, "a pool operation beyond 2");
    rec->cap.op = (uint16_t)v[1];
    return 0;
  case CODE_RESERVE:
    rec->addr = v[0], rec->size = v[1], rec->align = v[2];
    return check_range(in, d, v[0], v[1]) || check_pow2(in, d, v[2], "an alignment that is not a power of two") ? -1 : 0;
  case CODE_UNRESERVE: rec->addr = v[0], rec->size = v[1]; return check_range(in, d, v[0], v[1]);
  case CODE_HANDLE: rec->cap.handle = v[0], rec->size = v[1]; return v[1] ? 0 : bad(in, d, "a size of 0");
  case CODE_RELEASE: rec->cap.handle = v[0]; return 0;
  case CODE_MEMINFO:
    rec->size = v[0], rec->cap.total = v[1];
    return !v[1] || v[0] > v[1] ? bad(in, d, "a memory sample whose FREE is more than its TOTAL (or TOTAL 0)") : 0;
  case CODE_PREFETCH:
  case CODE_ADVISE:
    rec->addr = v[0], rec->size = v[1];
    if (v[2] > (code == CODE_PREFETCH ? (uint64_t)UVM_HOST : UVM_ADVICE_COUNT - 1))
      return bad(in, d, code == CODE_PREFETCH ? "a prefetch target beyond 1" : "an advice beyond 8");
    rec->cap.op = (uint16_t)v[2];
    return check_range(in, d, v[0], v[1]);
  case CODE_ATTRS:
  case NCODES: break;
  }
  return bad(in, d, "an unknown record code");
}

/* What a CODE_ATTRS prefix says, before the record it goes with. */
typedef struct attrs {
  uint64_t flags;               /* TRACE_HAS_* and ATTR_KIND */
  uint64_t time_delta, dur, va, pool, handle, offset;
  uint32_t device, stream, grid[3], block[3];
  uint16_t mem;
} attrs;

static int decode_attrs(trace_bytes *in, attrs *a, diag *d) {
  *a = (attrs){0};
  if (get_nums(in, d, &a->flags, 1)) return -1;
  if (a->flags & ~(uint64_t)ATTR_ALL) return bad(in, d, "an attribute flag beyond bit 11");
  uint64_t *one[] = {&a->time_delta, &a->dur, &a->va, NULL, &a->pool, &a->handle, &a->offset};
  for (unsigned bit = 0; bit < 12; bit++) {
    uint64_t f = UINT64_C(1) << bit, v[3];
    if (!(a->flags & f) || f == TRACE_HAS_KEEP) continue;
    bool dim = f == TRACE_HAS_GRID || f == TRACE_HAS_BLOCK;
    if (get_nums(in, d, v, dim ? 3 : 1)) return -1;
    if (dim) {
      uint32_t *out = f == TRACE_HAS_GRID ? a->grid : a->block;
      for (int i = 0; i < 3; i++) out[i] = v[i] > UINT32_MAX ? 0 : (uint32_t)v[i];
      if (trace_dim3_problem(out)) return bad(in, d, trace_dim3_problem(out));
    } else if (f == TRACE_HAS_DEV || f == TRACE_HAS_STREAM) {
      if (check_u32(in, d, v[0])) return -1;
      *(f == TRACE_HAS_DEV ? &a->device : &a->stream) = (uint32_t)v[0];
    } else if (f == ATTR_KIND) {
      if (v[0] < 1 || v[0] > TRACE_MEM_PINNED) return bad(in, d, "a memory kind outside 1..3");
      a->mem = (uint16_t)v[0];
    } else {
      *one[bit] = v[0];
    }
  }
  return 0;
}

/* The prefix's options onto the record that follows it: the ones its kind
 * takes (the native format's table), t forward from the last one. */
static int apply_attrs(trace_bytes *in, const attrs *a, trace_record *rec, diag *d) {
  bool takes_kind;
  uint64_t has = a->flags & ~(uint64_t)ATTR_KIND, allowed = trace_cap_allowed(rec->kind, &takes_kind);
  if ((has & ~allowed) || (a->mem && !takes_kind))
    return bad(in, d, "an attribute the record that follows does not take");
  trace_capture *c = &rec->cap;
  c->attrs = has;
  if (has & TRACE_HAS_TIME) {
    if (in->prev_time + a->time_delta < in->prev_time) return bad(in, d, "a time past 2^64 ns");
    in->prev_time += a->time_delta;
    c->time_ns = in->prev_time;
  }
  c->dur_ns = a->dur, c->va = a->va, c->device = a->device, c->offset = a->offset, c->mem = a->mem;
  if (has & TRACE_HAS_POOL) c->pool = a->pool;
  if (has & TRACE_HAS_HANDLE) c->handle = a->handle;
  if (has & TRACE_HAS_STREAM) rec->stream = a->stream;
  memcpy(c->grid, a->grid, sizeof c->grid);
  memcpy(c->block, a->block, sizeof c->block);
  const char *why = trace_cap_problem(rec);
  return why ? bad(in, d, why) : 0;
}

/* The rare records, out of line: so the access loop keeps its registers. */
__attribute__((noinline)) static int decode_slow(trace_bytes *in, unsigned tag, trace_block *b, diag *d) {
  if (tag & TAG_RESERVED && (tag & 3) != TAG_OTHER) return bad(in, d, "reserved tag bits set");
  trace_record rec;
  if (tag >> 2 == CODE_ATTRS) {
    attrs a;
    if (decode_attrs(in, &a, d)) return -1;
    if (in->p >= in->end) return bad(in, d, "cut off at the end of the input");
    tag = *in->p++;
    if ((tag & 3) != TAG_OTHER || tag >> 2 == CODE_ATTRS)
      return bad(in, d, "attributes not followed by a record that takes them");
    if (decode_other(in, tag >> 2, &rec, d) || apply_attrs(in, &a, &rec, d)) return -1;
  } else if (decode_other(in, tag >> 2, &rec, d)) {
    return -1;
  }
  if (in->p > in->end) return bad(in, d, "cut off at the end of the input");
  if (rec.kind == REC_POOL && rec.size && !(rec.cap.attrs & TRACE_HAS_KEEP)) /* native's keep= is that flag */
    return bad(in, d, "a pool record's KEEP without the keep attribute");
  *trace_emit_other(b, rec.kind, in->recno) = rec;
  return 0;
}

int trace_bin_decode(trace_bytes *in, trace_block *b, diag *d) {
  const uint8_t *stop = in->end; /* where the last record that is surely whole may start */
  if (!in->last) stop = in->end - in->p > TRACE_BIN_RECORD_MAX ? in->end - TRACE_BIN_RECORD_MAX : in->p;
  uint64_t addr = in->prev_addr, delta = in->prev_delta;
  int rc = 0;
  while (in->p < stop && b->n < TRACE_BLOCK_MAX && b->nother < TRACE_BLOCK_OTHER_MAX) {
    const uint8_t *p = in->p;
    unsigned tag = *p++;
    in->recno++;
    if ((tag & 3) == TAG_OTHER || tag & TAG_RESERVED) {
      in->p = p;
      if ((rc = decode_slow(in, tag, b, d))) break;
      continue;
    }
    if (!(tag & TAG_REPEAT)) {
      uint64_t z;
      if (!(p = num_get_leb128(p, &z))) {
        in->p = p;
        rc = bad(in, d, "a number longer than 64 bits");
        break;
      }
      delta = num_unzigzag(z);
    }
    addr += delta;
    unsigned code = tag >> TAG_SIZE_SHIFT & 7;
    uint64_t size = UINT64_C(1) << code;
    if (code == TAG_SIZE_VARINT && !(p = num_get_leb128(p, &size))) {
      rc = bad(in, d, "a number longer than 64 bits");
      break;
    }
    in->p = p;
    if (p > in->end) {
      rc = bad(in, d, "cut off at the end of the input");
      break;
    }
    if (!size || addr + (size - 1) < addr) {
      rc = check_range(in, d, addr, size);
      break;
    }
    trace_emit_access(b, (trace_access)(tag & 3), addr, size, in->recno);
  }
  in->prev_addr = addr;
  in->prev_delta = delta;
  if (!rc && (b->n == TRACE_BLOCK_MAX || b->nother == TRACE_BLOCK_OTHER_MAX)) return TRACE_DECODE_FULL;
  return rc;
}

/* ---- encoding ------------------------------------------------------------ */

static uint8_t *put_nums(uint8_t *p, const uint64_t *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) p = num_put_leb128(p, v[i]);
  return p;
}

static size_t encode_access(const trace_record *rec, trace_enc *st, uint8_t *out) {
  uint8_t *p = out + 1;
  unsigned code = TAG_SIZE_VARINT;
  if (is_pow2(rec->size) && rec->size <= 64) code = log2_u64(rec->size);
  uint64_t delta = rec->addr - st->prev_addr;
  unsigned tag = (unsigned)rec->access | code << TAG_SIZE_SHIFT;
  if (delta == st->prev_delta) tag |= TAG_REPEAT;
  else p = num_put_leb128(p, num_zigzag(delta));
  if (code == TAG_SIZE_VARINT) p = num_put_leb128(p, rec->size);
  st->prev_addr = rec->addr;
  st->prev_delta = delta;
  out[0] = (uint8_t)tag;
  return (size_t)(p - out);
}

/* A capture's options as a CODE_ATTRS prefix (decode_attrs' order). */
static uint8_t *encode_attrs(const trace_record *rec, trace_enc *st, uint8_t *p) {
  const trace_capture *c = &rec->cap;
  uint64_t flags = c->attrs | (c->mem ? ATTR_KIND : 0);
  *p++ = (uint8_t)(CODE_ATTRS << 2 | TAG_OTHER);
  p = num_put_leb128(p, flags);
  if (flags & TRACE_HAS_TIME) {
    p = num_put_leb128(p, c->time_ns - st->prev_time); /* the reader checked the order */
    st->prev_time = c->time_ns;
  }
  if (flags & TRACE_HAS_DUR) p = num_put_leb128(p, c->dur_ns);
  if (flags & TRACE_HAS_VA) p = num_put_leb128(p, c->va);
  if (flags & TRACE_HAS_DEV) p = num_put_leb128(p, c->device);
  if (flags & TRACE_HAS_POOL) p = num_put_leb128(p, c->pool);
  if (flags & TRACE_HAS_HANDLE) p = num_put_leb128(p, c->handle);
  if (flags & TRACE_HAS_OFFSET) p = num_put_leb128(p, c->offset);
  if (flags & TRACE_HAS_GRID) p = put_nums(p, (const uint64_t[]){c->grid[0], c->grid[1], c->grid[2]}, 3);
  if (flags & TRACE_HAS_BLOCK) p = put_nums(p, (const uint64_t[]){c->block[0], c->block[1], c->block[2]}, 3);
  if (flags & TRACE_HAS_STREAM) p = num_put_leb128(p, rec->stream);
  if (flags & ATTR_KIND) p = num_put_leb128(p, c->mem);
  return p;
}

size_t trace_bin_encode(const trace_record *rec, trace_enc *st, uint8_t *out, const char **why) {
  if (rec->kind == REC_ACCESS && !rec->relative && rec->cap.op == UVM_GPU) return encode_access(rec, st, out);
  uint8_t *head = out;
  if (rec->cap.attrs || rec->cap.mem) head = encode_attrs(rec, st, out);
  uint8_t *p = head + 1;
  const trace_capture *c = &rec->cap;
  record_code code;
  switch (rec->kind) {
  case REC_ACCESS:
    if (rec->cap.op > UVM_HOST) {
      *why = "an access side beyond host";
      return 0;
    }
    code = rec->cap.op == UVM_HOST ? (rec->relative ? CODE_HOST_RELATIVE : CODE_HOST) : CODE_RELATIVE;
    if (rec->relative) p = put_nums(p, (const uint64_t[]){rec->access, rec->alloc_id, rec->addr, rec->size}, 4);
    else p = put_nums(p, (const uint64_t[]){rec->access, rec->addr, rec->size}, 3);
    break;
  case REC_ALLOC:
    code = CODE_ALLOC;
    p = put_nums(p, (const uint64_t[]){rec->alloc_id, rec->size, rec->align, rec->stream}, 4);
    break;
  case REC_FREE: code = CODE_FREE, p = num_put_leb128(p, rec->alloc_id); break;
  case REC_MAP:
    code = CODE_MAP;
    p = put_nums(p, (const uint64_t[]){rec->addr, rec->size, rec->page_size}, 3);
    p = num_put_leb128(p, rec->prot | (rec->has_frame ? MAP_HAS_FRAME : 0));
    if (rec->has_frame) p = num_put_leb128(p, rec->frame);
    break;
  case REC_UNMAP: code = CODE_UNMAP, p = put_nums(p, (const uint64_t[]){rec->addr, rec->size}, 2); break;
  case REC_PROTECT: code = CODE_PROTECT, p = put_nums(p, (const uint64_t[]){rec->addr, rec->size, rec->prot}, 3); break;
  case REC_CTX: code = CODE_CTX, p = num_put_leb128(p, rec->asid); break;
  case REC_THREAD: code = CODE_THREAD, p = num_put_leb128(p, rec->thread); break;
  case REC_MARK: {
    size_t len = strnlen(rec->label, TRACE_LABEL_MAX - 1);
    code = CODE_MARK;
    p = num_put_leb128(p, len);
    memcpy(p, rec->label, len);
    p += len;
    break;
  }
  case REC_POOL: code = CODE_POOL, p = put_nums(p, (const uint64_t[]){c->pool, c->op, rec->size}, 3); break;
  case REC_RESERVE: code = CODE_RESERVE, p = put_nums(p, (const uint64_t[]){rec->addr, rec->size, rec->align}, 3); break;
  case REC_UNRESERVE: code = CODE_UNRESERVE, p = put_nums(p, (const uint64_t[]){rec->addr, rec->size}, 2); break;
  case REC_HANDLE: code = CODE_HANDLE, p = put_nums(p, (const uint64_t[]){c->handle, rec->size}, 2); break;
  case REC_RELEASE: code = CODE_RELEASE, p = num_put_leb128(p, c->handle); break;
  case REC_MEMINFO: code = CODE_MEMINFO, p = put_nums(p, (const uint64_t[]){rec->size, c->total}, 2); break;
  case REC_PREFETCH:
  case REC_ADVISE:
    code = rec->kind == REC_PREFETCH ? CODE_PREFETCH : CODE_ADVISE;
    p = put_nums(p, (const uint64_t[]){rec->addr, rec->size, c->op}, 3);
    break;
  default: *why = "an unknown record kind"; return 0;
  }
  *head = (uint8_t)(code << 2 | TAG_OTHER);
  return (size_t)(p - out);
}
