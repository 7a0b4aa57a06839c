/* ktrace_fmt.h — what the kernel-trace reader's files share. Private to the
 * ktrace module.
 *
 * ktrace_in   one file's bytes (trace_src: plain or decompressed) in one
 *             fixed buffer, handed out as lines cut in place (text) or as
 *             runs of bytes with KTRACE_PAD zero bytes readable past the
 *             end (binary).
 * ktrace_optab the opcode strings seen so far, interned: their class and
 *             width decided once, found again by a hash of the string.
 * reader      the state ktrace.c (inputs, kernelslist), ktrace_text.c
 *             (Accel-Sim's text) and ktrace_bin.c (the binary form) share.
 */
#ifndef TLBSIM_KTRACE_FMT_H
#define TLBSIM_KTRACE_FMT_H

#include "tlbsim/ktrace.h"
#include "trace_src.h"

#include <string.h>

#define KTRACE_PAD 512

typedef struct ktrace_in {
  trace_src *src;
  char *name;          /* the file as errors name it */
  char *buf;           /* KTRACE_IN_BYTES + 1 + KTRACE_PAD */
  size_t start, end;   /* unread bytes: buf[start, end) */
  bool eof;            /* the source has nothing more */
  unsigned long no;    /* lines handed out (text) or records decoded (binary) */
} ktrace_in;

/* Opens path ("-": stdin) named `name` in errors: 0 or -1 with d set. */
int ktrace_in_open(ktrace_in *in, const char *path, const char *name, diag *d);
/* The next line, NUL-terminated in place, without its newline or a CR
 * before it: 1, 0 at the end, -1 with d set (a line longer than
 * TRACE_LINE_MAX, a read error). */
int ktrace_in_line(ktrace_in *in, char **line, size_t *len, diag *d);
/* At least `want` (<= KTRACE_IN_BYTES / 2) unread bytes in buf, or all that
 * is left; zeroes KTRACE_PAD bytes behind the end of the input: 0 or -1. */
int ktrace_in_fill(ktrace_in *in, size_t want, diag *d);
void ktrace_in_close(ktrace_in *in);
#define KTRACE_IN_BYTES (1u << 20)

/* Skips blanks. */
static inline const char *ktrace_blanks(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}
static inline bool ktrace_field_end(char c) { return c == ' ' || c == '\t' || c == '\0'; }

typedef struct ktrace_optab {
  ktrace_op *op;      /* KTRACE_OPS_MAX, allocated once: ktrace_tb keeps a pointer */
  uint32_t n;
  uint16_t *slot;     /* KTRACE_OP_SLOTS: id + 1, 0 empty */
} ktrace_optab;
#define KTRACE_OP_SLOTS (2 * KTRACE_OPS_MAX)

int ktrace_optab_init(ktrace_optab *t);
void ktrace_optab_free(ktrace_optab *t);
/* The id of the opcode s[0, len) (interned if new): >= 0; -1 when the
 * string is not an opcode (empty, too long, a byte outside [A-Za-z0-9_.])
 * and -2 when the table is full. */
int ktrace_optab_intern(ktrace_optab *t, const char *s, size_t len);
/* The hash of an opcode string s[0, len) (len < KTRACE_OP_NAME_MAX): its
 * first 16 bytes and its length, read in two words (the bytes past len are
 * masked off), so the hot path does not hash byte by byte. The caller keeps
 * 16 bytes at s readable (the input buffers' padding does). */
static inline uint32_t ktrace_op_hash(const char *s, size_t len) {
  uint64_t a, b;
  memcpy(&a, s, 8);
  memcpy(&b, s + 8, 8);
  a &= len >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << 8 * len) - 1;
  b &= len >= 16 ? ~UINT64_C(0) : len <= 8 ? 0 : (UINT64_C(1) << 8 * (len - 8)) - 1;
  uint64_t h = (a * 0x9e3779b97f4a7c15ull ^ b) * 0xc2b2ae3d27d4eb4full ^ len;
  return (uint32_t)(h >> 32);
}
/* The id of s[0, len) by its hash (interned if new), as ktrace_optab_intern. */
int ktrace_optab_find(ktrace_optab *t, const char *s, size_t len, uint32_t hash);

/* ---- the thread block under construction --------------------------------- */

/* Room in tb for one more warp (0 or -1 out of memory). */
int ktrace_tb_room_warp(ktrace_tb *tb);
/* Room for one more instruction and `addrs` more addresses: 0, -1 out of
 * memory, -2 past KTRACE_TB_INSTS_MAX or KTRACE_TB_ADDRS_MAX. */
int ktrace_tb_room(ktrace_tb *tb, uint32_t addrs);
/* Empties tb for block (x, y, z). */
void ktrace_tb_begin(ktrace_tb *tb, const ktrace_op *ops, uint32_t x, uint32_t y, uint32_t z);

