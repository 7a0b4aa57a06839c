/* champsim_record.h — ChampSim's trace record, transcribed for writing
 * test fixtures the way ChampSim's own tracer does (fwrite of the struct),
 * independently of tlbsim's reader.
 *
 * Source: github.com/ChampSim/ChampSim, inc/trace_instruction.h (commit
 * 2ff25011, "struct input_instr"), with NUM_INSTR_DESTINATIONS = 2 and
 * NUM_INSTR_SOURCES = 4 as defined there. Field names and order are
 * ChampSim's; only the C++ constexpr sizes became literals.
 */
#ifndef TLBSIM_TESTS_CHAMPSIM_RECORD_H
#define TLBSIM_TESTS_CHAMPSIM_RECORD_H

#include <stddef.h>

struct input_instr {
  // instruction pointer or PC (Program Counter)
  unsigned long long ip;

  // branch info
  unsigned char is_branch;
  unsigned char branch_taken;

  unsigned char destination_registers[2]; // output registers
  unsigned char source_registers[4];      // input registers

  unsigned long long destination_memory[2]; // output memory
  unsigned long long source_memory[4];      // input memory
};

/* The layout ChampSim's traces have on the x86-64 machines that write them. */
_Static_assert(sizeof(struct input_instr) == 64, "input_instr is 64 bytes");
_Static_assert(offsetof(struct input_instr, destination_memory) == 16, "stores at 16");
_Static_assert(offsetof(struct input_instr, source_memory) == 32, "loads at 32");

#endif
