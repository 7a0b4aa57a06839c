#include "gpu_opts.h"

#include <string.h>

static const char *const cmd_names[GPU_CMD_COUNT] = {
    "chase",     "share",        "alloc-latency", "alloc-layout", "alloc-churn", "gather",
    "chasers",   "smallbufs",    "churn-gather",  "blocks",       "embed",       "stream",
    "dram-chase", "l2-chase",    "uvm",           "full",         "smoke",       "help"};

const char *gpu_cmd_name(gpu_cmd c) { return c < GPU_CMD_COUNT ? cmd_names[c] : "?"; }

const char gpu_usage[] =
    "usage: tlbsim-gpu COMMAND [OPTIONS]\n"
    "       tlbsim-gpu churn-gather TRACE [OPTIONS]\n"
    "       tlbsim-gpu --smoke | --help\n"
    "\n"
    "Measures address-translation cost and allocation behaviour on an NVIDIA GPU.\n"
    "Writes CSV (the chase schema of tlbsim chase) to --out or stdout; progress on stderr.\n"
    "Exit status: 0 ok, 1 failure, 2 usage error, 77 no CUDA device.\n"
    "\n"
    "Commands (patterns):\n"
    "  chase          pointer chase over one node per stride: footprint x stride x order x mapping\n"
    "  share          TLB-sharing probe: prober chase on --sm, disruptor chase on each SM of --sms\n"
    "  alloc-latency  cudaMalloc/cudaFree and VMM create/map/unmap/release time vs size\n"
    "  alloc-layout   VA layout of successive cudaMalloc calls: alignment, rounding, 2 MiB sharing\n"
    "  alloc-churn    random-size temporary buffers via cudaMalloc, cudaMallocAsync pool, user pool\n"
    "  gather         many threads, each issuing independent loads at hashed nodes: loads per ns\n"
    "                 over footprint x threads x mapping x SM set (gather CSV)\n"
    "  chasers        several one-thread chases at once, one or more per SM: latency under load\n"
    "  smallbufs      many small cudaMallocs against one pool of the same sizes: chase and gather\n"
    "                 over the first line of the first N buffers, N doubling (page-size knees)\n"
    "  churn-gather   replays TRACE's alloc/free records (a native trace, gzip or not) with\n"
    "                 cudaMalloc/cudaFree, then chases and gathers over the live buffers, the same\n"
    "                 sizes allocated fresh, and a pool\n"
    "  blocks         which SM each block of a launch runs on (%smid), with start and end times\n"
    "                 (%globaltimer): grid x block size x repeat\n"
    "  embed          embedding-bag lookups (one warp per bag, Zipf ids hashed over a table of\n"
    "                 F bytes): lookups per ns; --trace DIR writes its Accel-Sim trace\n"
    "  stream         read and copy bandwidth, grid-stride 16-byte ld.global.cg, over footprints\n"
    "  dram-chase     one-thread chase over lines not in L2 (each line once, after an L2 flush)\n"
    "  l2-chase       one-thread chase over every line of the footprint, warm: L2 capacity\n"
    "  uvm            managed memory: populate (--init), first kernel (--first), warm runs\n"
    "  full           every experiment with the committed settings; CSVs into --outdir\n"
    "                 (chase.csv, chase_extra.csv, share.csv, alloc_*.csv)\n"
    "  smoke          a few points of every experiment (also --smoke)\n"
    "  capture        -o OUT.trace -- PROGRAM ARGS: what PROGRAM asks of the driver, as a trace\n"
    "                 (libtlbsim-capture.so; tlbsim-gpu capture --help)\n"
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
    "Gather options (gather, smallbufs, churn-gather):\n"
    "  --nodes LIST            gather: 128-byte nodes at i*stride (default 65536)\n"
    "  --footprint LIST / --fmin --fmax --per-octave   gather: footprints (default 256M..128G, 2)\n"
    "  --stride SIZE           gather: fixed stride instead (footprint = nodes * stride)\n"
    "  --threads LIST          gather: total threads, blocks of 256 (an ordinary launch)\n"
    "  --threads-per-sm LIST   threads on each SM of the set, blocks of min(256, N) (default 2048)\n"
    "  --loads-per-thread N    independent loads per thread, a multiple of 8 (default 256)\n"
    "  --sm-sets LIST          gather, chasers: SM sets separated by '/': grid (an ordinary launch,\n"
    "                          gather's default), all, or SMs and ranges, e.g. 0/0,1,48-49/all\n"
    "  --per-sm LIST           chasers per SM of the set (default 1)\n"
    "  --launch-ms N           timed launches per repeat: about N ms (default 2)\n"
    "  --sizes LIST --buffers N  smallbufs: buffer sizes and count (default 64K, 20000)\n"
    "  --layout FILE           smallbufs, churn-gather: each buffer's VA relative to the first\n"
    "  --population LIST       chase, managed: chain (default), gpu:K, host:K, host_prefetch, advise\n"
    "                          (how the region is populated before the chain is written)\n"
    "Launch, kernel and managed-memory options:\n"
    "  --grid LIST --block LIST   blocks: blocks per launch and threads per block\n"
    "                          (default 1..1056 with 66, 132, 133, 264, 265, 528; 128,256,512,1024)\n"
    "  --spin-ns N             blocks: ns each block stays resident (default 20000)\n"
    "  --row-bytes LIST        embed: row size R (default 64,256)\n"
    "  --ids-per-bag N --bags N  embed: L (default 32) and B (default 65536)\n"
    "  --alpha LIST            embed: Zipf exponents, 0 (uniform) to 10 (default 0,0.8,1.2)\n"
    "  --footprint LIST        embed: table sizes F; stream, dram-chase, l2-chase: footprints\n"
    "  --trace DIR             embed: kernelslist.g, kernel-1.traceg and buffers.trace into DIR\n"
    "  --dry-run               embed: no device; the trace with a synthetic address map\n"
    "  --va TABLE,IDS,OUT      embed --dry-run: these buffer addresses (a device run's table_va,\n"
    "                          ids_va, out_va columns) instead: that run's trace exactly\n"
    "  --kind LIST             stream: read, copy (default both)\n"
    "  --init LIST --first LIST  uvm: malloc,gpu,host,host_prefetch,advise and stream,gather (all)\n"
    "  --size LIST             uvm: buffer sizes (default 256M..64G)\n"
    "  --host-mem SIZE         uvm: host memory the host inits may use (default MemAvailable)\n"
    "Allocation options:\n"
    "  --min-size SIZE --max-size SIZE  size range (latency: 1..16G; churn: 1K..32M)\n"
    "  --requests N --live N   churn: allocations and buffers alive at once (10000, 64)\n"
    "Output:\n"
    "  --out FILE              CSV file (default stdout)\n"
    "  --outdir DIR            full: directory for chase.csv share.csv alloc_*.csv\n";

