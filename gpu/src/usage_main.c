/* usage_main.c — tlbsim_gpu_usage: prints tlbsim-gpu's --help text, which
 * its man page is made from (man/gen_man.sh), where tlbsim-gpu itself is not
 * built (it needs CUDA). Not installed; not gpu_*.c, so the device build
 * (gpu/scripts/device_sweep.sh), which links those into tlbsim-gpu, leaves
 * it out. */
#include <stdio.h>

#include "gpu_opts.h"

int main(void) { return fputs(gpu_usage, stdout) == EOF; }
