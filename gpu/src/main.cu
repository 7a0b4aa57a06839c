/* tlbsim-gpu: parse the command line, open the device, run one command. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_capture.h"
#include "gpu_cuda.h"

static FILE *open_out(const char *path) {
  if (!path) return stdout;
  FILE *f = fopen(path, "w");
  if (!f) fprintf(stderr, "tlbsim-gpu: %s: %s\n", path, strerror(errno));
  return f;
}

static int close_out(FILE *f, const char *path) {
  if (f == stdout) return fflush(f) ? GPU_EXIT_FAIL : 0;
  if (fclose(f)) {
    fprintf(stderr, "tlbsim-gpu: %s: %s\n", path, strerror(errno));
    return GPU_EXIT_FAIL;
  }
  return 0;
}

typedef int (*cmd_fn)(const gpu_ctx *, const gpu_opts *, FILE *);

/* Runs one command into a file (NULL: stdout). */
static int run_to(cmd_fn fn, const gpu_ctx *c, const gpu_opts *o, const char *path) {
  FILE *f = open_out(path);
  if (!f) return GPU_EXIT_FAIL;
  int rc = fn(c, o, f);
  int rc2 = close_out(f, path);
  return rc ? rc : rc2;
}

static cmd_fn command_fn(gpu_cmd cmd) {
  switch (cmd) {
  case GPU_CMD_CHASE: return gpu_cmd_chase;
  case GPU_CMD_SHARE: return gpu_cmd_share;
  case GPU_CMD_ALLOC_LATENCY: return gpu_cmd_alloc_latency;
  case GPU_CMD_ALLOC_LAYOUT: return gpu_cmd_alloc_layout;
  case GPU_CMD_ALLOC_CHURN: return gpu_cmd_alloc_churn;
  case GPU_CMD_GATHER: return gpu_cmd_gather;
  case GPU_CMD_CHASERS: return gpu_cmd_chasers;
  case GPU_CMD_SMALLBUFS: return gpu_cmd_smallbufs;
  case GPU_CMD_CHURN_GATHER: return gpu_cmd_churn_gather;
  case GPU_CMD_BLOCKS: return gpu_cmd_blocks;
  case GPU_CMD_EMBED: return gpu_cmd_embed;
  case GPU_CMD_STREAM: return gpu_cmd_stream;
  case GPU_CMD_DRAM_CHASE: return gpu_cmd_dram_chase;
  case GPU_CMD_L2_CHASE: return gpu_cmd_l2_chase;
  case GPU_CMD_UVM: return gpu_cmd_uvm;
  default: return NULL;
  }
}

static int path_in(char *buf, size_t len, const char *dir, const char *name) {
  return snprintf(buf, len, "%s/%s", dir, name) < (int)len ? 0 : -1;
}

/* The allocation experiments and the sharing probe, each with its own
 * defaults, into dir (NULL: stdout) — shared by full and smoke. */
static int run_side_experiments(const gpu_ctx *c, const gpu_opts *o, const char *dir, bool smoke) {
  static const struct {
    gpu_cmd cmd;
    const char *file;
  } side[] = {{GPU_CMD_ALLOC_LATENCY, "alloc_latency.csv"},
              {GPU_CMD_ALLOC_LAYOUT, "alloc_layout.csv"},
              {GPU_CMD_ALLOC_CHURN, "alloc_churn.csv"},
              {GPU_CMD_SHARE, "share.csv"}};
  for (auto &s : side) {
    gpu_opts so;
    gpu_opts_defaults(&so, s.cmd);
    so.seed = o->seed;
    if (smoke) {
      so.max_size = s.cmd == GPU_CMD_ALLOC_CHURN ? so.max_size : 64ull << 20;
      so.repeats = 3;
      so.requests = 300;
      so.steps = 1024;
      const int sms[] = {0, 1, 2, c->prop.multiProcessorCount - 1};
      memcpy(so.sms, sms, sizeof sms);
      so.nsms = 4;
      so.sweep.footprints[0] = 8ull << 20, so.sweep.footprints[1] = 512ull << 20;
      so.sweep.nfootprints = 2;
      so.disruptor_footprint = 8ull << 30;
    }
    char path[4096];
    if (dir && path_in(path, sizeof path, dir, s.file)) return GPU_EXIT_FAIL;
    gpu_progress("%s%s%s", gpu_cmd_name(s.cmd), dir ? " -> " : "", dir ? path : "");
    int rc = run_to(command_fn(s.cmd), c, &so, dir ? path : NULL);
    if (rc) return rc;
  }
  return 0;
}