enum opt_id {
  O_MAPPING, O_ORDER, O_STRIDE, O_FOOTPRINT, O_FMIN, O_FMAX, O_PER_OCTAVE, O_MAX_NODES, O_STEPS, O_WARMUP,
  O_REPEATS, O_SEED, O_LOAD, O_LANES, O_SM, O_CHUNK, O_SMS, O_DFOOT, O_DSTRIDE, O_MIN_SIZE, O_MAX_SIZE,
  O_REQUESTS, O_LIVE, O_OUT, O_OUTDIR, O_NODES, O_THREADS, O_TPS, O_LOADS, O_SM_SETS, O_PER_SM, O_SIZES, O_BUFFERS,
  O_LAUNCH_MS, O_LAYOUT, O_POPULATION, O_GRID, O_BLOCK, O_SPIN_NS, O_ROW_BYTES, O_IDS_PER_BAG, O_BAGS, O_ALPHA,
  O_TRACE, O_DRY_RUN, O_VA, O_KIND, O_INIT, O_FIRST, O_SIZE, O_HOST_MEM, O_HELP
};

#define C(x) (1u << GPU_CMD_##x)
#define SWEEP (C(CHASE) | C(SHARE) | C(FULL))
#define BUFS (C(SMALLBUFS) | C(CHURN_GATHER))
#define NEW (C(GATHER) | C(CHASERS) | BUFS)
#define LAT (C(DRAM_CHASE) | C(L2_CHASE))
#define KERN (C(BLOCKS) | C(EMBED) | C(STREAM) | LAT | C(UVM))

