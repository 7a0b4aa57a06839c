/* Tests for the loader: every compiled-in preset builds a machine (with
 * its errors named NAME.ini), $TLBSIM_PRESET_PATH comes first and may
 * shadow one, bad names and overrides are errors that say where, and a
 * listing has each preset once per place it is found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tlbsim/loader.h"

static void test_builtins(void) {
  static const char *const names[] = {"csapp", "h200", "ostep", "riscv", "teaching", "x86-64"};
  unsetenv("TLBSIM_PRESET_PATH");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    loader_request q = {.preset = names[i]};
    const char *label;
    diag d;
    machine *m = loader_machine(&q, &label, &d);
    if (!m) fprintf(stderr, "\n%s: %s\n", names[i], d.msg);
    CU_ASSERT_PTR_NOT_NULL(m);
    CU_ASSERT_STRING_EQUAL(label, names[i]);
    machine_destroy(m);
  }
  /* The fallback, an override that is wrong and where it is named. */
  const char *sets[] = {"tlb.l1d.entries=64", "tlb.l1d.ways=3"};
  loader_request q = {.fallback = "x86-64", .sets = sets, .nsets = 2, .set_origin = "--set"};
  const char *label;
  diag d;
  CU_ASSERT_PTR_NULL(loader_machine(&q, &label, &d));
  CU_ASSERT_EQUAL(strncmp(d.msg, "--set:2: tlb.l1d.ways", 21), 0);
  cfg *c = cfg_create();
  CU_ASSERT_EQUAL(loader_load_preset(c, "h200", &d), 0);
  CU_ASSERT_STRING_EQUAL(cfg_file(c), "h200.ini");
  CU_ASSERT_PTR_NOT_NULL(cfg_text(c));
  CU_ASSERT_EQUAL(loader_load_preset(c, "nope", &d), -1);
  CU_ASSERT_STRING_EQUAL(d.msg, "--preset: no preset named 'nope' (see tlbsim formats)");
  CU_ASSERT_EQUAL(loader_load_preset(c, "../h200", &d), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "is not a preset name"));
  cfg_destroy(c);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

typedef struct seen {
  int mine, builtin_x86;
  int shadow_dir_first; /* the directory's x86-64 came before the compiled-in one */
} seen;

static void note(void *ctx, const char *name, const char *dir, const char *text) {
  seen *s = ctx;
  if (!strcmp(name, "mine")) s->mine++;
  if (!strcmp(name, "x86-64") && !text) s->shadow_dir_first = s->builtin_x86 == 0;
  if (!strcmp(name, "x86-64") && text && !dir) s->builtin_x86++;
}

/* A directory of $TLBSIM_PRESET_PATH comes first: its x86-64 is found, its
 * errors name its file, and a preset only it has is found too. */
static void test_path_first(void) {
  write_file("loader_x86-64.ini", "[tlb.l1d]\nentries = 4\n");
  CU_ASSERT_EQUAL(system("mkdir -p loader_dir && mv loader_x86-64.ini loader_dir/x86-64.ini"), 0);
  write_file("loader_dir/mine.ini", "[tlb.l1d]\nentries = zero\n");
  setenv("TLBSIM_PRESET_PATH", "/nonexistent:loader_dir", 1);
  diag d;
  const char *label;
  loader_request q = {.preset = "x86-64"};
  machine_spec spec;
  cfg *c = loader_spec(&q, &label, &spec, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT_EQUAL(spec.sys.mmu.level[0].array[0].entries, 4);
  CU_ASSERT_STRING_EQUAL(cfg_file(c), "loader_dir/x86-64.ini");
  CU_ASSERT_PTR_NULL(cfg_text(c));
  cfg_destroy(c);
  q.preset = "mine";
  CU_ASSERT_PTR_NULL(loader_machine(&q, &label, &d));
  CU_ASSERT_EQUAL(strncmp(d.msg, "loader_dir/mine.ini:2: tlb.l1d.entries", 38), 0);
  seen s = {0};
  loader_each_preset(note, &s);
  CU_ASSERT_EQUAL(s.mine, 1);
  CU_ASSERT_EQUAL(s.builtin_x86, 1);
  CU_ASSERT_EQUAL(s.shadow_dir_first, 1);
  unsetenv("TLBSIM_PRESET_PATH");
}

int main(void) {
  static const test_case cases[] = {{"compiled-in presets", test_builtins}, {"path first", test_path_first}, {NULL, NULL}};
  static const test_suite suites[] = {{"loader", cases}, {NULL, NULL}};
  return harness_run(suites);
}
