/* trace_src_zx.c — zstd (libzstd) and xz (liblzma) input for the native
 * build (trace_src_impl.h): each decompresses from the source's input
 * buffer in the reader's own calls. */
#include <lzma.h>
#include <stdlib.h>
#include <zstd.h>

#include "trace_src_impl.h"

/* --- zstd: frames back to back (zstd -c a b > ab) read as one stream, as
 * zstd -d does; input that ends inside a frame is an error. */

typedef struct zstd_state {
  ZSTD_DStream *z;
  bool done;           /* the input ended after a whole frame */
  bool between_frames; /* the last frame begun is complete */
} zstd_state;

static int zstd_start(trace_src *s, diag *d) {
  zstd_state *z = s->state = calloc(1, sizeof *z);
  if (!z || !(z->z = ZSTD_createDStream()) || ZSTD_isError(ZSTD_initDStream(z->z)))
    return diag_set(d, s->name, 0, "out of memory");
  return 0;
}

static int zstd_read(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  zstd_state *z = s->state;
  ZSTD_outBuffer out = {buf, cap, 0};
  while (out.pos == 0 && !z->done) {
    if (s->at == s->end) {
      if (!s->in_eof && trace_src_fill_in(s, 1, line, d)) return -1;
      if (s->at < s->end) continue;
      if (!z->between_frames) return trace_src_fail(s, line, d, "unexpected end of file (a cut-off zstd stream)");
      z->done = true;
      break;
    }
    ZSTD_inBuffer in = {s->in + s->at, s->end - s->at, 0};
    size_t hint = ZSTD_decompressStream(z->z, &out, &in);
    s->at += in.pos;
    if (ZSTD_isError(hint)) return trace_src_fail(s, line, d, ZSTD_getErrorName(hint));
    z->between_frames = hint == 0;
  }
  *got = out.pos;
  return 0;
}

static void zstd_stop(trace_src *s) {
  zstd_state *z = s->state;
  if (!z) return;
  ZSTD_freeDStream(z->z);
  free(z);
}

const trace_codec_ops trace_src_zstd = {zstd_start, zstd_read, NULL, zstd_stop};

/* The writer's side (trace_write.c). */

const bool trace_zstd_writes = true;

trace_zstd_enc *trace_zstd_enc_new(void) { return (trace_zstd_enc *)ZSTD_createCStream(); }

int trace_zstd_enc_step(trace_zstd_enc *e, const uint8_t **in, const uint8_t *end, uint8_t *out, size_t cap,
                        size_t *got, bool last, bool *more, const char **why) {
  ZSTD_inBuffer ib = {*in, (size_t)(end - *in), 0};
  ZSTD_outBuffer ob = {out, cap, 0};
  size_t left = ZSTD_compressStream2((ZSTD_CStream *)e, &ob, &ib, last ? ZSTD_e_end : ZSTD_e_continue);
  *in += ib.pos;
  *got = ob.pos;
  if (ZSTD_isError(left)) return *why = ZSTD_getErrorName(left), -1;
  *more = last && left;
  return 0;
}

void trace_zstd_enc_free(trace_zstd_enc *e) { ZSTD_freeCStream((ZSTD_CStream *)e); }

/* --- xz: LZMA_CONCATENATED: streams back to back read as one, as xz -d
 * does. With more than one decode thread (s->jobs), liblzma's
 * multithreaded decoder: its worker threads decode the blocks of a
 * multi-block file (xz -T0, ChampSim's tools) in parallel ahead of the
 * reader, whose calls only take the decoded bytes in order; a file of one
 * block (plain xz), whose block headers carry no sizes, it decodes on one
 * thread. The bytes are the same either way. One thread: the single-
 * threaded decoder in the reader's own calls. */

typedef struct xz_state {
  lzma_stream x;
  bool live; /* the decoder started: lzma_end is owed */
  bool done;
} xz_state;

/* Memory the decode threads may hold (compressed and decoded blocks in
 * flight) before liblzma decodes on one thread instead: a quarter of RAM,
 * xz's own default for threads. */
static uint64_t xz_thread_memory(void) {
  uint64_t ram = lzma_physmem();
  return ram ? ram / 4 : (uint64_t)1 << 30;
}

/* liblzma refuses more (its LZMA_THREADS_MAX, which lzma.h does not export). */
#define XZ_THREADS_MAX 16384u

static int xz_start(trace_src *s, diag *d) {
  xz_state *x = s->state = calloc(1, sizeof *x);
  if (!x) return diag_set(d, s->name, 0, "out of memory");
  x->x = (lzma_stream)LZMA_STREAM_INIT;
  uint32_t threads = s->jobs ? s->jobs : lzma_cputhreads(); /* 0: cores unknown */
  lzma_ret rc;
  if (threads > 1) {
    if (threads > XZ_THREADS_MAX) threads = XZ_THREADS_MAX;
    lzma_mt mt = {.flags = LZMA_CONCATENATED, .threads = threads, .memlimit_threading = xz_thread_memory(),
                  .memlimit_stop = UINT64_MAX};
    rc = lzma_stream_decoder_mt(&x->x, &mt);
  } else
    rc = lzma_stream_decoder(&x->x, UINT64_MAX, LZMA_CONCATENATED);
  if (rc != LZMA_OK) return diag_set(d, s->name, 0, "out of memory");
  x->live = true;
  return 0;
}

static const char *xz_reason(lzma_ret rc) {
  switch (rc) {
  case LZMA_MEM_ERROR: return "out of memory";
  case LZMA_FORMAT_ERROR: return "not xz data";
  case LZMA_OPTIONS_ERROR: return "unsupported xz options";
  case LZMA_DATA_ERROR: return "corrupt xz data";
  case LZMA_BUF_ERROR: return "unexpected end of file (a cut-off xz stream)";
  default: return "xz decoder error";
  }
}

static int xz_read(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  xz_state *x = s->state;
  x->x.next_out = buf;
  x->x.avail_out = cap;
  while (x->x.avail_out == cap && !x->done) {
    if (s->at == s->end && !s->in_eof && trace_src_fill_in(s, 1, line, d)) return -1;
    x->x.next_in = s->in + s->at;
    x->x.avail_in = s->end - s->at;
    lzma_ret rc = lzma_code(&x->x, s->at == s->end ? LZMA_FINISH : LZMA_RUN);
    s->at = s->end - x->x.avail_in;
    if (rc == LZMA_STREAM_END) x->done = true;
    else if (rc != LZMA_OK) return trace_src_fail(s, line, d, xz_reason(rc));
  }
  *got = cap - x->x.avail_out;
  return 0;
}

static void xz_stop(trace_src *s) {
  xz_state *x = s->state;
  if (!x) return;
  if (x->live) lzma_end(&x->x);
  free(x);
}

const trace_codec_ops trace_src_xz = {xz_start, xz_read, NULL, xz_stop};
