/* tlbsim/ktrace.h — GPU kernel traces in Accel-Sim's format (the NVBit
 * tracer's kernelslist.g and kernel-N.traceg; traces/FORMAT.md, "Kernel
 * traces"), read as a stream, and tlbsim's binary form of them.
 *
 * ktrace_reader  one input: a kernelslist.g (its kernel files in order,
 *                with the MemcpyHtoD lines between them), one
 *                kernel-N.traceg, or a binary kernel trace (`tlbsim
 *                convert`); each file plain, gzip, zstd or xz (the trace
 *                module's trace_src). It holds one kernel file open at a
 *                time, a fixed buffer and the opcode table: memory does not
 *                grow with the trace, only with the largest thread block.
 * ktrace_item    what the input holds next: a kernel (its header) or a
 *                MemcpyHtoD record (a buffer the program filled before the
 *                kernels that follow; a model maps it).
 * ktrace_kernel  a kernel's header: the `-key = value` lines.
 * ktrace_tb      one thread block: all its warps' instructions in one
 *                batch, struct of arrays, so a model runs the block's warps
 *                side by side and a loop over instructions touches only the
 *                fields it reads. The caller owns as many as it keeps in
 *                flight (thread blocks resident on SMs); each grows to the
 *                largest block read into it, within KTRACE_TB_INSTS_MAX and
 *                KTRACE_TB_ADDRS_MAX.
 * ktrace_op      an opcode string, interned once per reader: its class and
 *                access width are decided per string, not per line.
 * ktrace_class   what an instruction does to memory, from its opcode as
 *                Accel-Sim's trace_driven.cc decides it (global, shared or
 *                local load, store or atomic; constant; texture; none).
 * ktrace_writer  writes the binary form: every field a ktrace_tb holds,
 *                in a few bytes per instruction, read back at the speed of
 *                reading.
 * ktrace_summary one kernel's counts for `tlbsim kernel --stats`: warp
 *                instructions, memory instructions and bytes by class, the
 *                distinct 128-byte lines and 2 MiB pages touched.
 *
 * Errors are "FILE:LINE: what is wrong" (a binary trace's LINE is its
 * record number). After an error every further call repeats it.
 */
#ifndef TLBSIM_KTRACE_H
#define TLBSIM_KTRACE_H

#include <stdio.h>

#include "tlbsim/base.h"

/* Registers per instruction: the tracer writes at most 1 destination and 5
 * sources (its MAX_SRC); Accel-Sim's parser takes 1 and 4. */
#define KTRACE_DST_MAX 4
#define KTRACE_SRC_MAX 8
/* A thread block larger than this is an error: one block is held whole. */
#define KTRACE_TB_INSTS_MAX (1u << 21)  /* warp instructions (~80 MiB of arrays) */
#define KTRACE_TB_ADDRS_MAX (1u << 24)  /* lane addresses (128 MiB) */
/* Distinct opcode strings a reader interns, and their length. */
#define KTRACE_OPS_MAX 4096
#define KTRACE_OP_NAME_MAX 64
#define KTRACE_WARP_LANES 32

typedef enum {
  KTRACE_NONE,          /* no memory access: arithmetic, control, barriers, TMA */
  KTRACE_GLOBAL_LOAD,   /* LDG, LDGSTS (its global side) */
  KTRACE_GLOBAL_STORE,  /* STG */
  KTRACE_GLOBAL_ATOMIC, /* ATOMG, ATOM, RED: Accel-Sim does every atomic at L2 */
  KTRACE_SHARED_LOAD,   /* LDS, LDSM */
  KTRACE_SHARED_STORE,  /* STS, STSM */
  KTRACE_SHARED_ATOMIC, /* ATOMS */
  KTRACE_LOCAL_LOAD,    /* LDL */
  KTRACE_LOCAL_STORE,   /* STL */
  KTRACE_CONST_LOAD,    /* LDC */
  KTRACE_TEXTURE,       /* TEX, TLD, ... and surface ops: no addresses in NVBit's traces */
  KTRACE_GENERIC_LOAD,  /* LD: an opcode's class only; an instruction gets the space */
  KTRACE_GENERIC_STORE, /* ST:   its first active address falls in (ktrace_resolve) */
  KTRACE_NCLASSES
} ktrace_class;

/* "none", "global_load", ... by ktrace_class, NULL-terminated. */
extern const char *const ktrace_class_names[];

/* Whether the class's addresses are virtual addresses in global memory
 * (local memory lives there too): what a TLB translates. */
static inline bool ktrace_class_is_translated(unsigned c) {
  return (c >= KTRACE_GLOBAL_LOAD && c <= KTRACE_GLOBAL_ATOMIC) || c == KTRACE_LOCAL_LOAD || c == KTRACE_LOCAL_STORE;
}

