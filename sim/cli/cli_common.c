#include "cli_common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/loader.h"
#include "tlbsim/num.h"
#include "tlbsim/machine.h"

/* What the command line names, as the loader takes it. */
static loader_request request(const cli_config *c, const char *fallback) {
  return (loader_request){.preset = c->preset, .config = c->config, .fallback = fallback, .sets = c->sets,
                          .nsets = c->nsets, .set_origin = "--set"};
}

int cli_add_set(void *config, const char *assignment, char *why, size_t len) {
  cli_config *c = config;
  if (c->nsets == CLI_MAX_SETS) return snprintf(why, len, "one more: at most %d --set options", CLI_MAX_SETS), -1;
  c->sets[c->nsets++] = assignment;
  return 0;
}

cfg *cli_load_config(const cli_config *c, const char *fallback, const char **label, diag *d) {
  loader_request q = request(c, fallback);
  return loader_config(&q, label, d);
}

cfg *cli_load_spec(const cli_config *c, const char *fallback, const char **label, machine_spec *spec, diag *d) {
  loader_request q = request(c, fallback);
  return loader_spec(&q, label, spec, d);
}

int cli_load_gpu_spec(const cli_config *c, const char *cmd, const char **label, machine_spec *spec) {
  diag d;
  cfg *conf = cli_load_spec(c, "h200", label, spec, &d);
  if (!conf) return cli_input_error(&d);
  cfg_destroy(conf);
  if (!spec->gpu.sms) return fprintf(stderr, "tlbsim %s: preset %s has no [gpu] section\n", cmd, *label), EXIT_INPUT;
  return EXIT_OK;
}

machine *cli_load_machine(const cli_config *c, const char *fallback, const char **label, diag *d) {
  loader_request q = request(c, fallback);
  return loader_machine(&q, label, d);
}

static void print_level(FILE *f, const mmu_config *mc, const mmu_level_config *lv) {
  char shared[32] = "";
  if (lv->shared_by == MMU_SHARED_BY_ALL) snprintf(shared, sizeof shared, ", shared by all");
  else if (lv->shared_by > 1) snprintf(shared, sizeof shared, ", shared by %u", lv->shared_by);
  fprintf(f, "tlb %-8s serves %s, next %s, latency %u%s:", lv->name,
          lv->serves == SERVES_DATA ? "data" : lv->serves == SERVES_INST ? "inst" : "both",
          lv->next < 0 ? "walk" : mc->level[lv->next].name, lv->latency, shared);
  for (unsigned a = 0; a < lv->narrays; a++) {
    const tlb_geometry *g = &lv->array[a];
    fprintf(f, " [%u %s, %u-way, %s", g->entries, g->entries == 1 ? "entry" : "entries", g->ways,
            tlb_policy_name(g->policy));
    for (unsigned k = 0; k < g->npage_shifts; k++) {
      char buf[32];
      fprintf(f, "%s%s", k ? "/" : ", ", num_format_size(1ull << g->page_shift[k], buf, sizeof buf));
    }
    if (g->sector_pages > 1) fprintf(f, ", %u pages an entry", g->sector_pages);
    fprintf(f, "]");
  }
  fputc('\n', f);
}

void cli_print_machine(FILE *f, const machine_spec *ms) {
  const mmu_config *mc = &ms->sys.mmu;
  for (unsigned i = 0; i < mc->nlevels; i++) print_level(f, mc, &mc->level[i]);
  bool any = false;
  for (unsigned l = 0; l < ms->format.nlevels; l++) {
    const walker_pwc_config *p = &mc->walker.pwc[l];
    if (!p->entries) continue;
    fprintf(f, "%s %s %u %s, %u-way, %s", any ? ";" : "walk caches:", ms->format.level[l].name, p->entries,
            p->entries == 1 ? "entry" : "entries", p->ways, tlb_policy_name(p->policy));
    any = true;
  }
  fprintf(f, "%s\n", any ? "" : "walk caches: none");
  const walker_line_cache_config *lc = &mc->walker.line_cache;
  if (lc->entries)
    fprintf(f, "line cache: %u %s of %u B, %u-way, a hit %u cycles\n", lc->entries, lc->entries == 1 ? "line" : "lines",
            lc->line_bytes, lc->ways, lc->hit_cycles);
  fprintf(f, "latency: data %u, a walk %u + %u per entry read (cycles)\n", ms->sys.mem.data_cycles,
          mc->walker.walk_cycles, ms->sys.mem.table_cycles);
}

