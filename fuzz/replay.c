/* main() for a harness built without libFuzzer: runs LLVMFuzzerTestOneInput
 * on every file named, or in a directory named (not recursively), as
 * libFuzzer does when given files. Exit 0 when every input ran (a harness
 * that finds a bug aborts, and the sanitizers stop on theirs). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "%s: cannot open\n", path), -1;
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      uint8_t *grown = realloc(buf, cap *= 2);
      if (!grown) free(buf);
      buf = grown;
    }
  }
  bool bad = !buf || ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return fprintf(stderr, "%s: cannot read\n", path), -1;
  }
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A directory's regular files, in name order so runs are repeatable. */
static int run_dir(const char *dir, unsigned *count) {
  DIR *d = opendir(dir);
  if (!d) return fprintf(stderr, "%s: cannot open\n", dir), -1;
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
      if (!grown) { rc = -1; break; }
      names = grown;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if (!(names[n] = malloc(len))) { rc = -1; break; }
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_names);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (rc == 0 && !stat(names[i], &st) && S_ISREG(st.st_mode)) {
      rc = run_file(names[i]);
      (*count)++;
    }
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  unsigned count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st)) return fprintf(stderr, "%s: no such file or directory\n", argv[i]), 1;
    int rc = S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : (count++, run_file(argv[i]));
    if (rc) return 1;
  }
  printf("%u inputs ran\n", count);
  return 0;
}
