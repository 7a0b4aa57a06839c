/* kstream.c — the stream kernel's thread blocks made in memory (see
 * tlbsim/kstream.h), through the kernel-trace module's block builder: its
 * machine code (gpu/results/h200/stream_pass/gpu_stream.sass) walked as a
 * warp runs it. */
#include "tlbsim/kstream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktrace_fmt.h"

#define UNROLL 4 /* STREAM_UNROLL of gpu_stream.cu */
#define RZ 255

/* Which lanes of those reaching an instruction run it (its guard predicate
 * as the trace shows it: the lanes where it is true). */
enum {
  G_ALL,  /* unguarded, or a guard every lane passes (the read's @P0 EXIT: the XOR is not the magic) */
  G_NONE, /* a guard no lane passes (passes > 0: the @!P0 EXIT or BRA that skips the kernel) */
  G_E0,   /* the lanes whose element u of the trip is below n: @!Pu of the loads, stores, XORs of u */
  G_E1,
  G_E2,
  G_E3,
  G_NEXT, /* the lanes with another trip: the loop's back branch */
  G_SKIP, /* the lanes with no element (t >= n): the pass's branch past the loop */
  G_MORE  /* every lane while another pass follows: the passes' back branch */
};

/* One instruction of the listing, as the tracer reports it (the
 * conventions of gpu/scripts/embed_sass.py): PC, opcode, the guard
 * predicate's text, what it means here, the destination register (-1:
 * none) and the source registers. tests/cli/kstream_sass.sh checks the
 * tables against the listing. */
/* The fields in the listing's column order, which the tables' rows follow and
 * tests/cli/kstream_sass.sh reads, then the stall count of the instruction's
 * control code (bits 105-108 of its 128 bits, the second word's 41-44:
 * cycles before the warp's next instruction may issue, ptxas's fixed-latency
 * waits; the trace's `hold`); 8 bytes of padding a row in a table of 118 rows. */
typedef struct sass { // NOLINT(clang-analyzer-optin.performance.Padding)
  uint16_t pc;
  const char *op;
  const char *pred;
  uint8_t guard;
  int16_t dst;
  uint8_t nsrc, src[5];
  uint8_t stall;
} sass;