static const struct opt_def {
  const char *name;
  enum opt_id id;
  unsigned cmds; /* commands it applies to */
} opt_table[] = {
    {"mapping", O_MAPPING, C(CHASE) | C(SHARE) | C(GATHER) | C(CHASERS)},
    {"order", O_ORDER, C(CHASE) | C(SHARE) | C(CHASERS)},
    {"stride", O_STRIDE, C(CHASE) | C(SHARE) | C(GATHER) | C(CHASERS)},
    {"footprint", O_FOOTPRINT, C(CHASE) | C(SHARE) | C(GATHER) | C(CHASERS) | C(EMBED) | C(STREAM) | LAT},
    {"fmin", O_FMIN, C(CHASE) | C(GATHER) | C(STREAM)},
    {"fmax", O_FMAX, C(CHASE) | C(FULL) | C(GATHER) | C(STREAM)},
    {"per-octave", O_PER_OCTAVE, C(CHASE) | C(GATHER) | C(STREAM)},
    {"max-nodes", O_MAX_NODES, SWEEP},
    {"steps", O_STEPS, SWEEP | C(CHASERS) | BUFS | LAT},
    {"warmup", O_WARMUP, SWEEP | C(CHASERS) | BUFS | LAT},
    {"repeats", O_REPEATS, SWEEP | C(ALLOC_LATENCY) | NEW | KERN},
    {"seed", O_SEED, SWEEP | C(ALLOC_LAYOUT) | C(ALLOC_CHURN) | NEW | C(EMBED) | LAT | C(UVM)},
    {"load", O_LOAD, C(CHASE) | C(SHARE)},
    {"lanes", O_LANES, C(CHASE)},
    {"sm", O_SM, C(CHASE) | C(SHARE) | BUFS | LAT},
    {"chunk", O_CHUNK, C(CHASE) | C(SHARE) | C(FULL) | C(GATHER)},
    {"sms", O_SMS, C(SHARE)},
    {"disruptor-footprint", O_DFOOT, C(SHARE)},
    {"disruptor-stride", O_DSTRIDE, C(SHARE)},
    {"min-size", O_MIN_SIZE, C(ALLOC_LATENCY) | C(ALLOC_CHURN)},
    {"max-size", O_MAX_SIZE, C(ALLOC_LATENCY) | C(ALLOC_CHURN)},
    {"requests", O_REQUESTS, C(ALLOC_CHURN)},
    {"live", O_LIVE, C(ALLOC_CHURN)},
    {"out", O_OUT, C(CHASE) | C(SHARE) | C(ALLOC_LATENCY) | C(ALLOC_LAYOUT) | C(ALLOC_CHURN) | NEW | KERN},
    {"outdir", O_OUTDIR, C(FULL)},
    {"nodes", O_NODES, C(GATHER) | C(DRAM_CHASE)},
    {"threads", O_THREADS, C(GATHER)},
    {"threads-per-sm", O_TPS, C(GATHER) | BUFS},
    {"loads-per-thread", O_LOADS, C(GATHER) | BUFS},
    {"sm-sets", O_SM_SETS, C(GATHER) | C(CHASERS)},
    {"per-sm", O_PER_SM, C(CHASERS)},
    {"sizes", O_SIZES, C(SMALLBUFS)},
    {"buffers", O_BUFFERS, C(SMALLBUFS)},
    {"launch-ms", O_LAUNCH_MS, C(GATHER) | BUFS},
    {"layout", O_LAYOUT, BUFS},
    {"population", O_POPULATION, C(CHASE)},
    {"grid", O_GRID, C(BLOCKS)},
    {"block", O_BLOCK, C(BLOCKS)},
    {"spin-ns", O_SPIN_NS, C(BLOCKS)},
    {"row-bytes", O_ROW_BYTES, C(EMBED)},
    {"ids-per-bag", O_IDS_PER_BAG, C(EMBED)},
    {"bags", O_BAGS, C(EMBED)},
    {"alpha", O_ALPHA, C(EMBED)},
    {"trace", O_TRACE, C(EMBED)},
    {"dry-run", O_DRY_RUN, C(EMBED)},
    {"va", O_VA, C(EMBED)},
    {"kind", O_KIND, C(STREAM)},
    {"init", O_INIT, C(UVM)},
    {"first", O_FIRST, C(UVM)},
    {"size", O_SIZE, C(UVM)},
    {"host-mem", O_HOST_MEM, C(UVM)},
    {"help", O_HELP, ~0u},
};