/* Sweeps sw[0..n) as regions first, first + 1, ... of the run. */
static int run_sweeps(const gpu_ctx *c, const gpu_opts *o, const gpu_sweep *sw, size_t n, unsigned first,
                      FILE *csv) {
  for (size_t i = 0; i < n; i++)
    if (gpu_run_sweep(c, o, &sw[i], first + (unsigned)i, csv)) return GPU_EXIT_FAIL;
  return 0;
}

/* Extra chase sweeps of full, into chase_extra.csv: what changes with a
 * warp of 32 lanes, with L1-cached loads, with 1 GiB VMM chunks, and on an
 * SM far from SM 0. */
static const struct extra_sweep {
  const char *what;
  region_mapping mapping;
  uint64_t strides[3];
  size_t nstrides;
  unsigned lanes;
  int load_ca;
  uint64_t chunk;
  int sm; /* clamped to the last SM */
} extra_sweeps[] = {
    {"warp of 32 lanes", REGION_CONTIGUOUS, {2ull << 20}, 1, 32, 0, 0, 0},
    {"ld.global.ca", REGION_CONTIGUOUS, {64ull << 10, 2ull << 20, 32ull << 20}, 3, 1, 1, 0, 0},
    {"1 GiB chunks", REGION_CONTIGUOUS, {2ull << 20, 32ull << 20}, 2, 1, 0, 1ull << 30, 0},
    {"SM 65", REGION_SHUFFLED, {2ull << 20}, 1, 1, 0, 0, 65},
};

static int run_extras(const gpu_ctx *c, const gpu_opts *o, const gpu_sweep *like, const char *dir) {
  char path[4096];
  if (path_in(path, sizeof path, dir, "chase_extra.csv")) return GPU_EXIT_FAIL;
  FILE *csv = open_out(path);
  diag d;
  if (!csv) return GPU_EXIT_FAIL;
  int rc = gpu_csv_chase_header(csv, &d) ? GPU_EXIT_FAIL : 0;
  unsigned region = 0;
  for (const extra_sweep &e : extra_sweeps) {
    if (rc) break;
    gpu_progress("extra: %s", e.what);
    gpu_opts eo = *o;
    eo.lanes = e.lanes;
    eo.load_ca = e.load_ca;
    eo.chunk = e.chunk;
    eo.sm = e.sm < c->prop.multiProcessorCount ? e.sm : c->prop.multiProcessorCount - 1;
    gpu_sweep s = *like;
    s.mapping = e.mapping;
    memcpy(s.strides, e.strides, sizeof e.strides);
    s.nstrides = e.nstrides;
    rc = run_sweeps(c, &eo, &s, 1, region++, csv);
  }
  int rc2 = close_out(csv, path);
  return rc ? rc : rc2;
}

/* The committed sweep: VMM contiguous and shuffled, cudaMalloc; then the
 * allocation experiments and the sharing probe; then managed, aliased and
 * the extras. */
static int cmd_full(const gpu_ctx *c, const gpu_opts *o) {
  if (mkdir(o->outdir, 0777) && errno != EEXIST) {
    fprintf(stderr, "tlbsim-gpu: %s: %s\n", o->outdir, strerror(errno));
    return GPU_EXIT_FAIL;
  }
  gpu_sweep sw[8];
  size_t n = gpu_full_sweeps(sw, 8, o->sweep.fmax, o->sweep.max_nodes);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    diag d;
    gpu_point_list pl;
    if (gpu_sweep_points(&sw[i], &pl, &d)) {
      fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
      return GPU_EXIT_FAIL;
    }
    total += pl.n * (size_t)__builtin_popcount(sw[i].orders);
    gpu_point_list_free(&pl);
  }
  gpu_progress("full: %zu chase sweeps, %zu points (before free-memory caps)", n, total);
  char path[4096];
  if (path_in(path, sizeof path, o->outdir, "chase.csv")) return GPU_EXIT_FAIL;
  FILE *csv = open_out(path);
  diag d;
  if (!csv) return GPU_EXIT_FAIL;
  if (gpu_csv_chase_header(csv, &d)) {
    fprintf(stderr, "tlbsim-gpu: %s\n", d.msg);
    return GPU_EXIT_FAIL;
  }
  size_t first = n < 3 ? n : 3; /* contiguous, shuffled, cudamalloc */
  int rc = run_sweeps(c, o, sw, first, 0, csv);
  if (!rc) rc = run_side_experiments(c, o, o->outdir, false);
  if (!rc) rc = run_sweeps(c, o, sw + first, n - first, (unsigned)first, csv);
  int rc2 = close_out(csv, path);
  if (!rc && !rc2) rc = run_extras(c, o, &sw[0], o->outdir);
  return rc ? rc : rc2;
}

/* A few points of the many-thread experiments: gather (an ordinary launch
 * and one pinned to SMs 0 and 1), chasers, small buffers. */