typedef struct ktrace_op {
  char name[KTRACE_OP_NAME_MAX]; /* "LDG.E.64.SYS" */
  uint8_t cls;   /* ktrace_class of the opcode (generic LD/ST stay generic) */
  uint8_t width; /* bytes per lane (traces/FORMAT.md: 1, 2, 4, 8 or 16); 0 when a width token
                    is not one of those, an error only for an instruction that has addresses */
  bool l2_only;  /* a load the L1 neither serves nor fills: a .STRONG.GPU or .STRONG.SYS token
                    (ld.global.cg and volatile loads: the PTX ISA's .cg caches in L2, not L1) */
  bool int_pipe; /* runs on an SM partition's integer pipe (IADD3, ISETP, LEA, LOP3, SHF, ...: the
                    INTP_OP opcodes of Accel-Sim's ISA_Def/ampere_opcode.h, IMAD and the uniform
                    datapath's U* opcodes left out): 16 INT32 lanes a partition on the H100 */
} ktrace_op;

typedef struct ktrace_kernel {
  const char *name;           /* -kernel name (mangled); the file's path when it has none, as Accel-Sim does */
  const char *file;           /* the file the kernel is read from */
  const char *nvbit_version;  /* -nvbit version, "" when absent */
  uint32_t id;                /* -kernel id */
  uint32_t grid[3], block[3]; /* -grid dim, -block dim: x, y, z */
  uint32_t shmem, nregs;      /* -shmem (bytes), -nregs */
  uint32_t binary_version;    /* -binary version: 35 Kepler, 60/61 Pascal, 70 Volta, 75 Turing, 80/86 Ampere, 90 Hopper */
  uint32_t tracer_version;    /* -accelsim tracer version (1.2 reads as 1); 0 when absent */
  uint64_t stream;            /* -cuda stream id */
  uint64_t shmem_base;        /* -shmem base_addr, 0 when absent */
  uint64_t local_base;        /* -local mem base_addr, 0 when absent */
  bool lineinfo;              /* -enable lineinfo = 1: a source line number leads each instruction line */
  uint32_t warps_per_block;   /* ceil(block threads / 32) */
  uint64_t blocks;            /* the grid's thread blocks */
} ktrace_kernel;

typedef struct ktrace_memcpy {
  uint64_t addr;  /* the device address copied to */
  uint64_t bytes;
} ktrace_memcpy;

typedef enum { KTRACE_ITEM_KERNEL = 1, KTRACE_ITEM_MEMCPY } ktrace_item_kind;

typedef struct ktrace_item {
  ktrace_item_kind kind;
  const ktrace_kernel *kernel; /* KERNEL: valid until the next ktrace_next */
  ktrace_memcpy memcpy;        /* MEMCPY */
  const char *file;            /* where it is written (a kernelslist, a binary trace) */
  unsigned long line;          /* and its line (record) */
} ktrace_item;

/* One thread block; filled by ktrace_next_tb, read-only for the caller. */
typedef struct ktrace_tb {
  uint32_t x, y, z; /* the block's index in the grid */
  uint32_t nwarps;  /* warps listed, in the trace's order */
  uint32_t ninst;   /* warp instructions of all its warps */
  /* Per warp w < nwarps: its number in the block, and its instructions
   * first[w] .. first[w] + count[w] - 1 (in program order). */
  uint32_t *warp, *first, *count;
  /* Per instruction i < ninst. */
  uint32_t *pc;   /* the instruction's offset in the kernel's code */
  uint32_t *mask; /* active lanes (bit l: lane l), predicated-off lanes excluded */
  uint16_t *op;   /* opcode: ops[op[i]] */
  uint8_t *cls;   /* ktrace_class as executed: a generic LD/ST resolved */
  uint8_t *ndst, *nsrc;
  uint8_t (*dst)[KTRACE_DST_MAX]; /* register numbers (255: RZ) */
  uint8_t (*src)[KTRACE_SRC_MAX];
  /* cycles after its issue before the warp's next instruction may issue:
   * the stall count of the SASS control code (ptxas's wait for a fixed-latency
   * result), which a generator that has the machine code gives (kstream.h);
   * 0 where it is not known: an Accel-Sim trace does not carry it. */
  uint8_t *hold;
  /* Instruction i's addresses are addr[addr_at[i] .. addr_at[i + 1] - 1]:
   * one per active lane, lowest lane first, each accessing ops[op[i]].width
   * bytes; none for an instruction the trace gives no addresses (ninst + 1
   * entries). */
  uint32_t *addr_at;
  uint64_t *addr;
  unsigned long *line; /* where it was read: its line (its record in a binary trace) */
  const ktrace_op *ops; /* the reader's opcode table; stable while the reader lives */
  uint32_t cap_warp, cap_inst, cap_addr; /* the reader's: room in the arrays */
} ktrace_tb;

