/* tlbsim/csv.h — CSV as RFC 4180 has it, written and read the one way
 * everywhere (reports, timelines, measured sweeps): a field holding a
 * comma, a quote or a line end is quoted, with quotes doubled. */
#ifndef TLBSIM_CSV_H
#define TLBSIM_CSV_H

#include <stdio.h>

/* Writes s as one field, quoted when it must be. */
void csv_write_field(FILE *f, const char *s);
/* Splits one line (its line end removed) into fields in place, unquoting
 * them. Returns the count, or -1 when a quote is unbalanced, text follows a
 * closing quote, or there are more than max fields. */
int csv_split(char *line, char **field, int max);

#endif
