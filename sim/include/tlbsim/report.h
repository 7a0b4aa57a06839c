/* tlbsim/report.h — results as one JSON document, written as JSON, CSV
 * (the document flattened to dotted column names, one row) or text.
 *
 * Building the document once and rendering it three ways keeps the formats
 * from drifting apart: a key added to the JSON appears in the CSV too.
 */
#ifndef TLBSIM_REPORT_H
#define TLBSIM_REPORT_H

#include <json-c/json.h>
#include <stdio.h>

#include "tlbsim/chase.h"
#include "tlbsim/machine.h"
#include "tlbsim/mrc.h"

typedef enum { REPORT_TEXT, REPORT_JSON, REPORT_CSV } report_format;

/* A real number as every report writes it (num_format_real: the shortest
 * text that reads back the same); NULL (JSON null, an empty CSV field)
 * when it is not finite. */
json_object *report_real(double v);
/* num / den, or NULL when den is 0: a ratio of nothing (a TLB level never
 * looked up) is no number, not 0. */
json_object *report_ratio(uint64_t num, uint64_t den);

/* "text", "json", "csv" by report_format, NULL-terminated. */
extern const char *const report_format_names[];
int report_format_parse(const char *s, report_format *out);

/* The results of a replay (keys as in DESIGN.md's "JSON from run").
 * The caller owns the returned object (json_object_put). */
json_object *report_run_json(const machine *m, const char *trace, const char *trace_format,
                             const char *config);
/* Marks a report as that of part of its input (a replay stopped by ^C):
 * "partial": true, the last key (CSV: the last column; text: a line). */
void report_mark_partial(json_object *doc);
/* Writes doc as format f. Text uses the run layout. */
void report_write(FILE *out, report_format f, json_object *doc);
/* Flattens an object into "a.b.c" columns: header line then value line. */
void report_write_csv(FILE *out, json_object *doc);
/* One flattened row, preceded by the header line when `header` is set. */
void report_write_csv_row(FILE *out, json_object *doc, bool header);

/* One point of `tlbsim chase` (docs/OUTPUT.md): the chase CSV columns
 * tlbsim-gpu writes, then per TLB level "tlb": {NAME: {accesses, hits,
 * misses, miss_ratio}} over the timed passes, walks_per_access and
 * walk_refs_per_access. The caller owns it. */
json_object *report_chase_row(const chase_spec *s, const mmu_config *mc, const chase_result *r);

/* The rows of miss-ratio curves after mrc_finish (`tlbsim mrc`'s schema):
 * per page size of s, the fully associative arrays of `entries`, then per
 * associativity of `ways` every set count m measured, in increasing
 * order (one curve each); OPT columns with s->opt. The caller owns the
 * array. */
json_object *report_mrc_rows(const mrc *m, const mrc_spec *s, const uint64_t *entries, unsigned nentries,
                             const uint64_t *ways, unsigned nways);

#endif
