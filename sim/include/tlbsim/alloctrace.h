/* tlbsim/alloctrace.h — allocation-only inputs as one stream of events.
 *
 * alloctrace        a reader: a PyTorch memory snapshot (JSON, gzip or not),
 *                   an RMM logging CSV, the native trace's alloc/free
 *                   records, or the seeded synthetic workload. It owns the
 *                   input and a table from the input's names for allocations
 *                   (addresses, alloc ids) to small dense ids, recycled when
 *                   freed, so a consumer can index arrays by id.
 * alloctrace_event  one request (ALLOC, FREE) or one piece of ground truth
 *                   the input recorded (SEGMENT: its allocator mapped or
 *                   unmapped memory; OOM: its allocator failed; with
 *                   alloctrace_want_marks, a capture's MARK records, kernels
 *                   among them, and its MEMINFO samples of the driver's
 *                   free memory).
 * alloctrace_info   what the input says about itself: the recorded
 *                   allocator settings and, once the stream has ended, the
 *                   recorded totals (peak reserved, segment counts) and the
 *                   events that could not be paired.
 *
 * Snapshot semantics: `alloc` allocates, `free_completed` frees (the block
 * is reusable only then; `free_requested` is skipped), `segment_alloc` /
 * `segment_map` and `segment_free` / `segment_unmap` are the recorded
 * reserved memory, `oom` a recorded failure; other actions are counted and
 * skipped. A free of an address the trace never allocated (the ring buffer
 * dropped its alloc) is skipped and counted as unmatched.
 */
#ifndef TLBSIM_ALLOCTRACE_H
#define TLBSIM_ALLOCTRACE_H

#include "tlbsim/base.h"

/* SYNTHETIC names the generated workload; it is not an input format. */
typedef enum {
  ALLOCTRACE_AUTO,
  ALLOCTRACE_SNAPSHOT,
  ALLOCTRACE_RMM,
  ALLOCTRACE_NATIVE,
  ALLOCTRACE_SYNTHETIC
} alloctrace_format;

/* The input formats by alloctrace_format (auto, snapshot, rmm, native),
 * NULL-terminated; parse accepts them. */
extern const char *const alloctrace_input_names[];
int alloctrace_format_parse(const char *s, alloctrace_format *out);
const char *alloctrace_format_name(alloctrace_format f);

typedef enum { AT_ALLOC, AT_FREE, AT_SEGMENT, AT_OOM, AT_MARK, AT_MEMINFO } alloctrace_kind;

typedef struct alloctrace_event {
  alloctrace_kind kind;
  uint64_t id;      /* ALLOC, FREE: dense id (< alloctrace_id_limit) */
  uint64_t name;    /* ALLOC, FREE: the input's own name for it (native: its id;
                       snapshot, RMM: its address; synthetic: its number) */
  uint64_t size;    /* ALLOC: bytes requested; SEGMENT: bytes; OOM: bytes asked; MEMINFO: free bytes */
  uint64_t total;   /* MEMINFO: the device's total bytes */
  uint64_t align;   /* ALLOC: 0 = the allocator's own */
  uint64_t va;      /* ALLOC: where a capture recorded it (native va=; the "recorded" policy's); 0: unknown */
  bool release;     /* SEGMENT: unmapped/freed rather than mapped/allocated */
  uint32_t stream;  /* dense stream index, in order of first appearance */
  uint64_t time_us; /* from the input's clock, 0 at its first event; else the event index */
  uint64_t time_ns; /* native t= (timed), the capture's clock */
  uint64_t dur_ns;  /* MARK: a kernel's dur= */
  bool timed;       /* the record had t= */
  bool kernel;      /* MARK: a kernel launch (grid= or dur=), not a phase boundary */
  const char *label; /* MARK: its label, valid until the next event */
  uint64_t index;   /* position in the input: event index or line */
} alloctrace_event;

typedef struct alloctrace_info {
  alloctrace_format format;
  /* Recorded allocator settings (snapshots). */
  bool has_settings;
  bool expandable_segments;
  uint64_t max_split_size;    /* UINT64_MAX: unlimited */
  uint64_t device_total;      /* from capture metadata; 0: unknown */
  char unmodelled[96];        /* settings in use that the models ignore, comma-separated */
  /* Ground truth, complete after the last event. */
  bool has_segments;          /* the input records its allocator's segments */
  uint64_t reserved_peak, reserved_end;
  uint64_t segment_allocs, segment_frees; /* segment_alloc/map, segment_free/unmap */
  uint64_t recorded_ooms;
  uint64_t allocs, frees, unmatched_frees, skipped;
} alloctrace_info;

/* Synthetic workload parameters (traces/gen and docs/ALLOC.md). */
typedef struct alloctrace_synth {
  uint64_t seed;
  uint64_t requests;     /* operator invocations */
  uint64_t temps;        /* temporary buffers per request */
  uint64_t temp_min, temp_max; /* their sizes, log-uniform */
  uint64_t keep_min, keep_max; /* the output each request keeps */
  uint64_t keep_for;     /* requests an output lives */
} alloctrace_synth;

/* Defaults, then "key=value,..." (keys as the fields). */
void alloctrace_synth_default(alloctrace_synth *s);
int alloctrace_synth_parse(alloctrace_synth *s, const char *spec, diag *d);

typedef struct alloctrace alloctrace;

/* path "-" reads stdin; gzip is read transparently. device: which of a
 * snapshot's device_traces (-1: the only one with events). */
alloctrace *alloctrace_open(const char *path, alloctrace_format fmt, int device, diag *d);
/* The same with a native trace read as trace_open_jobs reads it: an xz
 * file of several blocks decoded on `jobs` threads (0: the cores available;
 * 1: as alloctrace_open). */
alloctrace *alloctrace_open_jobs(const char *path, alloctrace_format fmt, int device, unsigned jobs, diag *d);
alloctrace *alloctrace_open_synth(const alloctrace_synth *s, diag *d);
/* 1: *ev filled; 0: end; -1: error "FILE:LINE: ..." or
 * "FILE: device_traces[D][I]: ..." in d. */
int alloctrace_next(alloctrace *t, alloctrace_event *ev, diag *d);
const alloctrace_info *alloctrace_get_info(const alloctrace *t);
/* From now on also hand out a native trace's mark and meminfo records
 * (AT_MARK, AT_MEMINFO; other formats have none). */
void alloctrace_want_marks(alloctrace *t);
/* Every id so far is below this. */
uint64_t alloctrace_id_limit(const alloctrace *t);
const char *alloctrace_path(const alloctrace *t);
void alloctrace_close(alloctrace *t);

#endif
