/* tlbsim/tlblog.h — the per-access log: one line per trace record, as
 * Cache Lab's `csim -v` does for a cache (`tlbsim run --log`).
 *
 * tlblog    watches one machine through its MMU observer
 *           (machine_set_observer) while records are applied one at a
 *           time through it, and writes a line per record: for an access,
 *           per page translated its VPN, each TLB level looked up (set, hit
 *           or miss, the victim a fill evicted), the walk (entries read,
 *           walk-cache hit, line-cache hits, page-table pages created, a
 *           demand-paging fault), a fault, the PFN and physical address,
 *           the cycles; for alloc, free, map, unmap and protect the VA
 *           range, page size, PTEs written and cleared, page-table pages
 *           created, shootdowns and the entries they dropped; ctx and mark
 *           as themselves. Text lines are terse and greppable; JSON lines
 *           are one object per record (keys in README, "Watching each
 *           access").
 *
 * Counts add up: the sums over an access's lines of "cycles", "walk_refs"
 * and each level's hits, misses and evictions are the report's totals.
 * A replay without a log never sets an observer, so it pays nothing.
 */
#ifndef TLBSIM_TLBLOG_H
#define TLBSIM_TLBLOG_H

#include <stdio.h>

#include "tlbsim/machine.h"

typedef enum { TLBLOG_TEXT, TLBLOG_JSON } tlblog_format;

typedef struct tlblog tlblog;

/* Starts watching m (which must outlive the log): sets its observer. */
tlblog *tlblog_create(machine *m, FILE *out, tlblog_format f, diag *d);
/* Clears m's observer. */
void tlblog_destroy(tlblog *l);
/* Applies r to the machine (machine_apply) and writes its line; the
 * machine's error, if any, after whatever the record did. */
int tlblog_apply(tlblog *l, const trace_record *r, const char *file, diag *d);

#endif