static int smoke_many_threads(const gpu_ctx *c, const gpu_opts *o) {
  gpu_opts g;
  gpu_opts_defaults(&g, GPU_CMD_GATHER);
  g.seed = o->seed;
  g.mappings = 1u << REGION_CONTIGUOUS;
  g.sweep.footprints[0] = 256ull << 20, g.sweep.footprints[1] = 4ull << 30;
  g.sweep.nfootprints = 2;
  g.nodes[0] = 4096;
  g.tps[0] = 32, g.tps[1] = 2048;
  g.ntps = 2;
  gpu_sm_sets_parse("grid/0,1", g.sm_sets, GPU_MAX_SM_SETS, &g.nsm_sets);
  g.repeats = 2;
  gpu_progress("smoke: gather");
  int rc = run_to(gpu_cmd_gather, c, &g, NULL);
  if (rc) return rc;
  gpu_opts ch;
  gpu_opts_defaults(&ch, GPU_CMD_CHASERS);
  ch.seed = o->seed;
  ch.mappings = 1u << REGION_CUDAMALLOC;
  ch.sweep.footprints[0] = 64ull << 20;
  ch.sweep.nfootprints = 1;
  gpu_sm_sets_parse("0/0,1", ch.sm_sets, GPU_MAX_SM_SETS, &ch.nsm_sets);
  ch.per_sm[0] = 1, ch.per_sm[1] = 4;
  ch.nper_sm = 2;
  ch.steps = 1024;
  ch.repeats = 2;
  gpu_progress("smoke: chasers");
  rc = run_to(gpu_cmd_chasers, c, &ch, NULL);
  if (rc) return rc;
  gpu_opts sb;
  gpu_opts_defaults(&sb, GPU_CMD_SMALLBUFS);
  sb.seed = o->seed;
  sb.buffers = 256;
  sb.tps[0] = 256;
  sb.repeats = 2;
  gpu_progress("smoke: smallbufs");
  return run_to(gpu_cmd_smallbufs, c, &sb, NULL);
}

/* A few points of everything, to stdout. */
static int cmd_smoke(const gpu_ctx *c, const gpu_opts *o) {
  gpu_opts so = *o;
  so.mappings = (1u << REGION_MAPPING_COUNT) - 1;
  so.sweep.strides[0] = 2u << 20;
  so.sweep.nstrides = 1;
  so.sweep.fmin = 2u << 20;
  so.sweep.fmax = 512u << 20;
  so.sweep.per_octave = 1;
  so.steps = 1024;
  so.repeats = 3;
  int rc = run_to(gpu_cmd_chase, c, &so, NULL);
  if (rc) return rc;
  gpu_progress("smoke: warp of 32 lanes, ld.global.ca");
  so.mappings = 1u << REGION_CONTIGUOUS;
  so.sweep.fmin = so.sweep.fmax = 64u << 20;
  so.lanes = 32;
  so.load_ca = 1;
  rc = run_to(gpu_cmd_chase, c, &so, NULL);
  if (rc) return rc;
  rc = run_side_experiments(c, o, NULL, true);
  return rc ? rc : smoke_many_threads(c, o);
}

/* `tlbsim-gpu capture ... -- PROGRAM`: runs PROGRAM under libtlbsim-capture
 * (no CUDA context here: the program makes its own). */
static int cmd_capture(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--help")) {
    fputs(gpu_capture_usage, stdout);
    return 0;
  }
  char self[GPU_CAPTURE_PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  gpu_capture_plan p;
  diag d;
  if (gpu_capture_parse(argc, argv, n > 0 ? self : NULL, &p, &d)) {
    fprintf(stderr, "%s\n%s", d.msg, gpu_capture_usage);
    return 2;
  }
  gpu_capture_exec(&p, &d);
  fprintf(stderr, "%s\n", d.msg);
  return 1;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "capture")) return cmd_capture(argc - 1, argv + 1);
  gpu_opts o;
  diag d;
  if (gpu_opts_parse(argc, argv, &o, &d)) {
    fprintf(stderr, "%s\n", d.msg);
    return 2;
  }
  if (o.cmd == GPU_CMD_HELP) {
    fputs(gpu_usage, stdout);
    return 0;
  }
  if (o.cmd == GPU_CMD_EMBED && o.dry_run) return gpu_embed_dry_run(&o);
  gpu_ctx c;
  int rc = gpu_ctx_init(&c);
  if (rc) return rc;
  if (o.cmd == GPU_CMD_FULL) rc = cmd_full(&c, &o);
  else if (o.cmd == GPU_CMD_SMOKE) rc = cmd_smoke(&c, &o);
  else rc = run_to(command_fn(o.cmd), &c, &o, o.out);
  if (!rc) gpu_progress("done");
  return rc;
}
