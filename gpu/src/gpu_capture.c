/* gpu_capture.c — `tlbsim-gpu capture` (gpu_capture.h). */
#include "gpu_capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char gpu_capture_usage[] =
    "usage: tlbsim-gpu capture -o OUT.trace [--lib PATH] -- PROGRAM [ARGS...]\n"
    "Runs PROGRAM with libtlbsim-capture.so injected (CUDA_INJECTION64_PATH) and writes what it asked of\n"
    "the CUDA driver to OUT.trace (a native tlbsim trace; refused if it exists). --lib names the library\n"
    "(default: $TLBSIM_CAPTURE_LIB, else next to tlbsim-gpu, else ../lib). TLBSIM_CAPTURE_KERNELS=0 leaves\n"
    "kernels out; TLBSIM_CAPTURE_MEMINFO_US sets the least time between cuMemGetInfo samples (1000).\n";

static int put(char *dst, const char *src, diag *d) {
  if (strlen(src) >= GPU_CAPTURE_PATH_MAX) return diag_set(d, NULL, 0, "capture: a path longer than %d bytes", GPU_CAPTURE_PATH_MAX - 1);
  strcpy(dst, src);
  return 0;
}

/* The library next to self, or in ../lib beside it: 0 when one exists. */
static int beside(const char *self, gpu_capture_plan *p) {
  static const char *const where[] = {"/libtlbsim-capture.so", "/../lib/libtlbsim-capture.so"};
  const char *slash = self ? strrchr(self, '/') : NULL;
  for (size_t i = 0; slash && i < sizeof where / sizeof where[0]; i++) {
    int n = snprintf(p->lib, sizeof p->lib, "%.*s%s", (int)(slash - self), self, where[i]);
    if (n > 0 && (size_t)n < sizeof p->lib && !access(p->lib, R_OK)) return 0;
  }
  return -1;
}

int gpu_capture_parse(int argc, char **argv, const char *self, gpu_capture_plan *p, diag *d) {
  const char *out = NULL, *lib = NULL;
  int i = 1;
  while (i < argc && strcmp(argv[i], "--")) { /* OPTION VALUE pairs */
    bool takes = !strcmp(argv[i], "-o") || !strcmp(argv[i], "--out") || !strcmp(argv[i], "--lib");
    if (!takes) return diag_set(d, NULL, 0, "capture: unknown option '%s' (the program goes after --)", argv[i]);
    if (i + 1 >= argc) return diag_set(d, NULL, 0, "capture: %s needs a value", argv[i]);
    *(strcmp(argv[i], "--lib") ? &out : &lib) = argv[i + 1];
    i += 2;
  }
  if (!out) return diag_set(d, NULL, 0, "capture: -o OUT.trace is required");
  if (i + 1 >= argc) return diag_set(d, NULL, 0, "capture: no program: put it after --");
  if (!access(out, F_OK)) return diag_set(d, NULL, 0, "capture: %s exists: a capture does not overwrite a file", out);
  char cwd[GPU_CAPTURE_PATH_MAX];
  if (out[0] != '/') {
    if (!getcwd(cwd, sizeof cwd)) return diag_set(d, NULL, 0, "capture: cannot tell the working directory");
    int n = snprintf(p->out, sizeof p->out, "%s/%s", cwd, out);
    if (n < 0 || (size_t)n >= sizeof p->out) return diag_set(d, NULL, 0, "capture: %s: path too long", out);
  } else if (put(p->out, out, d)) {
    return -1;
  }
  if (!lib) lib = getenv("TLBSIM_CAPTURE_LIB");
  if (lib && *lib) {
    if (put(p->lib, lib, d)) return -1;
    if (access(p->lib, R_OK)) return diag_set(d, NULL, 0, "capture: %s: %s", p->lib, strerror(errno));
  } else if (beside(self, p)) {
    return diag_set(d, NULL, 0, "capture: libtlbsim-capture.so is not beside tlbsim-gpu or in ../lib: give --lib");
  }
  p->argv = argv + i + 1;
  return 0;
}

int gpu_capture_exec(const gpu_capture_plan *p, diag *d) {
  if (setenv("CUDA_INJECTION64_PATH", p->lib, 1) || setenv("TLBSIM_CAPTURE", p->out, 1))
    return diag_set(d, NULL, 0, "capture: cannot set the environment");
  execvp(p->argv[0], p->argv);
  return diag_set(d, NULL, 0, "capture: %s: %s", p->argv[0], strerror(errno));
}