/* _Z13stream_kernelILb0EEvPK5uint4PS0_mjPj (read), to the last EXIT. */
static const sass read_code[] = {
    {0x0000, "LDC", "", G_ALL, 1, 0, {0}, 1},
    {0x0010, "ULDC", "", G_ALL, -1, 0, {0}, 1},
    {0x0020, "ULDC.64", "", G_ALL, -1, 0, {0}, 1},
    {0x0030, "ISETP.NE.AND", "", G_ALL, -1, 1, {255}, 1},
    {0x0040, "IMAD.MOV.U32", "", G_ALL, 3, 3, {255, 255, 255}, 12},
    {0x0050, "BRA", "@!P0", G_NONE, -1, 0, {0}, 5},
    {0x0060, "IMAD.MOV.U32", "", G_ALL, 3, 3, {255, 255, 255}, 1},
    {0x0070, "UMOV", "", G_ALL, -1, 0, {0}, 6},
    {0x0080, "S2R", "", G_ALL, 20, 0, {0}, 1},
    {0x0090, "S2UR", "", G_ALL, -1, 0, {0}, 1},
    {0x00a0, "IMAD.MOV.U32", "", G_ALL, 21, 3, {255, 255, 255}, 1},
    {0x00b0, "ULDC.64", "", G_ALL, -1, 0, {0}, 1},
    {0x00c0, "UIADD3", "", G_ALL, -1, 0, {0}, 1},
    {0x00d0, "BSSY", "", G_ALL, -1, 0, {0}, 1},
    {0x00e0, "ULDC.64", "", G_ALL, -1, 0, {0}, 3},
    {0x00f0, "LDC", "", G_ALL, 23, 0, {0}, 8},
    {0x0100, "LDC", "", G_ALL, 0, 0, {0}, 1},
    {0x0110, "IMAD.WIDE.U32", "", G_ALL, 22, 2, {23, 20}, 3},
    {0x0120, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {22}, 2},
    {0x0130, "ISETP.LE.U32.AND", "", G_ALL, -1, 1, {0}, 2},
    {0x0140, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {23}, 13},
    {0x0150, "BRA", "@P0", G_SKIP, -1, 0, {0}, 5},
    {0x0160, "IMAD.MOV.U32", "", G_ALL, 21, 3, {255, 255, 22}, 2},
    {0x0170, "IMAD.MOV.U32", "", G_ALL, 20, 3, {255, 255, 23}, 7},
    {0x0180, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {21}, 1},
    {0x0190, "ULDC", "", G_ALL, -1, 0, {0}, 1},
    {0x01a0, "ULDC", "", G_ALL, -1, 0, {0}, 2},
    {0x01b0, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {20}, 1},
    {0x01c0, "UIMAD.WIDE.U32", "", G_ALL, -1, 0, {0}, 6},
    {0x01d0, "IADD3", "", G_ALL, 0, 2, {21, 255}, 4},
    {0x01e0, "IADD3.X", "", G_ALL, 2, 2, {20, 255}, 2},
    {0x01f0, "LDC.64", "@!P1", G_E0, 22, 0, {0}, 1},
    {0x0200, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {0}, 4},
    {0x0210, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {2}, 13},
    {0x0220, "LDC.64", "@!P0", G_E1, 24, 0, {0}, 1},
    {0x0230, "LEA", "@!P1", G_E0, 22, 2, {21, 22}, 4},
    {0x0240, "LEA.HI.X", "@!P1", G_E0, 23, 3, {21, 23, 20}, 2},
    {0x0250, "IADD3", "", G_ALL, 27, 2, {0, 255}, 3},
    {0x0260, "LDG.E.128.STRONG.GPU", "@!P1", G_E0, 4, 1, {22}, 1},
    {0x0270, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {27}, 2},
    {0x0280, "IADD3.X", "", G_ALL, 26, 2, {2, 255}, 4},
    {0x0290, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {26}, 2},
    {0x02a0, "LEA", "@!P0", G_E1, 28, 2, {0, 24}, 4},
    {0x02b0, "LEA.HI.X", "@!P0", G_E1, 29, 3, {0, 25, 2}, 5},
    {0x02c0, "LDG.E.128.STRONG.GPU", "@!P0", G_E1, 8, 1, {28}, 2},
    {0x02d0, "LDC.64", "@!P1", G_E2, 22, 0, {0}, 2},
    {0x02e0, "LEA", "@!P1", G_E2, 24, 2, {27, 22}, 4},
    {0x02f0, "LEA.HI.X", "@!P1", G_E2, 25, 3, {27, 23, 26}, 5},
    {0x0300, "LDG.E.128.STRONG.GPU", "@!P1", G_E2, 12, 1, {24}, 2},
    {0x0310, "IADD3", "", G_ALL, 24, 2, {27, 255}, 4},
    {0x0320, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {24}, 2},
    {0x0330, "IADD3.X", "", G_ALL, 25, 2, {26, 255}, 2},
    {0x0340, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {21}, 2},
    {0x0350, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {25}, 13},
    {0x0360, "LDC.64", "@!P0", G_E3, 22, 0, {0}, 2},
    {0x0370, "LEA", "@!P0", G_E3, 22, 2, {24, 22}, 4},
    {0x0380, "LEA.HI.X", "@!P0", G_E3, 23, 3, {24, 23, 25}, 5},
    {0x0390, "LDG.E.128.STRONG.GPU", "@!P0", G_E3, 16, 1, {22}, 1},
    {0x03a0, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {20}, 2},
    {0x03b0, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {0}, 4},
    {0x03c0, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {2}, 2},
    {0x03d0, "LOP3.LUT", "", G_ALL, 21, 3, {5, 4, 3}, 4},
    {0x03e0, "LOP3.LUT", "", G_ALL, 0, 3, {21, 6, 255}, 4},
    {0x03f0, "LOP3.LUT", "@!P0", G_E0, 3, 3, {0, 7, 255}, 2},
    {0x0400, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {27}, 4},
    {0x0410, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {26}, 2},
    {0x0420, "LOP3.LUT", "", G_ALL, 0, 3, {8, 3, 255}, 4},
    {0x0430, "LOP3.LUT", "", G_ALL, 0, 3, {10, 0, 9}, 4},
    {0x0440, "LOP3.LUT", "@!P1", G_E1, 3, 3, {0, 11, 255}, 2},
    {0x0450, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {24}, 4},
    {0x0460, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {25}, 2},
    {0x0470, "LOP3.LUT", "", G_ALL, 0, 3, {12, 3, 255}, 4},
    {0x0480, "LOP3.LUT", "", G_ALL, 0, 3, {14, 0, 13}, 4},
    {0x0490, "LOP3.LUT", "@!P0", G_E2, 3, 3, {0, 15, 255}, 2},
    {0x04a0, "IADD3", "", G_ALL, 21, 2, {24, 255}, 4},
    {0x04b0, "IADD3.X", "", G_ALL, 20, 2, {25, 255}, 2},
    {0x04c0, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {21}, 4},
    {0x04d0, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {20}, 2},
    {0x04e0, "LOP3.LUT", "", G_ALL, 0, 3, {16, 3, 255}, 4},
    {0x04f0, "LOP3.LUT", "", G_ALL, 0, 3, {18, 0, 17}, 4},
    {0x0500, "LOP3.LUT", "@!P1", G_E3, 3, 3, {0, 19, 255}, 3},
    {0x0510, "BRA", "@!P0", G_NEXT, -1, 0, {0}, 5},
    {0x0520, "BSYNC", "", G_ALL, -1, 0, {0}, 5},
    {0x0530, "BRA", "@!P2", G_MORE, -1, 0, {0}, 5},
    {0x0540, "ISETP.NE.AND", "", G_ALL, -1, 1, {3}, 13},
    {0x0550, "EXIT", "@P0", G_ALL, -1, 0, {0}, 5},
    {0x0560, "LDC.64", "", G_ALL, 2, 0, {0}, 1},
    {0x0570, "IMAD.MOV.U32", "", G_ALL, 5, 2, {255, 255}, 5},
    {0x0580, "STG.E", "", G_ALL, -1, 2, {2, 5}, 1},
    {0x0590, "EXIT", "", G_ALL, -1, 0, {0}, 5},
};

