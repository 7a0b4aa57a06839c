/* tlbsim/trace.h — streaming trace readers, one interface for every format.
 *
 * trace_record  one event: an access, an allocation, an explicit mapping, a
 *               context switch or a mark. Records carry their source line
 *               for errors.
 * trace_acc     one access in 16 bytes: what nearly every line of a real
 *               trace is, and all the hot path of a replay needs.
 * trace_block   a few thousand records in input order: compact accesses,
 *               with every other record (and an access too large or too
 *               unusual for a trace_acc) kept whole in `other` and its place
 *               marked in the order; a source line per entry; what the
 *               block holds (access kinds, the highest byte addressed) so a
 *               consumer checks its configuration once per block, not per
 *               record. One read feeds `run`, `mrc` and every configuration
 *               of a sweep alike.
 * trace_reader  owns its input (a file, or stdin for "-"; gzip, zstd and xz
 *               decompressed transparently) and one fixed buffer: memory is
 *               constant in the trace's length and nothing is allocated per
 *               record.
 *
 * Formats (traces/FORMAT.md): native, lackey (valgrind --trace-mem=yes), din
 * (Dinero IV), pinatrace (Intel Pin), binary (tlbsim's own), champsim
 * (ChampSim's input_instr). "auto" decides from the first bytes. Every
 * field a record's kind does not use is zero, so records compare field by
 * field.
 *
 * Captured programs (tlbsim-capture; traces/FORMAT.md, "Captured programs"):
 * the records a CUPTI capture of a CUDA program adds (pools, VA
 * reservations, physical handles, memory-info samples, prefetches and
 * advice) and the options every record may carry there (its time, the
 * driver call's duration, the address the driver gave, the device), kept
 * in one trace_capture so that a record without them costs one zeroing.
 *
 * Threads: a reader turns the thread ids of a format that has them (the
 * native format's thread=, the binary format's thread record) into
 * REC_THREAD records where the thread changes, so accesses stay 16 bytes
 * and a trace of one thread costs nothing. trace_set_thread names the
 * thread of the records that name none (a ChampSim trace is one CPU's).
 */
#ifndef TLBSIM_TRACE_H
#define TLBSIM_TRACE_H

#include <stdio.h>

#include "tlbsim/base.h"

typedef enum {
  REC_ACCESS,  /* access, addr (or alloc_id + addr as offset), size >= 1 */
  REC_ALLOC,   /* alloc_id, size, align (0: the allocator's default), stream */
  REC_FREE,    /* alloc_id */
  REC_MAP,     /* addr, size, page_size, prot; pa chosen by phys */
  REC_UNMAP,   /* addr, size */
  REC_PROTECT, /* addr, size, prot */
  REC_CTX,     /* asid */
  REC_MARK,    /* label: a phase boundary reported in timelines */
  REC_THREAD,  /* thread: the accesses after it are that thread's (or CPU's) */
  /* captured programs (cap holds their fields) */
  REC_POOL,      /* cap.pool, cap.op (TRACE_POOL_*); trim: size = the bytes to keep */
  REC_RESERVE,   /* addr, size, align: cuMemAddressReserve */
  REC_UNRESERVE, /* addr, size: cuMemAddressFree */
  REC_HANDLE,    /* cap.handle, size: cuMemCreate of physical memory */
  REC_RELEASE,   /* cap.handle: cuMemRelease */
  REC_MEMINFO,   /* size = free bytes, cap.total: a cuMemGetInfo sample */
  /* managed memory, in the `uvm` model's vocabulary (tlbsim/uvm.h: one set
   * of names for sides and advice, the model's and the trace's) */
  REC_PREFETCH,  /* addr, size, cap.op = where to: a uvm_side (uvm_side_names) */
  REC_ADVISE     /* addr, size, cap.op = the advice: a uvm_advice (uvm_advice_names) */
} trace_rec_kind;

/* "access", "alloc", ..., "advise" by trace_rec_kind: the native format's
 * keywords (an access's are r, w and x), for messages and logs. */
extern const char *const trace_rec_kind_names[];

typedef enum { TRACE_READ, TRACE_WRITE, TRACE_EXEC } trace_access;

#define TRACE_LABEL_MAX 64
/* Thread (or CPU) ids are 0 to TRACE_THREAD_MAX - 1: what per-thread
 * statistics keep room for. */
#define TRACE_THREAD_MAX 64
/* Longest line a reader accepts (bytes, without the newline): a longer one
 * is an error rather than a reason to grow the buffer without bound. */
#define TRACE_LINE_MAX (64 * 1024)

