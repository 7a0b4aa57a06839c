/* tlbsim/report_alloc.h — the summary of an allocation replay (`tlbsim
 * alloc`), one JSON object per policy (keys: DESIGN.md's "JSON from
 * alloc", docs/ALLOC.md, docs/OUTPUT.md), written as JSON (an array of
 * them, one policy or several), CSV (one row per policy) or text (a table,
 * policies side by side, the recording beside them).
 */
#ifndef TLBSIM_REPORT_ALLOC_H
#define TLBSIM_REPORT_ALLOC_H

#include <stdio.h>

#include "tlbsim/allocreplay.h"
#include "tlbsim/report.h"

/* r's summary as it stands (after the last event: the recording's totals
 * are complete only then); partial: the replay stopped before the last
 * (an interrupt), each object gets "partial": true. -1 when out of memory. */
int report_alloc_write(FILE *out, report_format f, const allocreplay *r, bool partial);

#endif