/* _Z13stream_kernelILb1EEvPK5uint4PS0_mjPj (copy), to the last EXIT. */
static const sass copy_code[] = {
    {0x0000, "LDC", "", G_ALL, 1, 0, {0}, 1},
    {0x0010, "ULDC", "", G_ALL, -1, 0, {0}, 2},
    {0x0020, "ISETP.NE.AND", "", G_ALL, -1, 1, {255}, 13},
    {0x0030, "EXIT", "@!P0", G_NONE, -1, 0, {0}, 5},
    {0x0040, "S2R", "", G_ALL, 32, 0, {0}, 1},
    {0x0050, "S2UR", "", G_ALL, -1, 0, {0}, 1},
    {0x0060, "ULDC", "", G_ALL, -1, 0, {0}, 1},
    {0x0070, "ULDC.64", "", G_ALL, -1, 0, {0}, 1},
    {0x0080, "UIMAD.WIDE.U32", "", G_ALL, -1, 0, {0}, 6},
    {0x0090, "IADD3", "", G_ALL, 32, 2, {32, 255}, 1},
    {0x00a0, "UMOV", "", G_ALL, -1, 0, {0}, 4},
    {0x00b0, "IMAD.X", "", G_ALL, 6, 2, {255, 255}, 8},
    {0x00c0, "LDC", "", G_ALL, 0, 0, {0}, 1},
    {0x00d0, "ULDC.64", "", G_ALL, -1, 0, {0}, 1},
    {0x00e0, "UIADD3", "", G_ALL, -1, 0, {0}, 1},
    {0x00f0, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {32}, 1},
    {0x0100, "ULDC.64", "", G_ALL, -1, 0, {0}, 1},
    {0x0110, "BSSY", "", G_ALL, -1, 0, {0}, 2},
    {0x0120, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {6}, 2},
    {0x0130, "ISETP.LE.U32.AND", "", G_ALL, -1, 1, {0}, 11},
    {0x0140, "BRA", "@P0", G_SKIP, -1, 0, {0}, 5},
    {0x0150, "IMAD.MOV.U32", "", G_ALL, 33, 3, {255, 255, 32}, 2},
    {0x0160, "IMAD.MOV.U32", "", G_ALL, 34, 3, {255, 255, 6}, 7},
    {0x0170, "ULDC", "", G_ALL, -1, 0, {0}, 1},
    {0x0180, "ULDC", "", G_ALL, -1, 0, {0}, 1},
    {0x0190, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {33}, 1},
    {0x01a0, "UIMAD.WIDE.U32", "", G_ALL, -1, 0, {0}, 3},
    {0x01b0, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {34}, 3},
    {0x01c0, "IADD3", "", G_ALL, 7, 2, {33, 255}, 4},
    {0x01d0, "IADD3", "", G_ALL, 5, 2, {7, 255}, 2},
    {0x01e0, "IADD3.X", "", G_ALL, 4, 2, {34, 255}, 2},
    {0x01f0, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {7}, 2},
    {0x0200, "IADD3", "", G_ALL, 3, 2, {5, 255}, 1},
    {0x0210, "LDC.64", "@!P0", G_E0, 24, 0, {0}, 1},
    {0x0220, "IADD3.X", "", G_ALL, 2, 2, {4, 255}, 2},
    {0x0230, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {4}, 2},
    {0x0240, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {5}, 2},
    {0x0250, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {3}, 2},
    {0x0260, "IADD3.X", "", G_ALL, 0, 2, {2, 255}, 2},
    {0x0270, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {2}, 2},
    {0x0280, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {0}, 3},
    {0x0290, "LDC.64", "@!P1", G_E1, 26, 0, {0}, 8},
    {0x02a0, "LDC.64", "@!P2", G_E2, 28, 0, {0}, 1},
    {0x02b0, "LEA", "@!P0", G_E0, 24, 2, {33, 24}, 4},
    {0x02c0, "LEA.HI.X", "@!P0", G_E0, 25, 3, {33, 25, 34}, 3},
    {0x02d0, "LDC.64", "@!P3", G_E3, 30, 0, {0}, 2},
    {0x02e0, "LDG.E.128.STRONG.GPU", "@!P0", G_E0, 20, 1, {24}, 1},
    {0x02f0, "LEA", "@!P1", G_E1, 26, 2, {7, 26}, 4},
    {0x0300, "LEA.HI.X", "@!P1", G_E1, 27, 3, {7, 27, 4}, 1},
    {0x0310, "LDC.64", "@!P0", G_E0, 24, 0, {0}, 1},
    {0x0320, "LEA", "@!P2", G_E2, 36, 2, {5, 28}, 3},
    {0x0330, "LDG.E.128.STRONG.GPU", "@!P1", G_E1, 16, 1, {26}, 1},
    {0x0340, "LEA.HI.X", "@!P2", G_E2, 37, 3, {5, 29, 2}, 3},
    {0x0350, "LDC.64", "@!P2", G_E2, 28, 0, {0}, 1},
    {0x0360, "LEA", "@!P3", G_E3, 30, 2, {3, 30}, 1},
    {0x0370, "LDG.E.128.STRONG.GPU", "@!P2", G_E2, 12, 1, {36}, 3},
    {0x0380, "LEA.HI.X", "@!P3", G_E3, 31, 3, {3, 31, 0}, 3},
    {0x0390, "LDC.64", "@!P1", G_E1, 26, 0, {0}, 2},
    {0x03a0, "LDG.E.128.STRONG.GPU", "@!P3", G_E3, 8, 1, {30}, 6},
    {0x03b0, "LDC.64", "@!P3", G_E3, 30, 0, {0}, 1},
    {0x03c0, "LEA", "@!P0", G_E0, 24, 2, {33, 24}, 4},
    {0x03d0, "LEA.HI.X", "@!P0", G_E0, 25, 3, {33, 25, 34}, 2},
    {0x03e0, "LEA", "@!P1", G_E1, 34, 2, {7, 26}, 4},
    {0x03f0, "LEA.HI.X", "@!P1", G_E1, 35, 3, {7, 27, 4}, 2},
    {0x0400, "LEA", "@!P2", G_E2, 28, 2, {5, 28}, 4},
    {0x0410, "LEA.HI.X", "@!P2", G_E2, 29, 3, {5, 29, 2}, 2},
    {0x0420, "LEA", "@!P3", G_E3, 4, 2, {3, 30}, 4},
    {0x0430, "LEA.HI.X", "@!P3", G_E3, 5, 3, {3, 31, 0}, 1},
    {0x0440, "STG.E.128", "@!P0", G_E0, -1, 2, {24, 20}, 1},
    {0x0450, "IADD3", "", G_ALL, 33, 2, {3, 255}, 3},
    {0x0460, "STG.E.128", "@!P1", G_E1, -1, 2, {34, 16}, 4},
    {0x0470, "STG.E.128", "@!P2", G_E2, -1, 2, {28, 12}, 4},
    {0x0480, "STG.E.128", "@!P3", G_E3, -1, 2, {4, 8}, 1},
    {0x0490, "IADD3.X", "", G_ALL, 34, 2, {0, 255}, 2},
    {0x04a0, "ISETP.GE.U32.AND", "", G_ALL, -1, 1, {33}, 4},
    {0x04b0, "ISETP.GE.U32.AND.EX", "", G_ALL, -1, 1, {34}, 13},
    {0x04c0, "BRA", "@!P0", G_NEXT, -1, 0, {0}, 5},
    {0x04d0, "BSYNC", "", G_ALL, -1, 0, {0}, 5},
    {0x04e0, "BRA", "@!P4", G_MORE, -1, 0, {0}, 5},
    {0x04f0, "EXIT", "", G_ALL, -1, 0, {0}, 5},
};

