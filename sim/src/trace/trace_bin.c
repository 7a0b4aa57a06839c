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

#include "tlbsim/pt.h"

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
  NCODES
} record_code;

/* ---- decoding ------------------------------------------------------------ */

_Static_assert(TRACE_THREAD_MAX == 64, "decode_other's message names the thread limit");

/* A LEB128 number of at most 64 bits (ten bytes); NULL if longer or wider. */
static inline const uint8_t *get_num(const uint8_t *p, uint64_t *v) {
  if (*p < 0x80) {
    *v = *p;
    return p + 1;
  }
  uint64_t x = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    uint8_t c = *p++;
    x |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      if (shift == 63 && c > 1) return NULL;
      *v = x;
      return p;
    }
  }
  return NULL;
}

static int bad(const trace_bytes *in, diag *d, const char *what) {
  return diag_set(d, in->file, in->recno, "binary record %lu: %s", in->recno, what);
}

/* Reads n numbers into v; -1 on an overlong one. */
static int get_nums(trace_bytes *in, diag *d, uint64_t *v, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (!(in->p = get_num(in->p, &v[i]))) return bad(in, d, "a number longer than 64 bits");
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
  static const trace_rec_kind kind_of[NCODES] = {REC_ACCESS, REC_ALLOC,   REC_FREE, REC_MAP,   REC_UNMAP,
                                                 REC_PROTECT, REC_CTX, REC_MARK, REC_THREAD};
  static const uint8_t nums_of[NCODES] = {4, 4, 1, 4, 2, 3, 1, 0, 1};
  if (code >= NCODES) return bad(in, d, "an unknown record code");
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
  case NCODES: break;
  }
  return bad(in, d, "an unknown record code");
}

/* The rare records, out of line: so the access loop keeps its registers. */
__attribute__((noinline)) static int decode_slow(trace_bytes *in, unsigned tag, trace_block *b, diag *d) {
  if (tag & TAG_RESERVED && (tag & 3) != TAG_OTHER) return bad(in, d, "reserved tag bits set");
  trace_record rec;
  if (decode_other(in, tag >> 2, &rec, d)) return -1;
  if (in->p > in->end) return bad(in, d, "cut off at the end of the input");
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
      if (!(p = get_num(p, &z))) {
        in->p = p;
        rc = bad(in, d, "a number longer than 64 bits");
        break;
      }
      delta = z >> 1 ^ -(z & 1); /* zigzag: 0, -1, 1, -2, ... */
    }
    addr += delta;
    unsigned code = tag >> TAG_SIZE_SHIFT & 7;
    uint64_t size = UINT64_C(1) << code;
    if (code == TAG_SIZE_VARINT && !(p = get_num(p, &size))) {
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

static uint8_t *put_num(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

static uint8_t *put_nums(uint8_t *p, const uint64_t *v, unsigned n) {
  for (unsigned i = 0; i < n; i++) p = put_num(p, v[i]);
  return p;
}

static size_t encode_access(const trace_record *rec, trace_enc *st, uint8_t *out) {
  uint8_t *p = out + 1;
  unsigned code = TAG_SIZE_VARINT;
  if (is_pow2(rec->size) && rec->size <= 64) code = log2_u64(rec->size);
  uint64_t delta = rec->addr - st->prev_addr;
  unsigned tag = (unsigned)rec->access | code << TAG_SIZE_SHIFT;
  if (delta == st->prev_delta) tag |= TAG_REPEAT;
  else p = put_num(p, delta << 1 ^ (uint64_t)-(int64_t)(delta >> 63)); /* zigzag */
  if (code == TAG_SIZE_VARINT) p = put_num(p, rec->size);
  st->prev_addr = rec->addr;
  st->prev_delta = delta;
  out[0] = (uint8_t)tag;
  return (size_t)(p - out);
}

size_t trace_bin_encode(const trace_record *rec, trace_enc *st, uint8_t *out, const char **why) {
  (void)why; /* every record fits */
  uint8_t *p = out + 1;
  record_code code;
  switch (rec->kind) {
  case REC_ACCESS:
    if (!rec->relative) return encode_access(rec, st, out);
    code = CODE_RELATIVE;
    p = put_nums(p, (const uint64_t[]){rec->access, rec->alloc_id, rec->addr, rec->size}, 4);
    break;
  case REC_ALLOC:
    code = CODE_ALLOC;
    p = put_nums(p, (const uint64_t[]){rec->alloc_id, rec->size, rec->align, rec->stream}, 4);
    break;
  case REC_FREE: code = CODE_FREE, p = put_num(p, rec->alloc_id); break;
  case REC_MAP:
    code = CODE_MAP;
    p = put_nums(p, (const uint64_t[]){rec->addr, rec->size, rec->page_size}, 3);
    p = put_num(p, rec->prot | (rec->has_frame ? MAP_HAS_FRAME : 0));
    if (rec->has_frame) p = put_num(p, rec->frame);
    break;
  case REC_UNMAP: code = CODE_UNMAP, p = put_nums(p, (const uint64_t[]){rec->addr, rec->size}, 2); break;
  case REC_PROTECT: code = CODE_PROTECT, p = put_nums(p, (const uint64_t[]){rec->addr, rec->size, rec->prot}, 3); break;
  case REC_CTX: code = CODE_CTX, p = put_num(p, rec->asid); break;
  case REC_THREAD: code = CODE_THREAD, p = put_num(p, rec->thread); break;
  case REC_MARK: {
    size_t len = strnlen(rec->label, TRACE_LABEL_MAX - 1);
    code = CODE_MARK;
    p = put_num(p, len);
    memcpy(p, rec->label, len);
    p += len;
    break;
  }
  default: *why = "an unknown record kind"; return 0;
  }
  out[0] = (uint8_t)(code << 2 | TAG_OTHER);
  return (size_t)(p - out);
}
