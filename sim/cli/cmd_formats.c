/* tlbsim formats — what can be named: page-table formats, presets,
 * allocator policies, trace formats, replacement policies. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "tlbsim/loader.h"
#include "cmds.h"
#include "tlbsim/machine.h"
#include "tlbsim/pt.h"
#include "tlbsim/trace.h"
#include "tlbsim/vas.h"

static void print_format(const pt_format *f) {
  printf("  %-11s %2u-bit VA%s, levels", f->name, f->va_bits, f->sign_extend ? " (sign-extended)" : "");
  for (unsigned l = 0; l < f->nlevels; l++) printf(" %s", f->level[l].name);
  printf("; pages");
  for (unsigned k = 0; k < f->nleaves; k++) {
    char buf[32];
    printf(" %s@%s", num_format_size(1ull << f->leaf[k].page_shift, buf, sizeof buf), f->level[f->leaf[k].level].name);
  }
  printf("\n");
}

/* A configuration's format, level by level as [format.NAME] writes it. */
static void print_format_detail(const pt_format *f, const char *label) {
  printf("page-table format of %s: %s (%s)\n", label, f->name, f->description);
  printf("  va_bits = %u%s\n  levels =", f->va_bits, f->sign_extend ? "\n  sign_extend = true" : "");
  for (unsigned l = 0; l < f->nlevels; l++)
    printf("%s %s:%u:%u:%u", l ? "," : "", f->level[l].name, f->level[l].shift, f->level[l].bits,
           f->level[l].entry_bytes);
  printf("\n  leaves =");
  for (unsigned k = 0; k < f->nleaves; k++) {
    char buf[32];
    printf("%s %s@%s", k ? "," : "", num_format_size(1ull << f->leaf[k].page_shift, buf, sizeof buf),
           f->level[f->leaf[k].level].name);
  }
  printf("\n");
}

static void list_formats(void) {
  printf("page-table formats:\n");
  for (size_t i = 0; i < pt_format_count(); i++) print_format(pt_format_at(i));
}

/* What a preset says it is: the first sentence of its opening comment,
 * without the leading "NAME:", cut to fit a line. */
static void preset_summary(const char *name, FILE *f, char *out, size_t len) {
  enum { WIDTH = 80 };
  char line[256], text[512] = "";
  size_t at = 0;
  while (at < sizeof text - 1 && fgets(line, sizeof line, f) && line[0] == ';') {
    const char *s = line + 1 + strspn(line + 1, " ");
    at += (size_t)snprintf(text + at, sizeof text - at, "%s%.*s", at ? " " : "", (int)strcspn(s, "\r\n"), s);
    if (at && text[at - 1] == '.') break;
  }
  char *s = text, *colon = strchr(text, ':');
  if (colon && (size_t)(colon - text) == strlen(name) && !strncmp(text, name, (size_t)(colon - text)))
    s = colon + 1 + strspn(colon + 1, " ");
  char *stop = strstr(s, ". ");
  if (stop) stop[1] = '\0';
  if (strlen(s) > WIDTH) {
    char *cut = s + WIDTH - 3;
    while (cut > s && *cut != ' ') cut--;
    strcpy(cut, " ...");
  }
  snprintf(out, len, "%s", s);
}

/* The presets listed so far, for marking a name an earlier place also has
 * as shadowed (--preset finds that one). */
typedef struct listing {
  char seen[64][64];
  size_t nseen;
  const char *last_dir;
  bool any;
} listing;

static void end_group(listing *l) {
  if (l->any) printf("  (from %s)\n", l->last_dir ? l->last_dir : "the presets compiled into tlbsim");
}

static void list_one(void *ctx, const char *name, const char *dir, const char *text) {
  listing *l = ctx;
  if (l->any && dir != l->last_dir) end_group(l); /* the loader passes one pointer per directory */
  l->last_dir = dir;
  l->any = true;
  bool shadowed = false;
  for (size_t i = 0; i < l->nseen; i++) shadowed |= !strcmp(l->seen[i], name);
  if (l->nseen < sizeof l->seen / sizeof l->seen[0]) snprintf(l->seen[l->nseen++], sizeof l->seen[0], "%s", name);
  char summary[256] = "", path[4096];
  snprintf(path, sizeof path, "%s/%s.ini", dir ? dir : "", name);
  FILE *f = text ? fmemopen((void *)(uintptr_t)text, strlen(text), "r") : fopen(path, "r");
  if (f) {
    preset_summary(name, f, summary, sizeof summary);
    fclose(f);
  }
  printf("  %-10s %s%s\n", name, shadowed ? "(shadowed) " : "", summary);
}