static const struct opt_def *find_opt(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
    if (strlen(opt_table[i].name) == len && !strncmp(opt_table[i].name, name, len)) return &opt_table[i];
  return NULL;
}

int gpu_size_list_parse(const char *text, uint64_t *v, size_t max, size_t *n) {
  return num_parse_list(text, NUM_SIZE, 1, v, max, n);
}

int gpu_whole_list_parse(const char *text, uint64_t *v, size_t max, size_t *n) {
  return num_parse_list(text, NUM_WHOLE, 1, v, max, n);
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

int gpu_real_list_parse(const char *text, double lo, double hi, double *v, size_t max, size_t *n) {
  return num_parse_real_list(text, lo, hi, v, max, n);
}

/* A name of names[0..count) as its index. */
static int parse_named(const char *t, const char *const *names, int count, int *v) {
  for (int i = 0; i < count; i++)
    if (!strcmp(t, names[i])) return *v = i, 0;
  return -1;
}

static int parse_init_int(const char *t, int *v) { return parse_named(t, gpu_uvm_init_names, GPU_UVM_INIT_COUNT, v); }
static int parse_first_int(const char *t, int *v) { return parse_named(t, gpu_uvm_first_names, GPU_UVM_FIRST_COUNT, v); }
static const char *const stream_kind_names[] = {"read", "copy"};
static int parse_kind_int(const char *t, int *v) { return parse_named(t, stream_kind_names, 2, v); }

static int population_list(const char *text, gpu_population *v, size_t max, size_t *n) {
  char buf[512];
  *n = 0;
  if (!*text || strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    if (*n == max || gpu_population_parse(tok, &v[(*n)++])) return -1;
  return *n ? 0 : -1;
}

static int parse_order_int(const char *t, int *v) {
  gpu_order o;
  if (gpu_order_parse(t, &o)) return -1;
  *v = (int)o;
  return 0;
}

static int parse_mapping_int(const char *t, int *v) {
  region_mapping m;
  if (region_mapping_parse(t, &m)) return -1;
  *v = (int)m;
  return 0;
}

static int int_list(const char *text, int *v, size_t max, size_t *n) {
  uint64_t x[GPU_MAX_LIST * 4];
  if (num_parse_list(text, NUM_WHOLE, 1, x, max < GPU_MAX_LIST * 4 ? max : GPU_MAX_LIST * 4, n)) return -1;
  for (size_t i = 0; i < *n; i++) {
    if (x[i] > 100000) return -1;
    v[i] = (int)x[i];
  }
  return 0;
}

static void defaults(gpu_opts *o) {
  memset(o, 0, sizeof *o);
  o->cmd = GPU_CMD_HELP;
  o->mappings = 1u << REGION_CONTIGUOUS;
  o->sweep.mapping = REGION_CONTIGUOUS;
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

static int in_range(const uint64_t *v, size_t n, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < n; i++)
    if (v[i] < lo || v[i] > hi) return 0;
  return 1;
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
  case O_NODES:
    if (gpu_whole_list_parse(val, o->nodes, GPU_MAX_LIST, &o->nnodes) || !in_range(o->nodes, o->nnodes, 1, UINT32_MAX))
      return BAD("number list");
    return 0;
  case O_THREADS:
    if (gpu_whole_list_parse(val, o->threads, GPU_MAX_LIST, &o->nthreads) ||
        !in_range(o->threads, o->nthreads, 1, 1ull << 32))
      return BAD("number list");
    return 0;
  case O_TPS:
    if (gpu_whole_list_parse(val, o->tps, GPU_MAX_LIST, &o->ntps) ||
        !in_range(o->tps, o->ntps, 1, GPU_GATHER_MAX_TPS))
      return BAD("number list");
    return 0;
  case O_PER_SM:
    if (gpu_whole_list_parse(val, o->per_sm, GPU_MAX_LIST, &o->nper_sm) || !in_range(o->per_sm, o->nper_sm, 1, 32))
      return BAD("number list");
    return 0;
  case O_SIZES:
    if (gpu_size_list_parse(val, o->sizes, GPU_MAX_LIST, &o->nsizes) || !in_range(o->sizes, o->nsizes, 1, 1ull << 40))
      return BAD("size list");
    return 0;
  case O_SM_SETS:
    if (gpu_sm_sets_parse(val, o->sm_sets, GPU_MAX_SM_SETS, &o->nsm_sets)) return BAD("SM set list");
    return 0;
  case O_POPULATION:
    if (population_list(val, o->pops, GPU_MAX_LIST, &o->npops)) return BAD("population list");
    return 0;
  case O_GRID:
    if (gpu_whole_list_parse(val, o->grids, GPU_MAX_LIST, &o->ngrids) || !in_range(o->grids, o->ngrids, 1, 1u << 20))
      return BAD("number list");
    return 0;
  case O_BLOCK:
    if (gpu_whole_list_parse(val, o->block_threads, GPU_MAX_LIST, &o->nblock_threads) ||
        !in_range(o->block_threads, o->nblock_threads, 32, 1024))
      return BAD("number list (32..1024)");
    for (size_t i = 0; i < o->nblock_threads; i++)
      if (o->block_threads[i] % 32) return BAD("number list (multiples of 32)");
    return 0;
  case O_ROW_BYTES:
    if (gpu_size_list_parse(val, o->row_bytes, GPU_MAX_LIST, &o->nrow_bytes) ||
        !in_range(o->row_bytes, o->nrow_bytes, 8, 1u << 20))
      return BAD("size list");
    return 0;
  case O_ALPHA:
    if (gpu_real_list_parse(val, 0, 10, o->alphas, GPU_MAX_LIST, &o->nalphas)) return BAD("list of reals (0..10)");
    return 0;
  case O_KIND:
    if (name_mask(val, parse_kind_int, &mask)) return BAD("kind list");
    o->stream_kinds = mask;
    return 0;
  case O_INIT:
    if (name_mask(val, parse_init_int, &mask)) return BAD("init list");
    o->uvm_inits = mask;
    return 0;
  case O_FIRST:
    if (name_mask(val, parse_first_int, &mask)) return BAD("first-kernel list");
    o->uvm_firsts = mask;
    return 0;
  case O_SIZE:
    if (gpu_size_list_parse(val, o->sizes, GPU_MAX_LIST, &o->nsizes) || !in_range(o->sizes, o->nsizes, 1, 1ull << 46))
      return BAD("size list");
    return 0;
  case O_TRACE: o->trace_dir = val; return 0;
  case O_VA:
    if (gpu_whole_list_parse(val, o->embed_va, GPU_MAX_LIST, &o->nembed_va) || o->nembed_va != 3)
      return BAD("address list (TABLE,IDS,OUT)");
    return 0;
  case O_DRY_RUN: o->dry_run = 1; return 0;
  case O_OUT: o->out = val; return 0;
  case O_OUTDIR: o->outdir = val; return 0;
  case O_LAYOUT: o->layout = val; return 0;
  default: break;
  }
  int is_size = def->id == O_FMIN || def->id == O_FMAX || def->id == O_CHUNK || def->id == O_DFOOT ||
                def->id == O_DSTRIDE || def->id == O_MIN_SIZE || def->id == O_MAX_SIZE || def->id == O_HOST_MEM;
  if (is_size ? num_parse_size(val, &x) : num_parse_whole(val, &x)) return is_size ? BAD("size") : BAD("number");
  switch (def->id) {
  case O_FMIN: o->sweep.fmin = x; break;
  case O_FMAX: o->sweep.fmax = x; break;
  case O_CHUNK: o->chunk = x; break;
  case O_DFOOT: o->disruptor_footprint = x; break;
  case O_DSTRIDE: o->disruptor_stride = x; break;
  case O_MIN_SIZE: o->min_size = x; break;
  case O_MAX_SIZE: o->max_size = x; break;
  case O_HOST_MEM: o->host_mem = x; break;
  case O_SPIN_NS:
    if (x > 1000000000) return BAD("number (ns, up to 1e9)");
    o->spin_ns = x;
    break;
  case O_IDS_PER_BAG:
    if (!x || x > 4096) return BAD("number");
    o->ids_per_bag = (uint32_t)x;
    break;
  case O_BAGS:
    if (!x || x > (1ull << 32)) return BAD("number");
    o->bags = x;
    break;
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
  case O_LOADS:
    if (!x || x % GPU_GATHER_BATCH || x > (1u << 20)) return BAD("number (a multiple of 8 up to 2^20)");
    o->loads = (uint32_t)x;
    break;
  case O_BUFFERS:
    if (!x || x > 10000000) return BAD("number");
    o->buffers = (uint32_t)x;
    break;
  case O_LAUNCH_MS:
    if (!x || x > 10000) return BAD("number");
    o->launch_ms = x;
    break;
  default: break;
  }
  return 0;
}

#define GIVEN(o, id) ((o)->given >> (id) & 1)

/* Defaults and checks of gather, chasers, smallbufs and churn-gather. */
static int finish_new(gpu_opts *o, diag *d) {
  gpu_cmd c = o->cmd;
  if (!o->loads) o->loads = 256;
  if (!o->launch_ms) o->launch_ms = 2;
  if (!o->ntps && !o->nthreads) o->tps[o->ntps++] = GPU_GATHER_MAX_TPS;
  if (!o->nsm_sets) {
    memset(&o->sm_sets[0], 0, sizeof o->sm_sets[0]);
    o->sm_sets[0].kind = GPU_SMS_GRID; /* chasers: SM 0 */
    if (c == GPU_CMD_CHASERS) o->sm_sets[0].kind = GPU_SMS_LIST, o->sm_sets[0].mask[0] = 1;
    o->nsm_sets = 1;
  }
  if (!o->nper_sm) o->per_sm[o->nper_sm++] = 1;
  if (!o->nsizes) o->sizes[o->nsizes++] = 64u << 10;
  if (!o->buffers) o->buffers = 20000;
  if (c == GPU_CMD_GATHER) {
    if (!o->nnodes) o->nodes[o->nnodes++] = 65536;
    if (GIVEN(o, O_STRIDE) && (GIVEN(o, O_FOOTPRINT) || GIVEN(o, O_FMIN) || GIVEN(o, O_FMAX)))
      return diag_set(d, NULL, 0, "tlbsim-gpu: gather: --stride fixes the footprint (nodes * stride); drop --footprint");
    if (GIVEN(o, O_STRIDE) && o->sweep.nstrides != 1)
      return diag_set(d, NULL, 0, "tlbsim-gpu: gather: --stride takes one size");
    o->gather_stride = GIVEN(o, O_STRIDE) ? o->sweep.strides[0] : 0;
    if (!GIVEN(o, O_FMIN)) o->sweep.fmin = 256u << 20;
    if (!GIVEN(o, O_PER_OCTAVE)) o->sweep.per_octave = 2;
    if (o->sweep.fmin > o->sweep.fmax) return diag_set(d, NULL, 0, "tlbsim-gpu: --fmin is larger than --fmax");
    for (size_t i = 0; i < o->nsm_sets; i++)
      if (o->nthreads && o->sm_sets[i].kind != GPU_SMS_GRID)
        return diag_set(d, NULL, 0, "tlbsim-gpu: gather: --threads needs the grid SM set; use --threads-per-sm");
  }
  if (c == GPU_CMD_CHASERS) {
    for (size_t i = 0; i < o->nsm_sets; i++)
      if (o->sm_sets[i].kind == GPU_SMS_GRID)
        return diag_set(d, NULL, 0, "tlbsim-gpu: chasers: name the SMs (a list or all), not grid");
    if (!GIVEN(o, O_ORDER)) o->sweep.orders = 1u << GPU_ORDER_RANDOM;
    if (!GIVEN(o, O_FOOTPRINT)) {
      static const uint64_t fp[] = {512ull << 20, 32ull << 30, 96ull << 30, 128ull << 30};
      memcpy(o->sweep.footprints, fp, sizeof fp);
      o->sweep.nfootprints = sizeof fp / sizeof fp[0];
    }
  }
  if (c == GPU_CMD_CHURN_GATHER && !o->trace)
    return diag_set(d, NULL, 0, "tlbsim-gpu: churn-gather: no TRACE given");
  return 0;
}

static void default_list(uint64_t *v, size_t *n, const uint64_t *def, size_t ndef) {
  if (*n) return;
  memcpy(v, def, ndef * sizeof *def);
  *n = ndef;
}

#define DEFAULT_LIST(v, n, ...)                                              \
  do {                                                                       \
    static const uint64_t def_[] = {__VA_ARGS__};                            \
    default_list(v, &(n), def_, sizeof def_ / sizeof def_[0]);               \
  } while (0)

#define K_ 1024ull
#define M_ (K_ * K_)
#define G_ (M_ * K_)

/* Defaults and checks of blocks, embed, stream, the two latency chases and uvm. */
static int finish_kern(gpu_opts *o, diag *d) {
  switch (o->cmd) {
  case GPU_CMD_BLOCKS:
    DEFAULT_LIST(o->grids, o->ngrids, 1, 2, 4, 8, 16, 32, 64, 66, 128, 132, 133, 264, 265, 528, 1056);
    DEFAULT_LIST(o->block_threads, o->nblock_threads, 128, 256, 512, 1024);
    if (!GIVEN(o, O_SPIN_NS)) o->spin_ns = 20000;
    if (!o->repeats) o->repeats = 3;
    break;
  case GPU_CMD_EMBED:
    DEFAULT_LIST(o->row_bytes, o->nrow_bytes, 64, 256);
    DEFAULT_LIST(o->sweep.footprints, o->sweep.nfootprints, 1 * G_, 8 * G_, 64 * G_, 96 * G_, 128 * G_);
    if (!o->nalphas) o->alphas[0] = 0, o->alphas[1] = 0.8, o->alphas[2] = 1.2, o->nalphas = 3;
    if (!o->ids_per_bag) o->ids_per_bag = 32;
    if (!o->bags) o->bags = 65536;
    if (!o->repeats) o->repeats = 5;
    if (o->dry_run && !o->trace_dir) return diag_set(d, NULL, 0, "tlbsim-gpu: embed: --dry-run writes a trace: give --trace DIR");
    if (o->nembed_va && !o->dry_run) return diag_set(d, NULL, 0, "tlbsim-gpu: embed: --va is for --dry-run");
    break;
  case GPU_CMD_STREAM:
    if (!o->stream_kinds) o->stream_kinds = 3;
    if (!GIVEN(o, O_FMAX)) o->sweep.fmax = 64 * G_;
    if (!GIVEN(o, O_PER_OCTAVE)) o->sweep.per_octave = 2;
    if (!o->repeats) o->repeats = 5;
    break;
  case GPU_CMD_DRAM_CHASE:
    DEFAULT_LIST(o->sweep.footprints, o->sweep.nfootprints, 64 * M_, 128 * M_, 256 * M_, 1 * G_, 4 * G_, 16 * G_, 64 * G_);
    if (!o->nnodes) o->nodes[o->nnodes++] = 65536;
    if (o->nnodes != 1) return diag_set(d, NULL, 0, "tlbsim-gpu: dram-chase: --nodes takes one count");
    if (!o->repeats) o->repeats = 7;
    if (o->warmup + (uint64_t)o->repeats * o->steps > o->nodes[0])
      return diag_set(d, NULL, 0,
                      "tlbsim-gpu: dram-chase: warm-up + repeats x steps (%llu) exceeds the %llu nodes: "
                      "the chase would come back to lines it made resident",
                      (unsigned long long)o->warmup + (unsigned long long)o->repeats * o->steps,
                      (unsigned long long)o->nodes[0]);
    break;
  case GPU_CMD_L2_CHASE:
    DEFAULT_LIST(o->sweep.footprints, o->sweep.nfootprints, 8 * M_, 16 * M_, 24 * M_, 32 * M_, 40 * M_, 48 * M_,
                 56 * M_, 64 * M_, 80 * M_, 96 * M_, 128 * M_);
    if (!o->repeats) o->repeats = 7;
    break;
  case GPU_CMD_UVM:
    if (!o->uvm_inits) o->uvm_inits = (1u << GPU_UVM_INIT_COUNT) - 1;
    if (!o->uvm_firsts) o->uvm_firsts = (1u << GPU_UVM_FIRST_COUNT) - 1;
    DEFAULT_LIST(o->sizes, o->nsizes, 256 * M_, 512 * M_, 1 * G_, 2 * G_, 4 * G_, 8 * G_, 16 * G_, 32 * G_, 64 * G_);
    if (!o->repeats) o->repeats = 3;
    break;
  default: break;
  }
  return 0;
}

/* Fills the defaults that depend on the command. */
static int finish(gpu_opts *o, diag *d) {
  if (finish_kern(o, d)) return -1;
  int alloc_lat = o->cmd == GPU_CMD_ALLOC_LATENCY, churn = o->cmd == GPU_CMD_ALLOC_CHURN;
  int newcmd = o->cmd == GPU_CMD_GATHER || o->cmd == GPU_CMD_CHASERS || o->cmd == GPU_CMD_SMALLBUFS ||
               o->cmd == GPU_CMD_CHURN_GATHER;
  if (!o->repeats) o->repeats = alloc_lat ? 20 : o->cmd == GPU_CMD_SHARE || newcmd ? 3 : 7;
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
  if (o->cmd == GPU_CMD_CHASE && !o->npops) o->npops = 1; /* chain */
  for (size_t i = 0; i < o->npops; i++)
    if (o->pops[i].kind != GPU_POP_CHAIN && o->mappings != 1u << REGION_MANAGED)
      return diag_set(d, NULL, 0, "tlbsim-gpu: chase: --population other than chain needs --mapping managed alone");
  return newcmd ? finish_new(o, d) : 0;
}

int gpu_opts_given(const gpu_opts *o, const char *name) {
  const struct opt_def *def = find_opt(name, strlen(name));
  return def && GIVEN(o, def->id);
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
    if (strncmp(a, "--", 2)) {
      if (o->cmd != GPU_CMD_CHURN_GATHER || o->trace)
        return diag_set(d, NULL, 0, "tlbsim-gpu: unexpected argument '%s'", a);
      o->trace = a;
      continue;
    }
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
    bool flag = def->id == O_DRY_RUN; /* the one option that takes no value */
    if (flag && val) return diag_set(d, NULL, 0, "tlbsim-gpu: --%s takes no value", def->name);
    if (!val && !flag) {
      if (i + 1 >= argc) return diag_set(d, NULL, 0, "tlbsim-gpu: --%s: missing value", def->name);
      val = argv[++i];
    }
    if (apply(o, def, val, d)) return -1;
    o->given |= 1ull << def->id;
  }
  return finish(o, d);
}