/* Which optional fields of a trace_capture a record gives (cap.attrs). */
enum {
  TRACE_HAS_TIME = 1u << 0,   /* t=NS: nanoseconds since the capture began; never decreasing */
  TRACE_HAS_DUR = 1u << 1,    /* dur=NS: how long the driver call (or kernel) took */
  TRACE_HAS_VA = 1u << 2,     /* va=ADDR: where the driver put it */
  TRACE_HAS_DEV = 1u << 3,    /* dev=D: the GPU */
  TRACE_HAS_POOL = 1u << 4,   /* alloc pool=P: served by memory pool P */
  TRACE_HAS_HANDLE = 1u << 5, /* map handle=H: the physical memory mapped */
  TRACE_HAS_OFFSET = 1u << 6, /* map offset=O: into the handle */
  TRACE_HAS_GRID = 1u << 7,   /* mark grid=X,Y,Z: a kernel launch */
  TRACE_HAS_BLOCK = 1u << 8,  /* mark block=X,Y,Z */
  TRACE_HAS_STREAM = 1u << 9, /* mark stream=S (alloc's stream= is rec->stream always) */
  TRACE_HAS_KEEP = 1u << 10   /* pool trim keep=SIZE */
};
typedef enum { TRACE_POOL_CREATE, TRACE_POOL_TRIM, TRACE_POOL_DESTROY } trace_pool_op;
extern const char *const trace_pool_op_names[]; /* "create", "trim", "destroy", NULL */
/* alloc kind= (the `uvm` records' vocabulary): device memory by default. */
typedef enum { TRACE_MEM_DEVICE, TRACE_MEM_MANAGED, TRACE_MEM_HOST, TRACE_MEM_PINNED } trace_mem_kind;
extern const char *const trace_mem_kind_names[]; /* "device", "managed", "host", "pinned", NULL */

/* A captured record's own fields; all zero in any other trace. No padding,
 * so records compare with memcmp. */
typedef struct trace_capture {
  uint64_t attrs;    /* TRACE_HAS_* */
  uint64_t time_ns;  /* t= */
  uint64_t dur_ns;   /* dur= */
  uint64_t va;       /* va= */
  uint64_t pool;     /* REC_POOL's id; alloc pool= */
  uint64_t handle;   /* REC_HANDLE, REC_RELEASE's id; map handle= */
  uint64_t offset;   /* map offset= */
  uint64_t total;    /* REC_MEMINFO: the device's total bytes */
  uint32_t device;   /* dev= */
  uint16_t op;       /* REC_POOL: trace_pool_op; REC_PREFETCH: trace_to; REC_ADVISE: the advice */
  uint16_t mem;      /* REC_ALLOC kind=: trace_mem_kind (the `uvm` model's option) */
  uint32_t grid[3];  /* REC_MARK grid= (each 1..2^31-1) */
  uint32_t block[3]; /* REC_MARK block= */
} trace_capture;

typedef struct trace_record {
  trace_rec_kind kind;
  trace_access access;
  bool relative;        /* addr is an offset into allocation alloc_id */
  uint8_t prot;         /* PT_R|PT_W|PT_X */
  uint32_t asid;
  uint32_t stream;      /* REC_ALLOC: the stream a caching allocator pools by */
  uint32_t thread;      /* REC_THREAD: the thread (CPU) from here on, < TRACE_THREAD_MAX */
  uint64_t alloc_id;
  uint64_t addr;
  uint64_t size;
  uint64_t align;
  uint64_t page_size;   /* 0: the configured default */
  uint64_t frame;       /* REC_MAP with has_frame: the first physical frame (frame=PFN, in pages) */
  bool has_frame;       /* frame 0 is a frame: this says one was chosen */
  unsigned long line;   /* source line, for diagnostics */
  char label[TRACE_LABEL_MAX];
  trace_capture cap;    /* captured programs' fields (zero elsewhere) */
} trace_record;

/* A trace_acc of this kind stands for the block's next `other` record. */
#define TRACE_ACC_OTHER 3u
#define TRACE_BLOCK_MAX 4096
#define TRACE_BLOCK_OTHER_MAX 256 /* a block ends early when this many are held */

typedef struct trace_acc {
  uint64_t addr;
  uint32_t size; /* bytes, >= 1 */
  uint32_t kind; /* trace_access, or TRACE_ACC_OTHER */
} trace_acc;

typedef struct trace_block {
  size_t n;                               /* entries in acc and line */
  size_t nother;                          /* records in other */
  uint64_t last_byte_or;                  /* OR of addr + size - 1 over the trace_accs */
  uint32_t kinds;                         /* bit (1 << kind) per kind present in acc */
  trace_acc acc[TRACE_BLOCK_MAX];
  unsigned long line[TRACE_BLOCK_MAX];    /* each entry's source line */
  trace_record other[TRACE_BLOCK_OTHER_MAX];
} trace_block;

/* The pages of 2^page_shift bytes that [addr, addr + size) touches (size >=
 * 1, no wrap): the count, and the first page's number in *first. An access
 * that straddles page boundaries translates every page it touches: every
 * consumer of accesses splits them with this. */
static inline uint64_t trace_pages(uint64_t addr, uint64_t size, unsigned page_shift, uint64_t *first) {
  *first = addr >> page_shift;
  return ((addr + (size - 1)) >> page_shift) - *first + 1;
}

