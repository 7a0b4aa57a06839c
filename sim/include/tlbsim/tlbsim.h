/* tlbsim/tlbsim.h — libtlbsim's public API: one small facade over the
 * simulator. Every name is prefixed tlbsim_; no other tlbsim header is
 * needed (or installed), and no structure of the simulator shows through.
 *
 * tlbsim_machine       one simulated machine (page table, TLB levels, walk
 *                      caches, allocator, physical memory) built from a
 *                      preset, an INI file and "SECTION.KEY=VALUE"
 *                      overrides, exactly as `tlbsim run` builds one; fed
 *                      single accesses or whole traces; read back by
 *                      statistic (the column names of `tlbsim run --format
 *                      csv`) or as the whole report.
 * tlbsim_chase_result  one simulated pointer-chase point (`tlbsim chase`).
 * tlbsim_alloc         allocation requests replayed through allocator
 *                      policies side by side (`tlbsim alloc`), summarised
 *                      as JSON.
 * explain, dump, log, quiz, sweep: the other commands' output as text.
 *
 * Errors: every call that can fail returns -1 (or NULL) and, when `err` is
 * not NULL, writes one line "FILE:LINE: what is wrong" (at most
 * TLBSIM_ERROR_MAX bytes with its NUL) into it. Nothing prints or exits.
 * Every argument is checked first: a NULL machine, string or result
 * pointer where one is needed, a NULL array (or a NULL inside one) with a
 * count above 0, a count above 65536 or a length no buffer has is such an
 * error ("tlbsim_stat: column is NULL"), never a crash. Only err and the
 * arguments said to take NULL (preset, formats, ...) may be NULL.
 * Strings a call returns as `char *` are the caller's: tlbsim_free them.
 *
 * Presets are found by name in $TLBSIM_PRESET_PATH (a colon list), then
 * the source tree the library was built from, then the installed
 * share/tlbsim/presets. A handle is not shared between threads; separate
 * handles are independent (there is no global state).
 */
#ifndef TLBSIM_TLBSIM_H
#define TLBSIM_TLBSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TLBSIM_ERROR_MAX 512

typedef struct tlbsim_machine tlbsim_machine;

/* The library's version, "MAJOR.MINOR.PATCH" (the soname carries MAJOR). */
const char *tlbsim_version(void);

/* Builds a machine from preset `preset` or the INI file `config_file`
 * (not both; neither: preset x86-64), then the `nsets` overrides in order
 * ("tlb.l1d.entries=64", as --set). Every key is checked: one nobody reads
 * is an error. NULL on error. */
tlbsim_machine *tlbsim_machine_create(const char *preset, const char *config_file, const char *const *sets,
                                      size_t nsets, char *err);
void tlbsim_machine_destroy(tlbsim_machine *m);

/* One access of `size` bytes (>= 1) at virtual address addr: kind 'R'
 * (read), 'W' (write) or 'X' (instruction fetch), as a native trace's
 * line would apply it. Errors name the call "tlbsim_access:N". */
int tlbsim_access(tlbsim_machine *m, char kind, uint64_t addr, uint64_t size, char *err);
/* Replays a whole trace file ("-": stdin), gzip/zstd compressed or not,
 * in `trace_format` ("auto" or NULL, "native", "lackey", "din",
 * "binary"). Counters add up over every call. */
int tlbsim_run_trace(tlbsim_machine *m, const char *path, const char *trace_format, char *err);
/* Replays n trace files (at most 64) as CPUs 0 .. n-1, each with the TLB
 * levels the configuration gives a CPU of its own: they take turns, one
 * access each, as `tlbsim run A B ...` does (traces/FORMAT.md, Threads).
 * The report then has a "cpus" list. */
int tlbsim_run_cpus(tlbsim_machine *m, const char *const *paths, size_t n, const char *trace_format, char *err);
/* Replays trace text held in memory, `len` bytes of it (at most 2^40; text
 * may be NULL when len is 0): a native trace's lines (accesses, alloc/free,
 * map/unmap, ctx, mark) or any format tlbsim_run_trace reads, as if it
 * were a file named "tlbsim_feed": errors
 * are "tlbsim_feed:LINE: ...", lines counted from 1 in each call. The
 * machine keeps its state between calls: an `alloc` fed once is there for
 * the accesses fed later. */
int tlbsim_feed(tlbsim_machine *m, const char *text, size_t len, const char *trace_format, char *err);

/* The statistic named `column` as `tlbsim run --format csv` heads it
 * ("accesses", "tlb.l1d.misses", "cycles_per_access", ...) in *out. A
 * column that is not a number, or no such column, is an error. */
int tlbsim_stat(tlbsim_machine *m, const char *column, double *out, char *err);
/* The whole report in "json", "csv" or "text", as `tlbsim run` prints it. */
char *tlbsim_report(tlbsim_machine *m, const char *format, char *err);

/* Miss-ratio curves of LRU TLBs over a trace in one pass (`tlbsim mrc`):
 * page sizes `page_sizes` (a comma list, e.g. "4K,2M"; NULL: 4K), fully
 * associative arrays of every power of two up to max_entries (0: 65536)
 * entries and set-associative ones of 1, 2, 4, 8 and 16 ways. Returns the
 * rows as CSV with the header of `tlbsim mrc`:
 * page_bytes,sets,ways,entries,accesses,misses,miss_ratio. */