/* Whether path names the same file as one of inputs. */
static bool is_input(const char *path, const char *const *inputs) {
  struct stat out, in;
  if (stat(path, &out)) return false;
  for (size_t i = 0; inputs && inputs[i]; i++)
    if (!stat(inputs[i], &in) && in.st_dev == out.st_dev && in.st_ino == out.st_ino) return true;
  return false;
}

int cli_out_open(cli_out *o, const char *path, bool no_clobber, const char *const *inputs, diag *d) {
  *o = (cli_out){.path = path, .no_clobber = no_clobber};
  struct stat st;
  if (is_input(path, inputs)) return diag_set(d, path, 0, "is also an input: not overwritten");
  if (no_clobber && !stat(path, &st)) return diag_set(d, path, 0, "exists; it is never overwritten");
  /* Beside the path: the rename stays within one file system. */
  const char *slash = strrchr(path, '/');
  int dir = slash ? (int)(slash - path + 1) : 0;
  if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", dir, path, slash ? slash + 1 : path) >= (int)sizeof o->tmp)
    return o->tmp[0] = '\0', diag_set(d, path, 0, "path too long");
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int err = errno;
    o->tmp[0] = '\0';
    return diag_set(d, path, 0, "cannot write: %s", strerror(err));
  }
  /* mkstemp makes the file private; the result gets the usual mode. */
  mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
    int err = errno;
    close(fd);
    cli_out_discard(o);
    return diag_set(d, path, 0, "cannot write: %s", strerror(err));
  }
  return 0;
}

int cli_out_commit(cli_out *o, diag *d) {
  bool bad = ferror(o->f) != 0;
  if (fclose(o->f)) bad = true;
  o->f = NULL;
  int err = bad ? EIO : 0;
  if (!bad && o->no_clobber) {
    if (link(o->tmp, o->path)) bad = true, err = errno;
    else unlink(o->tmp);
  } else if (!bad && rename(o->tmp, o->path)) {
    bad = true, err = errno;
  }
  if (bad) {
    cli_out_discard(o);
    if (err == EEXIST) return diag_set(d, o->path, 0, "exists; it is never overwritten");
    return diag_set(d, o->path, 0, "cannot write: %s", strerror(err));
  }
  o->tmp[0] = '\0';
  return 0;
}

void cli_out_discard(cli_out *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = '\0';
}

/* Ranges step 2^(1/per_octave) from LO and stop at HI. */
int cli_parse_footprints(const char *text, unsigned per_octave, uint64_t *out, size_t max, size_t *n) {
  return num_parse_list(text, NUM_SIZE, per_octave, out, max, n);
}

int cli_check_nonempty(const trace_reader *r, diag *d) {
  if (trace_records_read(r)) return 0;
  return diag_set(d, trace_get_path(r), 0, "an empty trace (no records)");
}

/* On a terminal, an error starts by erasing the line it is on: a progress
 * line (cli_progress.h) a failing step left there. */
static void fresh_line(void) {
  if (cli_stderr_is_terminal()) fputs("\r\033[K", stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fresh_line();
  fprintf(stderr, "tlbsim %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return EXIT_USAGE;
}

int cli_input_error(const diag *d) {
  fresh_line();
  fprintf(stderr, "%s\n", d->msg);
  return EXIT_INPUT;
}
