/* man_source — prints what the man pages are generated from that no
 * installed program prints: the --help of tlbsim-gpu (built only where
 * CUDA is) and the allocator parameters of a [vas] section, from the very
 * tables the programs use (man/gen_man.sh; not installed).
 *   man_source gpu-usage | vas-keys */
#include <stdio.h>
#include <string.h>

#include "gpu_opts.h"
#include "tlbsim/vas.h"

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "gpu-usage")) return fputs(gpu_usage, stdout) == EOF;
  if (argc != 2 || strcmp(argv[1], "vas-keys")) return fputs("usage: man_source gpu-usage|vas-keys\n", stderr), 2;
  for (size_t i = 0; i < vas_param_count(); i++) {
    const char *doc, *name = vas_param_at(i, &doc);
    if (strcmp(name, "capacity")) printf("%s|%s\n", name, doc); /* capacity is [machine] phys_memory */
  }
  return 0;
}
