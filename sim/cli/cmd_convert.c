/* tlbsim convert — a trace from any format tlbsim reads into one it writes
 * (native, lackey, din or binary), plain, gzip'd or zstd-compressed. The
 * output gets its name only when every record was written (cli_out), so a
 * bad record leaves no half-written trace behind. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_progress.h"
#include "cmds.h"
#include "tlbsim/ktrace.h"

#define PROGRESS_RECORDS 4096 /* records between looks at the clock and ^C */

/* The formats a writer exists for, as --to names them. */
static const char *const writable_names[] = {"binary", "native", "lackey", "din", NULL};

typedef struct convert_opts {
  int from, to, codec; /* trace_format; index in writable_names; trace_codec */
  bool quiet;
  uint64_t thread; /* the thread (CPU) of records that name none */
  uint64_t jobs;   /* --jobs: decode threads, 0 the cores available */
  const char *in, *out;
} convert_opts;

static int parse_convert(int argc, char **argv, convert_opts *o) {
  const cli_opt opts[] = {
      {.name = "trace-format", .alias = "from", .kind = OPT_CHOICE, .dest = &o->from, .arg = "F",
       .choices = trace_format_names,
       .help = "the input's format: auto (default: from its first bytes), native, lackey, din, binary,\n"
               "champsim or pinatrace"},
      {.name = "to", .kind = OPT_CHOICE, .dest = &o->to, .arg = "F", .choices = writable_names,
       .help = "the output's format: binary (default), native, lackey or din"},
      {.name = "compress", .kind = OPT_CHOICE, .dest = &o->codec, .arg = "C", .choices = trace_codec_names,
       .help = "none (default), gzip or zstd"},
      {.name = "thread", .kind = OPT_WHOLE, .dest = &o->thread, .arg = "N", .hi = TRACE_THREAD_MAX - 1,
       .help = "the thread (CPU) of the input's records that name none (default 0); native and\n"
               "binary keep thread ids, lackey and din hold thread 0 only"},
      CLI_JOBS_OPT(&o->jobs),
      {.name = "quiet", .kind = OPT_FLAG, .dest = &o->quiet, .help = "no summary line and no progress line on stderr"},
  };
  const cli_spec spec = {
      .cmd = "convert", .usage = "[OPTIONS] IN|- OUT|-", .operands = "IN and OUT", .min_operands = 2,
      .max_operands = 2,
      .about = "Converts the trace IN (any format tlbsim reads, compressed or not; - for stdin) into OUT\n"
               "(- for stdout) in the format --to names. Replaying OUT gives the same results as IN.",
      .notes = "lackey and din hold accesses to addresses only, and din no sizes: a record they cannot\n"
               "hold is an error naming its line, and OUT is not written. traces/FORMAT.md describes\n"
               "every format; the binary one is the fastest to replay. A GPU kernel trace (an Accel-Sim\n"
               "kernelslist.g or kernel-N.traceg, told by its first bytes) converts to tlbsim's binary\n"
               "kernel trace, which tlbsim kernel reads at the speed of reading.\n",
      .opt = opts, .nopt = sizeof opts / sizeof opts[0]};
  int first, rc = cli_parse(&spec, argc, argv, &first);
  if (rc) return rc;
  o->in = argv[first];
  o->out = argv[first + 1];
  return 0;
}

/* Every record of r through w: the count, or -1 with d set (on ^C:
 * "interrupted", *stopped set). The progress line every PROGRESS_RECORDS. */
static long long copy_records(trace_reader *r, trace_writer *w, const convert_opts *o, bool *stopped, diag *d) {
  trace_record rec;
  long long n = 0;
  int k;
  cli_progress line;
  /* Records written to a terminal as they come: no progress line among them. */
  cli_progress_start(&line, "convert", o->quiet || (!strcmp(o->out, "-") && isatty(STDOUT_FILENO)));
  uint64_t total = cli_file_size(o->in);
  cli_interrupt_catch();
  while ((k = trace_next(r, &rec, d)) == 1) {
    if (trace_write(w, &rec, trace_get_path(r), d)) return cli_progress_end(&line), -1;
    if (++n % PROGRESS_RECORDS != 1) continue; /* the first record, then every PROGRESS_RECORDS */
    if ((*stopped = cli_interrupted())) {
      k = diag_set(d, o->out, 0, "interrupted after %lld records: not written", n);
      break;
    }
    char where[160];
    cli_progress_bytes(where, sizeof where, trace_bytes_read(r), total, trace_get_path(r));
    cli_progress_show(&line, "%lld records, %s", n, where);
  }
  cli_progress_end(&line);
  if (k == 0 && cli_check_nonempty(r, d)) return -1; /* OUT is not written */
  return k < 0 ? -1 : n;
}

