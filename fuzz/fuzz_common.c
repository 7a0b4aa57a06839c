/* What the harnesses share (fuzz.h). */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int fuzz_file_open(fuzz_file *f, const uint8_t *data, size_t size) {
  f->fd = memfd_create("tlbsim-fuzz", 0);
  if (f->fd < 0) return -1;
  for (size_t done = 0; done < size;) {
    ssize_t n = write(f->fd, data + done, size - done);
    if (n <= 0) {
      close(f->fd);
      return -1;
    }
    done += (size_t)n;
  }
  snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
  return 0;
}

void fuzz_file_close(fuzz_file *f) { close(f->fd); }

char *fuzz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

void fuzz_check_diag(const diag *d) {
  if (!d->msg[0] || strchr(d->msg, '\n')) {
    fprintf(stderr, "not one line: '%s'\n", d->msg);
    abort();
  }
}

/* Read once per preset: a spec is plain data, and a harness runs
 * thousands of inputs a second on the same one. */
void fuzz_preset_spec(const char *name, machine_spec *spec) {
  static struct {
    char name[32];
    machine_spec spec;
  } cache[4];
  for (size_t i = 0; i < sizeof cache / sizeof cache[0]; i++) {
    if (!strcmp(cache[i].name, name)) {
      *spec = cache[i].spec;
      return;
    }
    if (cache[i].name[0]) continue;
    diag d;
    cfg *c = cfg_create();
    if (!c || strlen(name) >= sizeof cache[i].name || loader_load_preset(c, name, &d) ||
        machine_spec_read(c, &cache[i].spec, &d)) {
      fprintf(stderr, "preset %s: %s\n", name, c ? d.msg : "out of memory");
      abort();
    }
    cfg_destroy(c);
    strcpy(cache[i].name, name);
    *spec = cache[i].spec;
    return;
  }
  abort();
}
