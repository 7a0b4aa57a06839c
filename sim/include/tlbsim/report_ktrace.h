/* tlbsim/report_ktrace.h — one row per kernel of a kernel trace (`tlbsim
 * kernel --stats`), written as CSV (a header, then a row per kernel), JSON
 * (an array of objects) or text (a block of lines per kernel), each row as
 * soon as its kernel is read: a trace of thousands of kernels is never held.
 *
 * report_ktrace  the output under way: its stream, format and rows so far.
 */
#ifndef TLBSIM_REPORT_KTRACE_H
#define TLBSIM_REPORT_KTRACE_H

#include <stdio.h>

#include "tlbsim/kmodel.h"
#include "tlbsim/ktrace.h"
#include "tlbsim/report.h"

typedef struct report_ktrace {
  FILE *out;
  report_format f;
  size_t rows;
} report_ktrace;

/* Keys of a row, in order: kernel, kernel_id, grid, block ("XxYxZ"),
 * warp_instructions, memory_instructions, thread_blocks, warps, then for
 * each class an instruction may execute as (ktrace_class_names but none and
 * the generic ones) CLASS_instructions and CLASS_bytes, then bytes,
 * lines_128b, pages_2m, trace. The caller owns the object. */
json_object *report_ktrace_row(const ktrace_kernel *k, const ktrace_counts *c);

/* A kernel's predicted row (`tlbsim kernel --preset`): kernel, kernel_id,
 * grid, block, warp_instructions, memory_instructions, predicted_ns, then
 * where the time went: thread_blocks, warps (simulated), lines and sectors,
 * l1_hit_rate, l2_hit_rate, dram_bytes, dram_gbps, translations and the
 * share served by the SM's TLB, its group's, the GPU's and by walks,
 * walks, translation_stall_cycles (per line), scoreboard_stall_cycles (per
 * warp), each stage's busy share, limit (the busiest), sms_simulated, trace.
 * Counts are the simulated SMs' (all of them unless sampled). */
json_object *report_kmodel_row(const ktrace_kernel *k, const kmodel_result *r);

void report_ktrace_begin(report_ktrace *r, FILE *out, report_format f);
/* Writes row (and frees it). */
void report_ktrace_add(report_ktrace *r, json_object *row);
void report_ktrace_end(report_ktrace *r);

#endif