typedef enum {
  TRACE_AUTO,
  TRACE_NATIVE,
  TRACE_LACKEY,
  TRACE_DIN,
  TRACE_BINARY,
  TRACE_CHAMPSIM,
  TRACE_PINATRACE
} trace_format;

/* "auto", "native", "lackey", "din", "binary", "champsim", "pinatrace" by
 * trace_format, NULL-terminated. */
extern const char *const trace_format_names[];
/* One of those names; -1 for anything else. */
int trace_format_parse(const char *s, trace_format *out);
const char *trace_format_name(trace_format f);

/* How a trace's bytes are compressed: read from its first bytes whatever
 * the file is called, and chosen when writing one. */
typedef enum { TRACE_PLAIN, TRACE_GZIP, TRACE_ZSTD, TRACE_XZ } trace_codec;
/* "none", "gzip", "zstd", "xz" by trace_codec, NULL-terminated (xz is
 * read only: ChampSim's traces come as .xz). */
extern const char *const trace_codec_names[];

typedef struct trace_reader trace_reader;

/* path "-" reads stdin. gzip, zstd and xz input are detected by their
 * magic bytes. With TRACE_AUTO the format is settled here from the first
 * bytes after decompression: binary by its magic bytes, ChampSim by a
 * well-formed first record, a text format by the first line that is not
 * blank, a # comment or a valgrind ==PID== banner; an input with no such
 * line is an empty native trace. */
trace_reader *trace_open(const char *path, trace_format fmt, diag *d);
/* trace_open with a multi-block xz file (xz -T0, ChampSim's traces)
 * decoded on `jobs` threads, the blocks in parallel ahead of the reader
 * (liblzma's multithreaded decoder), and, for a regular file, the blocks
 * trace_read_block hands out parsed on a thread of their own ahead of the
 * caller (so parsing overlaps simulating): 0 the cores available (that
 * thread where there are two or more), 1 what trace_open does (everything
 * in the caller's calls). The records, errors and end are the same
 * whatever jobs is. Call trace_set_thread before the first read. */
trace_reader *trace_open_jobs(const char *path, trace_format fmt, unsigned jobs, diag *d);
/* A reader over len bytes at data (copied; any format and codec trace_open
 * reads), its errors named `name` ("NAME:LINE: ..."). */
trace_reader *trace_open_memory(const char *name, const char *data, size_t len, trace_format fmt, diag *d);
/* Fills b with the next records (b->n > 0) and returns 1; 0 at the end of
 * input; -1 with d as "FILE:LINE: ...". After -1 every further call repeats
 * the same error. */
int trace_read_block(trace_reader *r, trace_block *b, diag *d);
/* trace_read_block without the copy: *b (a block of malloc(sizeof
 * (trace_block)), the caller's to free) may be exchanged for one the fill
 * thread filled (of the same kind), which the caller then owns instead; the
 * reader fills the one it got back later. The same blocks, errors and end. */
int trace_take_block(trace_reader *r, trace_block **b, diag *d);
/* The next record alone (an access as a trace_record too): for consumers
 * that want few records; don't mix with trace_read_block on one reader.
 * 1: *rec filled; 0: end of input; -1: error as above. */
int trace_next(trace_reader *r, trace_record *rec, diag *d);
/* The records that name no thread are thread t's (0 unless set): a
 * REC_THREAD t comes first when t is not 0. Call before the first read. */
void trace_set_thread(trace_reader *r, uint32_t t);
trace_format trace_get_format(const trace_reader *r); /* resolved after auto */
const char *trace_get_path(const trace_reader *r);    /* "<stdin>" for "-" */
/* Bytes taken from the file or pipe so far (compressed bytes for a
 * compressed input), for progress lines. */
uint64_t trace_bytes_read(const trace_reader *r);
/* Records read so far (trace_next reads ahead: a block at a time); 0 at
 * the end of input: an empty trace (the CLI refuses one: docs/OUTPUT.md). */
uint64_t trace_records_read(const trace_reader *r);
void trace_close(trace_reader *r);

/* trace_writer  writes records in one format (native, lackey, din or
 *               binary; traces/FORMAT.md), compressed or not, to a stream
 *               the caller opened (and names, for errors), and owns: a
 *               caller that writes a file gives it its name only after
 *               trace_writer_finish succeeded, so nothing half written is
 *               left behind. */
typedef struct trace_writer trace_writer;

trace_writer *trace_writer_open(FILE *f, const char *name, trace_format fmt, trace_codec codec, diag *d);
/* Appends a record; -1 with d as "FILE:LINE: ..." (the record's source and
 * line) when the format cannot hold it, or "NAME: ..." on a write error. */
int trace_write(trace_writer *w, const trace_record *rec, const char *file, diag *d);
/* Ends the compressed stream and flushes everything to f; then frees w.
 * 0, or -1 with d set. f stays open. */
int trace_writer_finish(trace_writer *w, diag *d);
/* Frees w without finishing (after an error elsewhere). */
void trace_writer_free(trace_writer *w);

#endif
