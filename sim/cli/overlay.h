/* sim/cli/overlay.h — the measured-against-predicted figure of `validate
 * --plot`: a grid of panels (two columns), measured points and predicted
 * lines, a colour per class of rows (a stride, a thread count) named in a
 * key.
 *
 * overlay_data  the points, written by the caller into a temporary file:
 *               one gnuplot block per panel (blocks separated by two blank
 *               lines, in panel order), rows "X COLOUR MEASURED PREDICTED"
 *               with COLOUR from 1 to the number of colour names; a blank
 *               line inside a block breaks the predicted line there.
 * overlay       what the figure says: its title, axes and the names of its
 *               panels and colours.
 * overlay_plot renders it through gnuplot into a temporary beside the PNG,
 * renamed over it when complete (never over an input), and removes the data
 * file in every case. */
#ifndef TLBSIM_CLI_OVERLAY_H
#define TLBSIM_CLI_OVERLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "tlbsim/base.h"

typedef struct overlay_data {
  char path[4096];
  FILE *f;
} overlay_data;

typedef struct overlay {
  const char *png, *input;  /* the figure, and the CSV it shows (never overwritten) */
  const char *title;        /* e.g. "cycles per access" */
  const char *colour_title; /* what a colour stands for, e.g. "stride" */
  const char *xtics;        /* gnuplot xtics list, e.g. "('1M' 2**20, '1G' 2**30)" */
  const char *ylabel;
  bool logy;
  const char *panels;       /* panel names, space-separated, in block order */
  const char *colours;      /* colour names, space-separated, for colours 1.. */
} overlay;

/* Opens a temporary data file (in $TMPDIR, else /tmp). */
int overlay_data_open(overlay_data *od, diag *d);
/* Renders o from od (closing and removing it). */
int overlay_plot(const overlay *o, overlay_data *od, diag *d);

#endif