/* Where each part of the kernel starts (PCs): the code before the passes,
 * a pass's head (to its branch past the loop), the loop's set-up for the
 * lanes with elements, one trip, the pass's end (BSYNC and back branch),
 * the code after the passes (to the EXIT the warp takes). */
typedef struct layout {
  uint16_t head, setup, trip, tail, after, exit;
} layout;
static const layout read_layout = {0x080, 0x160, 0x180, 0x520, 0x540, 0x550};
static const layout copy_layout = {0x0c0, 0x150, 0x170, 0x4d0, 0x4f0, 0x4f0};

#define NCODE(c) (sizeof c / sizeof c[0])
#define MAX_CODE 96
_Static_assert(NCODE(read_code) <= MAX_CODE && NCODE(copy_code) <= MAX_CODE, "MAX_CODE");

struct kstream {
  kstream_spec s;
  ktrace_optab ops;
  const sass *code;
  unsigned ncode;
  const layout *at;
  uint16_t op[MAX_CODE];
  ktrace_kernel k;
  char file[96];
  uint64_t next, n, nt;
};

kstream *kstream_create(const kstream_spec *s, diag *d) {
  if (!s->blocks || !s->block_threads || s->block_threads % 32 || s->bytes % 16 || !s->passes) {
    diag_set(d, NULL, 0, "stream: %u blocks of %u threads, %llu bytes, %u passes is not a launch of the kernel",
             s->blocks, s->block_threads, (unsigned long long)s->bytes, s->passes);
    return NULL;
  }
  kstream *k = calloc(1, sizeof *k);
  if (!k || ktrace_optab_init(&k->ops)) {
    diag_set(d, NULL, 0, "stream: out of memory");
    kstream_destroy(k);
    return NULL;
  }
  k->s = *s;
  k->code = s->copy ? copy_code : read_code;
  k->ncode = s->copy ? NCODE(copy_code) : NCODE(read_code);
  k->at = s->copy ? &copy_layout : &read_layout;
  for (unsigned i = 0; i < k->ncode; i++)
    k->op[i] = (uint16_t)ktrace_optab_intern(&k->ops, k->code[i].op, strlen(k->code[i].op));
  k->n = s->bytes / 16;
  k->nt = (uint64_t)s->blocks * s->block_threads;
  snprintf(k->file, sizeof k->file, "stream(%s,S=%llu,passes=%u)", s->copy ? "copy" : "read",
           (unsigned long long)s->bytes, s->passes);
  k->k = (ktrace_kernel){.name = s->copy ? "_Z13stream_kernelILb1EEvPK5uint4PS0_mjPj"
                                         : "_Z13stream_kernelILb0EEvPK5uint4PS0_mjPj",
                         .file = k->file, .nvbit_version = "", .id = 1, .grid = {s->blocks, 1, 1},
                         .block = {s->block_threads, 1, 1}, .binary_version = 90, .tracer_version = 4,
                         .warps_per_block = s->block_threads / 32, .blocks = s->blocks};
  return k;
}

