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

void report_ktrace_begin(report_ktrace *r, FILE *out, report_format f);
/* Writes row (and frees it). */
void report_ktrace_add(report_ktrace *r, json_object *row);
void report_ktrace_end(report_ktrace *r);

#endif
