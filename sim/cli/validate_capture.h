/* sim/cli/validate_capture.h — `tlbsim validate` of a capture (a native
 * trace of libtlbsim-capture): the driver's layout, every allocation at its
 * recorded va=, against where the allocator models place the same requests
 * (docs/ALLOC.md, "Layout fidelity of a capture"). */
#ifndef TLBSIM_CLI_VALIDATE_CAPTURE_H
#define TLBSIM_CLI_VALIDATE_CAPTURE_H

#include "tlbsim/machine.h"

typedef struct validate_capture_opts {
  const char *path, *label;
  int format; /* report_format */
} validate_capture_opts;

/* Whether path is a native trace (a capture) rather than measured rows. */
bool validate_capture_sniff(const char *path);
/* Prints the comparison; the process exit status. */
int validate_capture(const machine_spec *spec, const validate_capture_opts *o);

#endif
