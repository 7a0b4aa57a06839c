/* tlbsim/csv.h — CSV as RFC 4180 has it, written and read the one way
 * everywhere (reports, timelines, measured sweeps): a field holding a
 * comma, a quote or a line end is quoted, with quotes doubled. */
#ifndef TLBSIM_CSV_H
#define TLBSIM_CSV_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" { /* tlbsim/base.h has no C++ guard of its own */
#endif

#include "tlbsim/base.h"

/* Writes s as one field, quoted when it must be. */
void csv_write_field(FILE *f, const char *s);
/* Splits one line (its line end removed) into fields in place, unquoting
 * them. Returns the count, or -1 when a quote is unbalanced, text follows a
 * closing quote, or there are more than max fields. */
int csv_split(char *line, char **field, int max);

/* A CSV file read row by row, its columns found by name in the header: the
 * measured sweeps validate and calibrate read. Lines longer than
 * CSV_LINE_MAX are an error. */
#define CSV_LINE_MAX 16384
#define CSV_MAX_FIELDS 128

typedef struct csv_table csv_table;

/* Opens path and reads its header: col[i] gets the field index of names[i],
 * or -1 when the header lacks it; a missing required[i] is an error
 * "FILE:1: missing column 'NAME'". */
csv_table *csv_table_open(const char *path, const char *const *names, const bool *required, int *col, size_t n,
                          diag *d);
/* The next non-empty row: 1 with *field (valid until the next call) and
 * *line; 0 at the end; -1 on a malformed line, an over-long one, or a row
 * whose field count differs from the header's ("FILE:LINE: ...": a row
 * cut short would otherwise give a truncated last number). */
int csv_table_next(csv_table *t, char ***field, unsigned long *line, diag *d);
/* Field col of the current row, "" when col < 0 (no such column). */
const char *csv_table_get(csv_table *t, int col);
void csv_table_close(csv_table *t);

#ifdef __cplusplus
}
#endif

#endif
