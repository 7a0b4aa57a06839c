/* gpu_capture.h — `tlbsim-gpu capture -o OUT.trace [--lib PATH] -- PROGRAM [ARGS...]`:
 * runs PROGRAM unmodified with libtlbsim-capture.so injected by the CUDA
 * driver (CUDA_INJECTION64_PATH) and TLBSIM_CAPTURE set to OUT.trace
 * (traces/FORMAT.md, "Captured programs"; gpu/README.md).
 *
 * gpu_capture_plan  what the command line asks: the trace (refused when it
 *                   exists: a capture never overwrites), the library (--lib,
 *                   else $TLBSIM_CAPTURE_LIB, else next to tlbsim-gpu, else
 *                   in ../lib), the program and its arguments. Plain C, no
 *                   CUDA: the caller execs it.
 */
#ifndef TLBSIM_GPU_CAPTURE_H
#define TLBSIM_GPU_CAPTURE_H

#include "tlbsim/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_CAPTURE_PATH_MAX 4096

typedef struct gpu_capture_plan {
  char out[GPU_CAPTURE_PATH_MAX]; /* absolute, for a program that changes directory */
  char lib[GPU_CAPTURE_PATH_MAX];
  char **argv;                    /* PROGRAM ARGS..., NULL-terminated (points into the caller's argv) */
} gpu_capture_plan;

extern const char gpu_capture_usage[];

/* argv[0] is "capture"; self: the path of tlbsim-gpu (NULL: unknown). 0,
 * or -1 with d "capture: what is wrong" (a usage error: exit status 2). */
int gpu_capture_parse(int argc, char **argv, const char *self, gpu_capture_plan *p, diag *d);
/* Sets the environment and execs p->argv; returns only on failure (-1, d). */
int gpu_capture_exec(const gpu_capture_plan *p, diag *d);

#ifdef __cplusplus
}
#endif

#endif
