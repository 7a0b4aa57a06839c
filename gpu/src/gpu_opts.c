#include "gpu_opts.h"

#include <string.h>

static const char *const cmd_names[GPU_CMD_COUNT] = {"chase",       "share", "alloc-latency", "alloc-layout",
                                                     "alloc-churn", "full",  "smoke",         "help"};

const char *gpu_cmd_name(gpu_cmd c) { return c < GPU_CMD_COUNT ? cmd_names[c] : "?"; }

const char gpu_usage[] =
    "usage: tlbsim-gpu COMMAND [OPTIONS]\n"
    "       tlbsim-gpu --smoke | --help\n"
    "\n"
    "Measures address-translation cost and allocation behaviour on an NVIDIA GPU.\n"
    "Writes CSV (the chase schema of tlbsim chase) to --out or stdout; progress on stderr.\n"
    "Exit status: 0 ok, 1 failure, 2 usage error or no CUDA device.\n"
    "\n"
    "Commands (patterns):\n"
    "  chase          pointer chase over one node per stride: footprint x stride x order x mapping\n"
    "  share          TLB-sharing probe: prober chase on --sm, disruptor chase on each SM of --sms\n"
    "  alloc-latency  cudaMalloc/cudaFree and VMM create/map/unmap/release time vs size\n"
    "  alloc-layout   VA layout of successive cudaMalloc calls: alignment, rounding, 2 MiB sharing\n"
    "  alloc-churn    random-size temporary buffers via cudaMalloc, cudaMallocAsync pool, user pool\n"
    "  full           every experiment with the committed settings; CSVs into --outdir\n"
    "                 (chase.csv, chase_extra.csv, share.csv, alloc_*.csv)\n"
    "  smoke          a few points of every experiment (also --smoke)\n"
    "\n"
    "Mappings (--mapping LIST):\n"
    "  contiguous     VMM: cuMemCreate chunks mapped in VA order (default)\n"
    "  shuffled       VMM: the same chunks mapped in a seeded shuffled order\n"
    "  aliased        VMM: few physical chunks mapped at many VAs (footprints beyond memory);\n"
    "                 stride a multiple of the chunk, nodes skewed by 128 B per node\n"
    "  cudamalloc     one cudaMalloc region\n"
    "  managed        one cudaMallocManaged region, within the free memory only\n"
    "\n"
    "Sweep options (chase, share):\n"
    "  --order LIST            seq, random (default seq,random)\n"
    "  --stride LIST           node spacing, e.g. 2M or 64K..1G (default 2M)\n"
    "  --footprint LIST        explicit footprints; else --fmin..--fmax\n"
    "  --fmin SIZE --fmax SIZE footprint range (default 1M..128G, capped by free memory)\n"
    "  --per-octave N          footprints per doubling (default 4)\n"
    "  --max-nodes N           skip points needing more nodes (default 65536: stays in L2)\n"
    "  --steps N               accesses per timed pass (default 8192)\n"
    "  --warmup N              untimed accesses first, at least one pass (default 1024)\n"
    "  --repeats N             timed passes per point (default 7; share 3) / calls per size\n"
    "                          (alloc-latency, default 20)\n"
    "  --seed N                random order, chunk shuffle, churn sizes (default 1)\n"
    "  --load cg|ca            ld.global.cg bypasses L1 (default), ca caches in L1\n"
    "  --lanes 1|32            one thread (default) or a warp chasing 32 starting points\n"
    "  --sm N                  SM the chasing (or probing) block runs on (default 0)\n"
    "  --chunk SIZE            VMM chunk size (default: the allocation granularity)\n"
    "  --sms LIST              share: disruptor SMs (default all)\n"
    "  --disruptor-footprint SIZE --disruptor-stride SIZE   share (default 64G, 2M)\n"
    "Allocation options:\n"
    "  --min-size SIZE --max-size SIZE  size range (latency: 1..16G; churn: 1K..32M)\n"
    "  --requests N --live N   churn: allocations and buffers alive at once (10000, 64)\n"
    "Output:\n"
    "  --out FILE              CSV file (default stdout)\n"
    "  --outdir DIR            full: directory for chase.csv share.csv alloc_*.csv\n";

