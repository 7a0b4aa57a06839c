/* gpu_accel.h — Accel-Sim traces of the kernels tlbsim-gpu runs, written
 * from their machine code instead of an NVBit run: what the NVBit tracer of
 * Accel-Sim (util/tracer_nvbit, tracer version 4) would print for them.
 *
 * gpu_sass_inst    one SASS instruction of a straight-line kernel, as the
 *                  tracer sees it: PC (offset in the function), opcode with
 *                  its modifiers, the destination register (operand 0 when
 *                  it is a register; RZ is 255), the source registers (every
 *                  other register operand and each memory operand's address
 *                  register, in operand order), the last integer immediate,
 *                  and for memory instructions which of the kernel's
 *                  accesses it is (role, step k, part p).
 * gpu_sass_kernel  one compiled instance of a kernel template: the
 *                  instructions every warp executes, from PC 0 to the EXIT,
 *                  in order (gpu_embed_sass.c, generated from cuobjdump by
 *                  gpu/scripts/embed_sass.py).
 * gpu_embed_trace  what one embed launch needs: geometry, ids, the three
 *                  buffers' addresses and allocation sizes.
 *
 * The files, as Accel-Sim's trace parser reads them (a real trace's
 * kernel-N.traceg after the tracer's post-processing):
 *   kernelslist.g   "MemcpyHtoD,0x<dst>,<bytes>" for the ids, then "kernel-1.traceg"
 *   kernel-1.traceg the "-key = value" header (kernel name, grid and block
 *                   dim, shmem, nregs, binary version, stream, tracer
 *                   version 4, lineinfo 0), then per block "#BEGIN_TB",
 *                   "thread block = x,y,z", per warp "warp = W", "insts = N"
 *                   and N lines "PC mask dest_num [Rd] opcode src_num [Rs...]
 *                   mem_width [format addresses] immediate", then "#END_TB".
 *                   Addresses: format 1 (base, stride) when the active lanes
 *                   are contiguous with one stride that fits in 32 bits, else
 *                   format 2 (base, then each next active lane's delta from
 *                   the previous) — the tracer's own choice with compression
 *                   on; width from the opcode ("LDG.E.64" -> 8).
 *   buffers.trace   native tlbsim records "map VA SIZE page=2M" for each buffer.
 */
#ifndef TLBSIM_GPU_ACCEL_H
#define TLBSIM_GPU_ACCEL_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdio.h>

#include "tlbsim/gpu_embed.h"

typedef enum gpu_sass_role {
  GPU_SASS_ALU,  /* no memory operand */
  GPU_SASS_ID,   /* the bag's ids of step k */
  GPU_SASS_ROW,  /* part p of the rows of step k */
  GPU_SASS_OUT   /* part p of the bag's output */
} gpu_sass_role;

#define GPU_SASS_MAX_SRC 5

typedef struct gpu_sass_inst {
  uint32_t pc;
  const char *opcode;
  int dst;                      /* -1: none */
  unsigned nsrc;
  int src[GPU_SASS_MAX_SRC];
  int64_t imm;                  /* 0 when the instruction has none */
  gpu_sass_role role;
  unsigned k, part;
} gpu_sass_inst;

typedef struct gpu_sass_kernel {
  const char *name;             /* mangled */
  uint32_t row_bytes, ids_per_bag;
  unsigned nregs;
  unsigned ninst;               /* executed per warp, the EXIT included */
  const gpu_sass_inst *inst;
} gpu_sass_kernel;

/* The embed kernels compiled into tlbsim-gpu (gpu_embed_sass.c). */
extern const gpu_sass_kernel gpu_embed_sass[];
extern const unsigned gpu_embed_sass_count;
extern const char gpu_embed_sass_origin[]; /* toolkit and flags that produced it */
const gpu_sass_kernel *gpu_embed_sass_find(uint32_t row_bytes, uint32_t ids_per_bag);
/* Memory instructions among a kernel's. */
unsigned gpu_sass_memory_count(const gpu_sass_kernel *k);

/* Bytes per lane of a memory opcode, as the tracer computes it: the first
 * dot-separated token that is a number of bits ("64"), or "U<bits>", over
 * 8; 4 when there is none. */
unsigned gpu_accel_width(const char *opcode);
/* The address part of a memory line for the lanes of mask ("1 0x... 8 " or
 * "2 0x... d1 d2 ... ") into out (at least 800 bytes); returns its length. */
size_t gpu_accel_addr_text(const uint64_t addr[32], uint32_t mask, char *out);

typedef struct gpu_embed_trace {
  const gpu_embed_geom *g;
  const gpu_sass_kernel *k;
  const uint64_t *ids;          /* B*L rows */
  uint64_t table_va, table_alloc, ids_va, ids_alloc, out_va, out_alloc;
  uint64_t table_bytes;         /* F: the part of the table the ids index */
  const char *dir;
} gpu_embed_trace;

/* The three allocations of a sweep, sized for its largest table (fmax),
 * largest row (rmax), L and B: 2 MiB multiples, as cudaMalloc rounds them. */
typedef struct gpu_embed_allocs {
  uint64_t table, ids, out;
} gpu_embed_allocs;
gpu_embed_allocs gpu_embed_allocs_for(uint64_t fmax, uint64_t rmax, uint32_t ids_per_bag, uint64_t bags);

/* A synthetic but consistent map for a run without a device: the table at
 * GPU_EMBED_DRY_TABLE_VA, ids and out above it, each 2 MiB-aligned with a
 * 2 MiB gap. */
#define GPU_EMBED_DRY_TABLE_VA 0x7f0000000000ull
void gpu_embed_dry_map(gpu_embed_trace *t, const gpu_embed_allocs *a);

/* Writes kernelslist.g, kernel-1.traceg and buffers.trace into t->dir (which
 * must exist). -1 with a diag when a file cannot be written. */
int gpu_embed_trace_write(const gpu_embed_trace *t, diag *d);
/* The trace of warp `bag` alone (its instruction lines) to f: what
 * gpu_embed_trace_write writes between "insts = N" and the next warp. */
int gpu_embed_trace_warp(FILE *f, const gpu_embed_trace *t, uint64_t bag);

#ifdef __cplusplus
}
#endif
#endif