char *tlbsim_mrc(const char *trace, const char *trace_format, const char *page_sizes, uint32_t max_entries,
                 char *err);

typedef struct tlbsim_chase_result {
  uint64_t nodes;           /* footprint / stride, rounded as tlbsim-gpu plans points */
  uint64_t footprint_bytes; /* nodes * stride */
  double cycles_per_access; /* the median timed pass */
  double walks_per_access;  /* page walks per load */
  double first_miss_ratio;  /* misses of the first TLB level (the L1 data TLB) per look-up there */
} tlbsim_chase_result;

/* One point of the pointer chase on m's page-table format and MMU (`tlbsim
 * chase`: 4096 loads per timed pass, 5 passes, 1024 warm-up loads, 2 MiB
 * chunks, seed 1): nodes at i * stride (a multiple of 8) over footprint
 * bytes mapped with page_size pages (0: the configuration's), visited in
 * `order` ("seq" or NULL, "random") with `mapping` ("contiguous" or NULL,
 * "shuffled", "cudamalloc", "aliased", ...). m itself is not changed. */
int tlbsim_chase(const tlbsim_machine *m, uint64_t footprint, uint64_t stride, uint64_t page_size, const char *order,
                 const char *mapping, tlbsim_chase_result *out, char *err);
/* The points of n footprints as `tlbsim chase --format csv` prints them
 * (the header, then a row per footprint; one that rounds to the previous
 * one's node count is simulated once), the same arguments as tlbsim_chase
 * otherwise. */
char *tlbsim_chase_rows(const tlbsim_machine *m, const uint64_t *footprints, size_t n, uint64_t stride,
                        uint64_t page_size, const char *order, const char *mapping, char *err);

/* Replays allocation requests through allocator policies side by side
 * and returns the summary `tlbsim alloc --format json` prints, byte for
 * byte: an array of one object per policy (keys in docs/ALLOC.md and
 * docs/OUTPUT.md). Input: the file `trace` ("-": stdin; gzip or not) in
 * `input_format` ("auto" or NULL, "snapshot" (PyTorch memory snapshot
 * JSON), "rmm" (RMM log CSV), "native" (alloc/free records)), or with
 * "synthetic" the generated workload `trace` specifies ("requests=40,seed=
 * 3"; "" or NULL: the defaults). `npolicies` policy names ("cuda",
 * "caching", "expandable", "first-fit", "buddy", ...; 0: cuda, caching,
 * expandable). Capacity: `capacity` bytes when not 0, else preset
 * `preset`'s machine.phys_memory when one is named or the input does not
 * say, else the device a snapshot was captured on (NULL preset: h200).
 * `sets`: allocator parameters "KEY=VALUE" as alloc --set; errors name
 * them "tlbsim_alloc:N". */
char *tlbsim_alloc(const char *trace, const char *input_format, const char *const *policies, size_t npolicies,
                   const char *preset, uint64_t capacity, const char *const *sets, size_t nsets, char *err);

/* The views of the other commands, each the text the command prints
 * (format "text", the default for NULL, or "json"):
 * tlbsim_explain  `tlbsim explain`: the n addresses touched in order on a
 *                 fresh machine of m's configuration (m itself unchanged),
 *                 then each walked entry by entry; page_size 0: the
 *                 configuration's.
 * tlbsim_dump     `tlbsim dump`: m's page table as it stands now.
 * tlbsim_log      `tlbsim run --log`: the trace file `trace` (or, with trace
 *                 NULL, the len bytes of `text`, named "tlbsim_log" in
 *                 errors) replayed into m record by record, a line (or JSON
 *                 object) each; m keeps its state, as after tlbsim_feed.
 * tlbsim_quiz     `tlbsim quiz`: seed's exercises of `kinds` (a comma list
 *                 of translate, tlb, pt-size, alloc, pool; NULL: all), with
 *                 the answers when `answers` is not 0.
 * tlbsim_sweep    `tlbsim sweep` over one trace, as CSV: a machine per
 *                 combination of the nvary axes ("tlb.l1d.entries=16,32"),
 *                 built from preset or config_file (neither: x86-64) and
 *                 `sets` as tlbsim_machine_create builds one. */
char *tlbsim_explain(const tlbsim_machine *m, const uint64_t *vas, size_t n, uint64_t page_size, const char *format,
                     char *err);
char *tlbsim_dump(const tlbsim_machine *m, const char *format, char *err);
char *tlbsim_log(tlbsim_machine *m, const char *trace, const char *text, size_t len, const char *trace_format,
                 const char *format, char *err);
char *tlbsim_quiz(uint64_t seed, const char *kinds, int answers, const char *format, char *err);
char *tlbsim_sweep(const char *trace, const char *trace_format, const char *preset, const char *config_file,
                   const char *const *sets, size_t nsets, const char *const *vary, size_t nvary, char *err);

/* A size as tlbsim reads them everywhere (4096, 0x1000, 4K, 4KiB, 2M,
 * 1GiB) in *out. */
int tlbsim_size(const char *text, uint64_t *out, char *err);

/* Frees what a call returned as char *. */
void tlbsim_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