/* An instruction a generator appends (tlbsim/kstream.h, kchase.h): what a
 * trace line gives, its class its opcode's. */
typedef struct ktrace_tb_inst {
  uint32_t pc, mask;
  uint16_t op;
  uint8_t ndst, nsrc;
  uint8_t dst[KTRACE_DST_MAX], src[KTRACE_SRC_MAX];
  uint8_t hold; /* ktrace_tb's hold (0: not known) */
} ktrace_tb_inst;
/* Begins warp w of the block (0 or -1 out of memory); its instructions are
 * those pushed until the next ktrace_tb_warp or ktrace_tb_warp_end. */
int ktrace_tb_warp(ktrace_tb *tb, uint32_t w);
void ktrace_tb_warp_end(ktrace_tb *tb);
/* Appends in with its naddr addresses (one per lane of in->mask, lowest
 * first) to the current warp: 0, -1 out of memory, -2 past the limits. */
int ktrace_tb_push(ktrace_tb *tb, const ktrace_tb_inst *in, const uint64_t *addr, uint32_t naddr);

/* ---- the reader ------------------------------------------------------------ */

typedef enum { KSRC_LIST, KSRC_TRACEG, KSRC_BINARY } ktrace_source;

/* Where a text kernel file is: after its header, the first line of what
 * follows may already have been read (the header ends at a '#' line). */
typedef struct ktrace_text_state {
  bool begin_pending;  /* the header ended at #BEGIN_TB: the first block has begun */
  bool done;           /* the file's blocks are all read */
} ktrace_text_state;

typedef struct ktrace_bin_state {
  uint64_t prev_addr;  /* per warp: addresses are deltas from the last first-lane address */
  uint32_t ops_defined;
  bool in_kernel;
} ktrace_bin_state;

struct ktrace_reader {
  ktrace_source source;
  char *path;           /* the input as errors name it */
  char *dir;            /* a kernelslist's directory, with a trailing '/' ("" for none) */
  ktrace_in list;       /* a kernelslist */
  ktrace_in in;         /* the kernel file being read, or the binary input */
  bool in_open;
  bool in_kernel;       /* a kernel was handed out whose blocks are not all read */
  bool single_done;     /* a lone .traceg: its kernel was handed out */
  ktrace_kernel k;
  char *kname, *knvbit, *kfile; /* k's strings */
  ktrace_text_state text;
  ktrace_bin_state bin;
  ktrace_optab ops;
  ktrace_tb *skip;      /* blocks of a kernel left unread are read into this */
  bool failed;
  diag err;
};

/* Replaces *dst with a copy of s[0, len): 0 or -1 out of memory. */
int ktrace_set_string(char **dst, const char *s, size_t len);

/* Text (ktrace_text.c): reads r->in's header into r->k; then its blocks. */
int ktrace_text_header(ktrace_reader *r, diag *d);
int ktrace_text_tb(ktrace_reader *r, ktrace_tb *tb, diag *d);

/* Binary (ktrace_bin.c): checks the header; then the next top-level record
 * (1 with *it, 0 at the end) and a kernel's blocks. */
extern const uint8_t ktrace_bin_magic[8];
int ktrace_bin_start(ktrace_reader *r, diag *d);
int ktrace_bin_next(ktrace_reader *r, ktrace_item *it, diag *d);
int ktrace_bin_tb(ktrace_reader *r, ktrace_tb *tb, diag *d);

/* The binary form's record tags and instruction head bits (ktrace_bin.c,
 * ktrace_write.c; traces/FORMAT.md, "Binary kernel traces"). */
enum {
  KBIN_OPCODE = 1, KBIN_MEMCPY, KBIN_KERNEL, KBIN_TB, KBIN_WARP, KBIN_KERNEL_END
};
enum {
  KBIN_PC_NEXT = 1u << 0,    /* pc = the previous instruction's + 16 (else a PC delta follows) */
  KBIN_MASK_SAME = 1u << 1,  /* mask = the previous instruction's (else MASK follows) */
  KBIN_OP_SAME = 1u << 2,    /* op = the previous instruction's (else OP follows) */
  KBIN_REGS_SAME = 1u << 3,  /* registers = the previous instruction's (else they follow) */
  KBIN_ADDRS = 1u << 4,      /* the instruction has addresses */
  KBIN_STRIDE = 1u << 5,     /* its addresses are BASE + k * STRIDE (else BASE and a delta per lane) */
  KBIN_HEAD_RESERVED = 0xc0u
};
#define KBIN_PC_STEP 16u  /* a SASS instruction's size since Maxwell */
#define KBIN_NAME_MAX TRACE_LINE_MAX

#endif
