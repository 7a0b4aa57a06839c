/* trace_src_zx_absent.c — zstd and xz in the browser build
 * (trace_src_impl.h), which links neither library: such input is named as
 * what it is and refused, so it is never read as a plain trace. */
#include "trace_src_impl.h"

static int refuse(trace_src *s, diag *d, const char *what) {
  return diag_set(d, s->name, 0, "cannot read input: %s-compressed, and this build reads plain and gzip input only "
                                 "(decompress it first, or use the tlbsim command)", what);
}

static int zstd_start(trace_src *s, diag *d) { return refuse(s, d, "zstd"); }
static int xz_start(trace_src *s, diag *d) { return refuse(s, d, "xz"); }

/* Never called: start fails, so the source is closed before a read. */
static int no_read(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  (void)buf, (void)cap, (void)got;
  return trace_src_fail(s, line, d, "no decoder in this build");
}

static void no_stop(trace_src *s) { (void)s; }

const trace_codec_ops trace_src_zstd = {zstd_start, no_read, NULL, no_stop};
const trace_codec_ops trace_src_xz = {xz_start, no_read, NULL, no_stop};

const bool trace_zstd_writes = false;

trace_zstd_enc *trace_zstd_enc_new(void) { return NULL; }

int trace_zstd_enc_step(trace_zstd_enc *e, const uint8_t **in, const uint8_t *end, uint8_t *out, size_t cap,
                        size_t *got, bool last, bool *more, const char **why) {
  (void)e, (void)in, (void)end, (void)out, (void)cap, (void)last, (void)more;
  *got = 0;
  *why = "no zstd in this build";
  return -1;
}

void trace_zstd_enc_free(trace_zstd_enc *e) { (void)e; }