enum opt_id {
  O_MAPPING, O_ORDER, O_STRIDE, O_FOOTPRINT, O_FMIN, O_FMAX, O_PER_OCTAVE, O_MAX_NODES, O_STEPS, O_WARMUP,
  O_REPEATS, O_SEED, O_LOAD, O_LANES, O_SM, O_CHUNK, O_SMS, O_DFOOT, O_DSTRIDE, O_MIN_SIZE, O_MAX_SIZE,
  O_REQUESTS, O_LIVE, O_OUT, O_OUTDIR, O_HELP
};

#define C(x) (1u << GPU_CMD_##x)
#define SWEEP (C(CHASE) | C(SHARE) | C(FULL))

static const struct opt_def {
  const char *name;
  enum opt_id id;
  unsigned cmds; /* commands it applies to */
} opt_table[] = {
    {"mapping", O_MAPPING, C(CHASE) | C(SHARE)},
    {"order", O_ORDER, C(CHASE) | C(SHARE)},
    {"stride", O_STRIDE, C(CHASE) | C(SHARE)},
    {"footprint", O_FOOTPRINT, C(CHASE) | C(SHARE)},
    {"fmin", O_FMIN, C(CHASE)},
    {"fmax", O_FMAX, C(CHASE) | C(FULL)},
    {"per-octave", O_PER_OCTAVE, C(CHASE)},
    {"max-nodes", O_MAX_NODES, SWEEP},
    {"steps", O_STEPS, SWEEP},
    {"warmup", O_WARMUP, SWEEP},
    {"repeats", O_REPEATS, SWEEP | C(ALLOC_LATENCY)},
    {"seed", O_SEED, SWEEP | C(ALLOC_LAYOUT) | C(ALLOC_CHURN)},
    {"load", O_LOAD, C(CHASE) | C(SHARE)},
    {"lanes", O_LANES, C(CHASE)},
    {"sm", O_SM, C(CHASE) | C(SHARE)},
    {"chunk", O_CHUNK, C(CHASE) | C(SHARE) | C(FULL)},
    {"sms", O_SMS, C(SHARE)},
    {"disruptor-footprint", O_DFOOT, C(SHARE)},
    {"disruptor-stride", O_DSTRIDE, C(SHARE)},
    {"min-size", O_MIN_SIZE, C(ALLOC_LATENCY) | C(ALLOC_CHURN)},
    {"max-size", O_MAX_SIZE, C(ALLOC_LATENCY) | C(ALLOC_CHURN)},
    {"requests", O_REQUESTS, C(ALLOC_CHURN)},
    {"live", O_LIVE, C(ALLOC_CHURN)},
    {"out", O_OUT, C(CHASE) | C(SHARE) | C(ALLOC_LATENCY) | C(ALLOC_LAYOUT) | C(ALLOC_CHURN)},
    {"outdir", O_OUTDIR, C(FULL)},
    {"help", O_HELP, ~0u},
};

static const struct opt_def *find_opt(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
    if (strlen(opt_table[i].name) == len && !strncmp(opt_table[i].name, name, len)) return &opt_table[i];
  return NULL;
}

/* One item: a size, or a doubling range "LO..HI" of powers-of-two steps. */
static int size_item(const char *item, uint64_t *v, size_t max, size_t *n) {
  const char *dots = strstr(item, "..");
  uint64_t lo, hi;
  if (!dots) {
    if (num_parse_size(item, &lo) || *n == max) return -1;
    v[(*n)++] = lo;
    return 0;
  }
  char a[64];
  size_t la = (size_t)(dots - item);
  if (la >= sizeof a) return -1;
  memcpy(a, item, la);
  a[la] = '\0';
  if (num_parse_size(a, &lo) || num_parse_size(dots + 2, &hi) || !lo || lo > hi) return -1;
  for (uint64_t x = lo; x <= hi; x *= 2) {
    if (*n == max) return -1;
    v[(*n)++] = x;
    if (x > UINT64_MAX / 2) break;
  }
  return 0;
}