void kstream_destroy(kstream *k) {
  if (!k) return;
  ktrace_optab_free(&k->ops);
  free(k);
}

const ktrace_kernel *kstream_kernel(const kstream *k) { return &k->k; }
void kstream_rewind(void *ctx) { ((kstream *)ctx)->next = 0; }

uint64_t kstream_trips(const kstream_spec *s) {
  uint64_t step = UNROLL * (uint64_t)s->blocks * s->block_threads;
  return (s->bytes / 16 + step - 1) / step;
}

/* One warp's walk: its first thread, the lanes reaching the code, the
 * trip (its first element t0 + off) and whether another trip or pass
 * follows. */
typedef struct gen {
  const kstream *k;
  ktrace_tb *tb;
  uint64_t t0, off;
  uint32_t lanes;
  bool next_trip, more_passes;
} gen;

/* The lanes of g->lanes whose element off is below n, and its addresses at base. */
static uint32_t elements(const gen *g, uint64_t off, uint64_t base, uint64_t *a, unsigned *na) {
  uint32_t m = 0;
  *na = 0;
  for (unsigned l = 0; l < 32; l++)
    if (g->lanes >> l & 1 && g->t0 + l + off < g->k->n) {
      m |= 1u << l;
      if (a) a[(*na)++] = base + 16 * (g->t0 + l + off);
    }
  return m;
}

