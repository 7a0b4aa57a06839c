/* trace_champsim.c — ChampSim's instruction traces (.champsimtrace, usually
 * .xz or .gz): records of ChampSim's `struct input_instr`
 * (inc/trace_instruction.h in github.com/ChampSim/ChampSim), 64 bytes each,
 * little-endian, no header:
 *
 *   offset  0  ip                          8 bytes, the instruction's address
 *           8  is_branch, 9 branch_taken   1 byte each, 0 or 1
 *          10  destination_registers[2]    1 byte each (not used here)
 *          12  source_registers[4]         1 byte each (not used here)
 *          16  destination_memory[2]       8 bytes each: stores, 0 for none
 *          32  source_memory[4]            8 bytes each: loads, 0 for none
 *
 * A record becomes an instruction fetch at ip, a read per nonzero source
 * and a write per nonzero destination, in that order, all 1 byte long (the
 * trace holds no sizes; ChampSim drops the zero slots the same way). An
 * error names the record's number as its LINE. CloudSuite's 96-byte SPARC
 * records (cloudsuite_instr) are not read.
 */
#include "trace_fmt.h"

#define MAX_ACCESSES 7 /* one fetch, four loads, two stores */
#define DST_MEMORY 16
#define SRC_MEMORY 32
#define ADDRESS_BITS 48 /* every address of a real trace is below 2^48: what auto-detection checks */

static uint64_t le64(const uint8_t *p) {
  uint64_t v = 0;
  for (unsigned i = 8; i-- > 0;) v = v << 8 | p[i];
  return v;
}

int trace_champsim_decode(trace_bytes *in, trace_block *b, diag *d) {
  while (in->last ? in->p < in->end : in->end - in->p >= TRACE_CHAMPSIM_RECORD) {
    if (b->n + MAX_ACCESSES > TRACE_BLOCK_MAX) return TRACE_DECODE_FULL;
    const uint8_t *p = in->p;
    in->recno++;
    if (in->end - p < TRACE_CHAMPSIM_RECORD)
      return diag_set(d, in->file, in->recno, "ChampSim record %lu is cut off: the input ends %ld bytes into its %d",
                      in->recno, (long)(in->end - p), TRACE_CHAMPSIM_RECORD);
    if (p[8] > 1 || p[9] > 1)
      return diag_set(d, in->file, in->recno,
                      "ChampSim record %lu: is_branch and branch_taken must be 0 or 1, not %u and %u (a CloudSuite "
                      "trace, or not a ChampSim trace?)",
                      in->recno, p[8], p[9]);
    trace_emit_access(b, TRACE_EXEC, le64(p), 1, in->recno);
    for (unsigned i = 0; i < 4; i++) {
      uint64_t a = le64(p + SRC_MEMORY + 8 * i);
      if (a) trace_emit_access(b, TRACE_READ, a, 1, in->recno);
    }
    for (unsigned i = 0; i < 2; i++) {
      uint64_t a = le64(p + DST_MEMORY + 8 * i);
      if (a) trace_emit_access(b, TRACE_WRITE, a, 1, in->recno);
    }
    in->p = p + TRACE_CHAMPSIM_RECORD;
  }
  return 0;
}

bool trace_champsim_sniff(const uint8_t *p, size_t n) {
  if (n < TRACE_CHAMPSIM_RECORD || !le64(p) || p[8] > 1 || p[9] > p[8]) return false;
  for (unsigned off = 0; off < TRACE_CHAMPSIM_RECORD; off += off ? 8 : DST_MEMORY)
    if (le64(p + off) >> ADDRESS_BITS) return false;
  return true;
}