/* Instruction i's addresses by lane (0 for lanes without one) into lane[];
 * returns how many it has. */
static inline unsigned ktrace_lanes(const ktrace_tb *tb, uint32_t i, uint64_t lane[KTRACE_WARP_LANES]) {
  uint32_t m = tb->mask[i], at = tb->addr_at[i], n = tb->addr_at[i + 1] - at;
  for (unsigned l = 0; l < KTRACE_WARP_LANES; l++) lane[l] = 0;
  for (unsigned k = 0; k < n; k++, m &= m - 1) lane[__builtin_ctz(m)] = tb->addr[at + k];
  return n;
}

ktrace_tb *ktrace_tb_new(void);
void ktrace_tb_free(ktrace_tb *tb);

typedef struct ktrace_reader ktrace_reader;

/* Opens a kernelslist (kernel files are named relative to its directory;
 * every one must exist, checked here), a .traceg or a binary kernel trace,
 * told apart by their first bytes; "-" reads a .traceg or binary trace from
 * stdin. NULL with d set on error. */
ktrace_reader *ktrace_open(const char *path, diag *d);
/* Whether path looks like a kernel trace (the first bytes of a kernelslist,
 * .traceg or binary kernel trace), for callers that take other traces too;
 * false on any error. */
bool ktrace_sniff(const char *path);
/* 1 with *it filled, 0 at the end of the input, -1 with d set. The thread
 * blocks of a kernel not read to its end are read (and checked) first. */
int ktrace_next(ktrace_reader *r, ktrace_item *it, diag *d);
/* The current kernel's next thread block into tb: 1, 0 after its last (or
 * before the first kernel), -1 with d set. */
int ktrace_next_tb(ktrace_reader *r, ktrace_tb *tb, diag *d);
/* The opcode table: ids in first-seen order, the same for a trace and its
 * binary form. */
const ktrace_op *ktrace_ops(const ktrace_reader *r, uint32_t *n);
const char *ktrace_path(const ktrace_reader *r);
/* Whether the input is tlbsim's binary form. */
bool ktrace_is_binary(const ktrace_reader *r);
void ktrace_close(ktrace_reader *r);

/* The class instruction addresses resolve to, as Accel-Sim's trace_driven.cc
 * resolves it: an opcode's own class, except that Kepler (binary version 35)
 * LD/ST are global, and a generic LD/ST elsewhere is shared when the header
 * gives no shared or no local base address, else by its first active
 * address: [shmem_base, local_base) shared, [local_base, local_base +
 * 16 KiB) local, anything else global (and global without an address). */
unsigned ktrace_resolve(const ktrace_kernel *k, unsigned op_cls, const uint64_t *first_addr);

/* ---- the binary form ----------------------------------------------------- */

typedef struct ktrace_writer ktrace_writer;

/* Writes to f (named `name` in errors; the caller opens and closes it). */
ktrace_writer *ktrace_writer_open(FILE *f, const char *name, diag *d);
int ktrace_write_memcpy(ktrace_writer *w, const ktrace_memcpy *m, diag *d);
/* Starts a kernel; its blocks follow, then the next kernel, memcpy or end. */
int ktrace_write_kernel(ktrace_writer *w, const ktrace_kernel *k, diag *d);
int ktrace_write_tb(ktrace_writer *w, const ktrace_tb *tb, diag *d);
/* Ends the last kernel and flushes; frees w either way. 0 or -1. */
int ktrace_writer_finish(ktrace_writer *w, diag *d);
void ktrace_writer_free(ktrace_writer *w);

/* ---- a kernel's counts --------------------------------------------------- */

#define KTRACE_LINE_BYTES 128u
#define KTRACE_PAGE_BYTES (2u << 20)

typedef struct ktrace_counts {
  uint64_t thread_blocks, warps, warp_instructions;
  uint64_t memory_instructions;      /* instructions of a class other than none */
  uint64_t insts[KTRACE_NCLASSES];   /* by class as executed */
  uint64_t bytes[KTRACE_NCLASSES];   /* active lanes x width, by class */
  uint64_t lines, pages; /* distinct 128-byte lines and 2 MiB pages of global and local accesses */
} ktrace_counts;

/* Distinct lines and pages are counted exactly: the summary's memory grows
 * with the lines a kernel touches (16 to 32 bytes each: a set kept at most
 * half full), not with the trace's length. */
typedef struct ktrace_summary ktrace_summary;

ktrace_summary *ktrace_summary_new(void);
/* Counts tb's instructions into s: 0, or -1 when out of memory. */
int ktrace_summary_add(ktrace_summary *s, const ktrace_tb *tb);
/* The counts so far; reset starts the next kernel. */
void ktrace_summary_get(const ktrace_summary *s, ktrace_counts *out);
void ktrace_summary_reset(ktrace_summary *s);
void ktrace_summary_free(ktrace_summary *s);

#endif