static void list_presets(void) {
  printf("presets:\n");
  listing l = {0};
  loader_each_preset(list_one, &l);
  end_group(&l);
}

/* --keys: every SECTION.KEY a --set of this configuration can name, one
 * a line, a generic section ([tlb.NAME], [pwc.LEVEL], ...) once per
 * instance the configuration has (tlbsim.ini(5) says what each means). */
typedef struct key_list {
  const machine_spec *ms;
  const cfg *c;
  char (*name)[MMU_ARRAY_NAME_MAX + 48];
  size_t n, cap;
  bool failed; /* out of memory */
} key_list;

static void add_key(key_list *k, const char *fmt, const char *a, const char *b) {
  if (k->n == k->cap) {
    size_t cap = k->cap ? 2 * k->cap : 256;
    void *grown = realloc(k->name, cap * sizeof *k->name);
    if (!grown) return (void)(k->failed = true);
    k->name = grown;
    k->cap = cap;
  }
  snprintf(k->name[k->n++], sizeof k->name[0], fmt, a, b);
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

static void list_instances(void *ctx, const char *section, const char *key, const char *unit, const char *def,
                            const char *doc) {
  (void)unit, (void)def, (void)doc;
  key_list *k = ctx;
  const mmu_config *mc = &k->ms->sys.mmu;
  const pt_format *f = &k->ms->format;
  char name[MMU_ARRAY_NAME_MAX];
  if (!strcmp(section, "tlb.NAME")) {
    for (unsigned l = 0; l < mc->nlevels; l++) add_key(k, "tlb.%s.%s", mc->level[l].name, key);
  } else if (!strcmp(section, "tlb.NAME:SIZE")) {
    for (unsigned l = 0; l < mc->nlevels; l++)
      for (unsigned a = 1; a < mc->level[l].narrays; a++)
        add_key(k, "tlb.%s.%s", mmu_array_name(&mc->level[l], a, name, sizeof name), key);
  } else if (!strcmp(section, "pwc.LEVEL")) {
    for (unsigned l = 0; l + 1 < f->nlevels; l++) { /* the last level holds leaves only */
      size_t n = 0;
      for (const char *p = f->level[l].name; *p && n + 1 < sizeof name; p++)
        if (*p != '[' && *p != ']') name[n++] = *p; /* [pwc.VPN2] for Sv39's VPN[2] */
      name[n] = '\0';
      add_key(k, "pwc.%s.%s", name, key);
    }
  } else if (!strcmp(section, "format.NAME")) {
    char sec[96];
    snprintf(sec, sizeof sec, "format.%s", f->name);
    if (cfg_has_section(k->c, sec)) add_key(k, "%s.%s", sec, key); /* a format of the configuration's own */
  } else if (strcmp(section, "gpu") || k->ms->gpu.sms) {
    add_key(k, "%s.%s", section, key);
  }
}

int cmd_formats(int argc, char **argv) {
  cli_config conf = {0};
  bool keys = false;
  const cli_opt opts[] = {
      CLI_CONFIG_OPTS(&conf),
      {.name = "keys", .kind = OPT_FLAG, .dest = &keys,
       .help = "only the SECTION.KEY names a --set of that configuration (default x86-64)\n"
               "can change, one a line: what shell completion offers"},
  };
  const cli_spec spec = {.cmd = "formats", .usage = "[--preset NAME | --config FILE] [--keys]",
                         .about = "Lists page-table formats, presets, allocator policies, trace formats and\n"
                                  "TLB replacement policies. With --preset or --config, first that\n"
                                  "configuration's page-table format (a built-in one or its [format.NAME]),\n"
                                  "written as a [format.NAME] section would write it, then its TLB levels,\n"
                                  "walk caches and latencies.",
                         .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  if (conf.preset || conf.config || conf.nsets || keys) {
    diag d;
    const char *label;
    machine_spec ms;
    cfg *c = cli_load_spec(&conf, "x86-64", &label, &ms, &d);
    if (!c) return cli_input_error(&d);
    if (keys) { /* sorted: each level's keys together */
      key_list k = {.ms = &ms, .c = c};
      loader_each_key(list_instances, &k);
      qsort(k.name, k.n, sizeof k.name[0], by_name);
      for (size_t i = 0; i < k.n; i++) puts(k.name[i]);
      free(k.name);
      cfg_destroy(c);
      if (k.failed) return fprintf(stderr, "tlbsim formats: out of memory\n"), EXIT_INPUT;
      return EXIT_OK;
    }
    print_format_detail(&ms.format, label);
    printf("TLB levels, walk caches and latencies of %s:\n", label);
    cli_print_machine(stdout, &ms);
    cfg_destroy(c);
  }
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
