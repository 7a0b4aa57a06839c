/* tlbsim formats — what can be named: page-table formats, presets,
 * allocator policies, trace formats, replacement policies. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cmds.h"
#include "tlbsim/pt.h"
#include "tlbsim/trace.h"
#include "tlbsim/vas.h"

static void list_formats(void) {
  printf("page-table formats:\n");
  for (size_t i = 0; i < pt_format_count(); i++) {
    const pt_format *f = pt_format_at(i);
    printf("  %-11s %2u-bit VA, levels", f->name, f->va_bits);
    for (unsigned l = 0; l < f->nlevels; l++) printf(" %s", f->level[l].name);
    printf("; pages");
    for (unsigned k = 0; k < f->nleaves; k++) {
      char buf[32];
      printf(" %s@%s", num_format_size(1ull << f->leaf[k].page_shift, buf, sizeof buf), f->level[f->leaf[k].level].name);
    }
    printf("\n");
  }
}

static void list_presets(void) {
  cli_preset_dirs dirs;
  cli_find_preset_dirs(&dirs);
  printf("presets:\n");
  for (size_t i = 0; i < dirs.n; i++) {
    DIR *dir = opendir(dirs.dir[i]);
    if (!dir) continue;
    struct dirent *e;
    while ((e = readdir(dir))) {
      size_t len = strlen(e->d_name);
      if (len > 4 && !strcmp(e->d_name + len - 4, ".ini")) printf("  %.*s  (%s)\n", (int)(len - 4), e->d_name, dirs.dir[i]);
    }
    closedir(dir);
  }
}

int cmd_formats(int argc, char **argv) {
  const cli_spec spec = {.cmd = "formats", .usage = "",
                         .about = "Lists page-table formats, presets, allocator policies, trace formats and\n"
                                  "TLB replacement policies."};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  list_formats();
  list_presets();
  printf("allocator policies:\n ");
  for (size_t i = 0; i < vas_policy_count(); i++) printf(" %s", vas_policy_at(i));
  printf("\ntrace formats:\n ");
  for (size_t i = 0; trace_format_names[i]; i++) printf(" %s", trace_format_names[i]);
  printf("\nTLB replacement policies:\n ");
  for (int p = TLB_LRU; p <= TLB_PLRU; p++) printf(" %s", tlb_policy_name((tlb_policy)p));
  printf("\n");
  return EXIT_OK;
}