/* The listing's instructions from PC `from` to before `to`, as g's lanes run them. */
static int run(gen *g, unsigned from, unsigned to) {
  const kstream *k = g->k;
  unsigned i = 0;
  while (i < k->ncode && k->code[i].pc < from) i++;
  for (; i < k->ncode && k->code[i].pc < to; i++) {
    const sass *c = &k->code[i];
    uint64_t a[32];
    unsigned na = 0;
    uint32_t mask = g->lanes;
    bool store = !strncmp(c->op, "STG", 3), mem = store || !strncmp(c->op, "LDG", 3);
    switch (c->guard) {
    case G_NONE: mask = 0; break;
    case G_NEXT: mask = g->next_trip ? elements(g, g->off + UNROLL * k->nt, 0, NULL, &na) : 0; break;
    case G_SKIP: mask = g->lanes & ~elements(g, 0, 0, NULL, &na); break;
    case G_MORE: mask = g->more_passes ? g->lanes : 0; break;
    case G_ALL: break;
    default: {
      uint64_t off = g->off + (uint64_t)(c->guard - G_E0) * k->nt;
      mask = elements(g, off, store ? k->s.dst_va : k->s.src_va, mem ? a : NULL, &na);
    }
    }
    if (!mem) na = 0;
    ktrace_tb_inst in = {
        .pc = c->pc, .mask = mask, .op = k->op[i], .ndst = c->dst >= 0, .nsrc = c->nsrc, .hold = c->stall};
    in.dst[0] = (uint8_t)(c->dst >= 0 ? c->dst : RZ);
    memcpy(in.src, c->src, c->nsrc);
    if (ktrace_tb_push(g->tb, &in, a, na)) return -1;
  }
  return 0;
}

static int warp(gen *g) {
  const kstream *k = g->k;
  const layout *at = k->at;
  uint64_t step = UNROLL * k->nt;
  g->off = 0;
  uint32_t all = g->lanes;
  if (run(g, 0, at->head)) return -1;
  for (uint32_t p = 0; p < k->s.passes; p++) {
    g->more_passes = p + 1 < k->s.passes;
    g->lanes = all;
    g->off = 0;
    if (run(g, at->head, at->setup)) return -1;
    unsigned na;
    g->lanes = elements(g, 0, 0, NULL, &na);
    if (g->lanes) {
      if (run(g, at->setup, at->trip)) return -1;
      for (uint64_t j = 0; g->lanes; j++) {
        g->off = j * step;
        g->next_trip = k->s.trips ? j + 1 < k->s.trips : true;
        if (run(g, at->trip, at->tail)) return -1;
        g->lanes = g->next_trip ? elements(g, g->off + step, 0, NULL, &na) : 0;
      }
    }
    g->lanes = all;
    if (run(g, at->tail, at->after)) return -1;
  }
  return run(g, at->after, at->exit + 1);
}

int kstream_next(void *ctx, ktrace_tb *tb, diag *d) {
  kstream *k = ctx;
  if (k->next == k->k.blocks) return 0;
  uint64_t b = k->next++;
  ktrace_tb_begin(tb, k->ops.op, (uint32_t)b, 0, 0);
  for (uint32_t w = 0; w < k->k.warps_per_block; w++) {
    gen g = {.k = k, .tb = tb, .t0 = b * k->s.block_threads + 32ull * w, .lanes = 0xffffffffu};
    if (ktrace_tb_warp(tb, w) || warp(&g))
      return diag_set(d, k->file, 0, "stream: block %llu: out of memory, or more than a thread block may hold",
                      (unsigned long long)b);
  }
  ktrace_tb_warp_end(tb);
  return 1;
}
