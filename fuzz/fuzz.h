/* fuzz/fuzz.h — what the harnesses share.
 *
 * Each harness is one LLVMFuzzerTestOneInput: built with libFuzzer
 * (-DTLBSIM_FUZZ=ON, clang) it is fuzzed; built with replay.c's main (any
 * compiler, every build) it runs the committed corpus and every input a
 * fuzzer once failed on, as a ctest regression test.
 *
 * fuzz_file  an input as a file: a memfd named /proc/self/fd/N, so a reader
 *            is driven through the very path a user's file takes (open,
 *            gzip sniffing, line splitting), not through a side door.
 * fuzz_check the harnesses' own oracle: what every tlbsim error must be (one
 *            non-empty line); a breach aborts, which the fuzzer reports.
 */
#ifndef TLBSIM_FUZZ_H
#define TLBSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "tlbsim/loader.h"
#include "tlbsim/machine.h"

typedef struct fuzz_file {
  int fd;
  char path[64];
} fuzz_file;

/* 0, or -1 (aborting is the harness's choice) when no memfd can be made. */
int fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size);
void fuzz_file_close(fuzz_file *f);

/* data as a NUL-terminated string (freed by the caller); NUL bytes inside
 * stay, so a reader of C strings sees only the first part. */
char *fuzz_string(const uint8_t *data, size_t size);

/* Aborts unless d holds one non-empty line. */
void fuzz_check_diag(const diag *d);

/* Preset NAME of sim/presets read into *spec. Aborts when a committed
 * preset does not load: that is a bug, not an input. */
void fuzz_preset_spec(const char *name, machine_spec *spec);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