/* Every kernel, memcpy and thread block of r through w: 0, or -1 with d set. */
static int copy_kernels(ktrace_reader *r, ktrace_writer *w, uint64_t n[3], diag *d) {
  ktrace_tb *tb = ktrace_tb_new();
  if (!tb) return diag_set(d, ktrace_path(r), 0, "out of memory");
  ktrace_item it;
  int got;
  while ((got = ktrace_next(r, &it, d)) == 1) {
    if (it.kind == KTRACE_ITEM_MEMCPY) {
      if (ktrace_write_memcpy(w, &it.memcpy, d)) break;
      continue;
    }
    if (ktrace_write_kernel(w, it.kernel, d)) break;
    n[0]++;
    while ((got = ktrace_next_tb(r, tb, d)) == 1) {
      if (ktrace_write_tb(w, tb, d)) break;
      n[1]++;
      n[2] += tb->ninst;
    }
    if (got) break;
  }
  ktrace_tb_free(tb);
  return got ? -1 : 0;
}

/* A kernel trace into tlbsim's binary kernel form. */
static int convert_kernels(const convert_opts *o) {
  if (o->to != 0 || o->codec != TRACE_PLAIN || o->from != TRACE_AUTO)
    return cli_usage_error("convert", "a kernel trace converts to tlbsim's binary kernel trace only: no --from, "
                                      "--to or --compress (compress OUT with zstd or xz; tlbsim reads both)");
  diag d;
  ktrace_reader *r = ktrace_open(o->in, &d);
  if (!r) return cli_input_error(&d);
  bool to_stdout = !strcmp(o->out, "-");
  cli_out out = {.f = stdout};
  const char *inputs[] = {o->in, NULL};
  if (!to_stdout && cli_out_open(&out, o->out, false, inputs, &d)) {
    ktrace_close(r);
    return cli_input_error(&d);
  }
  ktrace_writer *w = ktrace_writer_open(out.f, to_stdout ? "<stdout>" : o->out, &d);
  uint64_t n[3] = {0};
  int rc = w ? copy_kernels(r, w, n, &d) : -1;
  if (w && (rc ? (ktrace_writer_free(w), -1) : ktrace_writer_finish(w, &d))) rc = -1;
  if (!rc && !to_stdout && cli_out_commit(&out, &d)) rc = -1;
  if (rc && !to_stdout) cli_out_discard(&out);
  if (!rc && !o->quiet)
    fprintf(stderr, "tlbsim convert: %llu kernels, %llu thread blocks, %llu warp instructions from %s to %s (binary "
            "kernel trace)\n", (unsigned long long)n[0], (unsigned long long)n[1], (unsigned long long)n[2],
            ktrace_path(r), to_stdout ? "<stdout>" : o->out);
  ktrace_close(r);
  return rc ? cli_input_error(&d) : EXIT_OK;
}

int cmd_convert(int argc, char **argv) {
  convert_opts o = {.from = TRACE_AUTO, .codec = TRACE_PLAIN};
  int rc = parse_convert(argc, argv, &o);
  if (rc) return rc < 0 ? EXIT_OK : rc;
  if (ktrace_sniff(o.in)) return convert_kernels(&o);
  trace_format to;
  trace_format_parse(writable_names[o.to], &to);
  diag d;
  trace_reader *r = trace_open_jobs(o.in, (trace_format)o.from, (unsigned)o.jobs, &d);
  if (!r) return cli_input_error(&d);
  trace_set_thread(r, (uint32_t)o.thread);
  bool to_stdout = !strcmp(o.out, "-");
  cli_out out = {.f = stdout};
  const char *inputs[] = {o.in, NULL};
  if (!to_stdout && cli_out_open(&out, o.out, false, inputs, &d)) {
    trace_close(r);
    return cli_input_error(&d);
  }
  trace_writer *w = trace_writer_open(out.f, to_stdout ? "<stdout>" : o.out, to, (trace_codec)o.codec, &d);
  bool stopped = false;
  long long n = w ? copy_records(r, w, &o, &stopped, &d) : -1;
  if (n >= 0) {
    trace_writer *done = w;
    w = NULL;
    if (trace_writer_finish(done, &d) || (!to_stdout && cli_out_commit(&out, &d))) n = -1;
  }
  trace_writer_free(w);
  if (n < 0 && !to_stdout) cli_out_discard(&out);
  if (n >= 0 && !o.quiet)
    fprintf(stderr, "tlbsim convert: %lld records from %s (%s) to %s (%s%s%s)\n", n, trace_get_path(r),
            trace_format_name(trace_get_format(r)), to_stdout ? "<stdout>" : o.out, writable_names[o.to],
            o.codec ? ", " : "", o.codec ? trace_codec_names[o.codec] : "");
  trace_close(r);
  if (stopped) return fprintf(stderr, "tlbsim convert: %s\n", d.msg), CLI_EXIT_INTERRUPTED;
  return n < 0 ? cli_input_error(&d) : EXIT_OK;
}