int gpu_size_list_parse(const char *text, uint64_t *v, size_t max, size_t *n) {
  char buf[512];
  if (!text || !*text || strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  *n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (size_item(tok, v, max, n)) return -1;
  return *n ? 0 : -1;
}

/* Parses a comma-separated list of names into a bit mask through `parse`. */
static int name_mask(const char *text, int (*parse)(const char *, int *), unsigned *mask) {
  char buf[256];
  if (!*text || strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  *mask = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int v;
    if (parse(tok, &v)) return -1;
    *mask |= 1u << v;
  }
  return *mask ? 0 : -1;
}

static int parse_order_int(const char *t, int *v) {
  gpu_order o;
  if (gpu_order_parse(t, &o)) return -1;
  *v = (int)o;
  return 0;
}

static int parse_mapping_int(const char *t, int *v) {
  gpu_mapping m;
  if (gpu_mapping_parse(t, &m)) return -1;
  *v = (int)m;
  return 0;
}

static int int_list(const char *text, int *v, size_t max, size_t *n) {
  char buf[1024];
  if (!*text || strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  *n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    uint64_t x;
    if (num_parse_whole(tok, &x) || x > 100000 || *n == max) return -1;
    v[(*n)++] = (int)x;
  }
  return *n ? 0 : -1;
}

static void defaults(gpu_opts *o) {
  memset(o, 0, sizeof *o);
  o->cmd = GPU_CMD_HELP;
  o->mappings = 1u << GPU_MAP_CONTIGUOUS;
  o->sweep.mapping = GPU_MAP_CONTIGUOUS;
  o->sweep.orders = (1u << GPU_ORDER_SEQ) | (1u << GPU_ORDER_RANDOM);
  o->sweep.strides[0] = 2u << 20;
  o->sweep.nstrides = 1;
  o->sweep.fmin = 1u << 20;
  o->sweep.fmax = 128ull << 30;
  o->sweep.per_octave = 4;
  o->sweep.max_nodes = 65536;
  o->steps = 8192;
  o->warmup = 1024;
  o->repeats = 0; /* 0: the command's own default */
  o->seed = 1;
  o->lanes = 1;
  o->disruptor_footprint = 64ull << 30;
  o->disruptor_stride = 2u << 20;
}

#define BAD(kind) diag_set(d, NULL, 0, "tlbsim-gpu: --%s: bad " kind " '%s'", def->name, val)

static int apply(gpu_opts *o, const struct opt_def *def, const char *val, diag *d) {
  uint64_t x;
  unsigned mask;
  switch (def->id) {
  case O_MAPPING:
    if (name_mask(val, parse_mapping_int, &mask)) return BAD("mapping list");
    o->mappings = mask;
    return 0;
  case O_ORDER:
    if (name_mask(val, parse_order_int, &mask)) return BAD("order list");
    o->sweep.orders = mask;
    return 0;
  case O_STRIDE:
    if (gpu_size_list_parse(val, o->sweep.strides, GPU_MAX_LIST, &o->sweep.nstrides)) return BAD("size list");
    return 0;
  case O_FOOTPRINT:
    if (gpu_size_list_parse(val, o->sweep.footprints, GPU_MAX_LIST, &o->sweep.nfootprints))
      return BAD("size list");
    return 0;
  case O_SMS:
    if (int_list(val, o->sms, sizeof o->sms / sizeof o->sms[0], &o->nsms)) return BAD("SM list");
    return 0;
  case O_LOAD:
    if (strcmp(val, "cg") && strcmp(val, "ca")) return BAD("load");
    o->load_ca = !strcmp(val, "ca");
    return 0;
  case O_OUT: o->out = val; return 0;
  case O_OUTDIR: o->outdir = val; return 0;
  default: break;
  }
  int is_size = def->id == O_FMIN || def->id == O_FMAX || def->id == O_CHUNK || def->id == O_DFOOT ||
                def->id == O_DSTRIDE || def->id == O_MIN_SIZE || def->id == O_MAX_SIZE;
  if (is_size ? num_parse_size(val, &x) : num_parse_whole(val, &x)) return is_size ? BAD("size") : BAD("number");
  switch (def->id) {
  case O_FMIN: o->sweep.fmin = x; break;
  case O_FMAX: o->sweep.fmax = x; break;
  case O_CHUNK: o->chunk = x; break;
  case O_DFOOT: o->disruptor_footprint = x; break;
  case O_DSTRIDE: o->disruptor_stride = x; break;
  case O_MIN_SIZE: o->min_size = x; break;
  case O_MAX_SIZE: o->max_size = x; break;
  case O_PER_OCTAVE:
    if (!x || x > 64) return BAD("number");
    o->sweep.per_octave = (unsigned)x;
    break;
  case O_MAX_NODES:
    if (!x || x > UINT32_MAX) return BAD("number");
    o->sweep.max_nodes = x;
    break;
  case O_STEPS:
    if (!x || x > (1ull << 40)) return BAD("number");
    o->steps = x;
    break;
  case O_WARMUP:
    if (x > (1ull << 40)) return BAD("number");
    o->warmup = x;
    break;
  case O_REPEATS:
    if (!x || x > 10000) return BAD("number");
    o->repeats = (unsigned)x;
    break;
  case O_SEED: o->seed = x; break;
  case O_LANES:
    if (x != 1 && x != 32) return BAD("lane count");
    o->lanes = (unsigned)x;
    break;
  case O_SM:
    if (x > 100000) return BAD("number");
    o->sm = (int)x;
    break;
  case O_REQUESTS:
    if (!x || x > 100000000) return BAD("number");
    o->requests = (uint32_t)x;
    break;
  case O_LIVE:
    if (!x || x > 1000000) return BAD("number");
    o->live = (uint32_t)x;
    break;
  default: break;
  }
  return 0;
}

/* Fills the defaults that depend on the command. */
static int finish(gpu_opts *o, diag *d) {
  int alloc_lat = o->cmd == GPU_CMD_ALLOC_LATENCY, churn = o->cmd == GPU_CMD_ALLOC_CHURN;
  if (!o->repeats) o->repeats = alloc_lat ? 20 : o->cmd == GPU_CMD_SHARE ? 3 : 7;
  if (!o->min_size) o->min_size = churn ? 1024 : 1;
  if (!o->max_size) o->max_size = churn ? 32u << 20 : 16ull << 30;
  if (!o->requests) o->requests = 10000;
  if (!o->live) o->live = 64;
  if (o->min_size > o->max_size)
    return diag_set(d, NULL, 0, "tlbsim-gpu: --min-size is larger than --max-size");
  if (o->sweep.fmin > o->sweep.fmax) return diag_set(d, NULL, 0, "tlbsim-gpu: --fmin is larger than --fmax");
  if (o->cmd == GPU_CMD_FULL && !o->outdir) return diag_set(d, NULL, 0, "tlbsim-gpu: full: --outdir is required");
  if (o->cmd == GPU_CMD_SHARE && o->sweep.nfootprints == 0) {
    /* Prober footprints, one per TLB level the sweep may find. */
    static const uint64_t fp[] = {8ull << 20, 32ull << 20, 128ull << 20, 512ull << 20, 2ull << 30, 8ull << 30,
                                  32ull << 30};
    memcpy(o->sweep.footprints, fp, sizeof fp);
    o->sweep.nfootprints = sizeof fp / sizeof fp[0];
  }
  return 0;
}

void gpu_opts_defaults(gpu_opts *o, gpu_cmd cmd) {
  defaults(o);
  o->cmd = cmd;
  finish(o, NULL);
}

int gpu_opts_parse(int argc, char **argv, gpu_opts *o, diag *d) {
  defaults(o);
  int i = 1;
  if (argc < 2) return diag_set(d, NULL, 0, "tlbsim-gpu: no command (try --help)");
  if (!strcmp(argv[1], "--smoke")) o->cmd = GPU_CMD_SMOKE, i = 2;
  else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) o->cmd = GPU_CMD_HELP, i = 2;
  else {
    int c = 0;
    while (c < GPU_CMD_COUNT && strcmp(argv[1], cmd_names[c])) c++;
    if (c == GPU_CMD_COUNT) return diag_set(d, NULL, 0, "tlbsim-gpu: unknown command '%s' (try --help)", argv[1]);
    o->cmd = (gpu_cmd)c;
    i = 2;
  }
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2)) return diag_set(d, NULL, 0, "tlbsim-gpu: unexpected argument '%s'", a);
    const char *eq = strchr(a + 2, '=');
    size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    const struct opt_def *def = find_opt(a + 2, len);
    if (!def) return diag_set(d, NULL, 0, "tlbsim-gpu: unknown option '%s'", a);
    if (def->id == O_HELP) {
      o->cmd = GPU_CMD_HELP;
      return 0;
    }
    if (!(def->cmds & (1u << o->cmd)))
      return diag_set(d, NULL, 0, "tlbsim-gpu: %s: option --%s does not apply", cmd_names[o->cmd], def->name);
    const char *val = eq ? eq + 1 : NULL;
    if (!val) {
      if (i + 1 >= argc) return diag_set(d, NULL, 0, "tlbsim-gpu: --%s: missing value", def->name);
      val = argv[++i];
    }
    if (apply(o, def, val, d)) return -1;
  }
  return finish(o, d);
}
