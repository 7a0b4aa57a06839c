/* tlbsim/ptview.h — page tables in words, as `tlbsim explain` and `tlbsim
 * dump` (and `run --dump-pt`, the quiz, libtlbsim) show them.
 *
 * ptview_explain    addresses touched in order on one machine (each page
 *                   mapped as demand paging maps one), then each walked in
 *                   the final table: per level the VA bits, the index, the
 *                   entry read and what it says; the PA; the set each TLB
 *                   array would use. Text or JSON (README, "Seeing the page
 *                   table"; docs/OUTPUT.md).
 * ptview_dump_*     a machine's current page table level by level, in the
 *                   form of OSTEP's multilevel-paging homework: each table
 *                   with its address, the VA range and index bits, then its
 *                   valid entries as index: raw word (decoded).
 *
 * The raw word is tlbsim's own layout in every format (pt.h): flags in the
 * top byte, the next table's or the frame's address below.
 */
#ifndef TLBSIM_PTVIEW_H
#define TLBSIM_PTVIEW_H

#include <json-c/json.h>
#include <stdio.h>

#include "tlbsim/machine.h"

/* An entry's decoded fields in words: "not valid", "V next table 0x..",
 * "V rw- leaf 256B page, frame 0x3 (pa 0x300)". */
void ptview_entry_text(const pt_entry *e, char *buf, size_t len);
/* The n addresses (each within the format: the caller checks) touched
 * (touch false: not; the walks then stop at the empty root) on a machine of
 * ms with pages of 2^shift bytes, then walked: text or (json) one JSON
 * document to out. -1 (d) when the machine cannot be built. */
int ptview_explain(FILE *out, const machine_spec *ms, unsigned shift, const uint64_t *va, size_t n, bool json,
                   bool touch, diag *d);
/* m's current page table as text: -1 when out of memory. */
int ptview_dump_text(FILE *out, const machine *m);
/* The same as one JSON object (format, va_bits, pages_mapped, table_bytes,
 * at_mark: the label and line it stands at or null, levels[] of tables[]
 * of valid_entries[]); NULL when out of memory. */
json_object *ptview_dump_json(const machine *m, const char *at_label, unsigned long at_line);

#endif
