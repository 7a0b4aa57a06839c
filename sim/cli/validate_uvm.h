/* sim/cli/validate_uvm.h — `tlbsim validate` on a measured uvm CSV (the
 * managed-memory experiment, tlbsim-gpu uvm): each row re-run through
 * tlbsim/uvm_suite.h, every timed column measured against predicted. */
#ifndef TLBSIM_CLI_VALIDATE_UVM_H
#define TLBSIM_CLI_VALIDATE_UVM_H

#include "tlbsim/machine.h"

/* The columns compared, by the bit of their index here (--columns). */
extern const char *const validate_uvm_column_names[];

typedef struct validate_uvm_opts {
  const char *csv, *label;
  unsigned columns;  /* bits of validate_uvm_column_names; 0: all */
  uint64_t every;    /* every Nth row (0, 1: all) */
  double max_mean;   /* < 0: no target; else every compared column's mean absolute % error */
  int format;        /* report_format: text rows and summary, json summary and points, csv summary */
  bool quiet;        /* --quiet: no progress line */
} validate_uvm_opts;

/* Whether path's header is the uvm schema (its first column is init). */
bool validate_uvm_sniff(const char *path);
/* Prints the comparison; the process exit status. */
int validate_uvm(const machine_spec *spec, const validate_uvm_opts *o);

#endif
