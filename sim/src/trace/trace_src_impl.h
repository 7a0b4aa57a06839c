/* trace_src_impl.h — what trace_src.c shares with its codecs, one file
 * each: the trace module's portability seam.
 *
 * trace_src        the input (a file, stdin or bytes in memory), the buffer
 *                  `in` compressed bytes wait in, and the codec settled
 *                  from the first bytes with its own state.
 * trace_codec_ops  one codec: start (its state from the first bytes on),
 *                  read (decompressed bytes for the caller), offset (bytes
 *                  taken from the input, as the caller should see them)
 *                  and stop.
 *
 * Which file defines a codec is the build's choice (sim/src/trace/
 * trace.cmake): the native build inflates gzip with ISA-L on a thread of
 * its own (trace_src_gzip.c) and reads zstd and xz (trace_src_zx.c); the
 * browser build, which has neither threads nor those libraries, inflates
 * gzip with zlib in the reader's own calls (trace_src_gzip_zlib.c) and
 * names zstd and xz input as not readable there (trace_src_zx_absent.c).
 * The bytes a codec hands out are the same whichever file it is.
 */
#ifndef TLBSIM_TRACE_SRC_IMPL_H
#define TLBSIM_TRACE_SRC_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace_src.h"

#define TRACE_SRC_IN_BYTES (256 * 1024)

typedef struct trace_codec_ops {
  /* s->state from the first bytes (in[at, end)) on: 0, or -1 with d set. */
  int (*start)(trace_src *s, diag *d);
  /* As trace_src_read. */
  int (*read)(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d);
  /* trace_src_offset; NULL: s->offset. */
  uint64_t (*offset)(const trace_src *s);
  /* Frees s->state (NULL or partly started too). */
  void (*stop)(trace_src *s);
} trace_codec_ops;

extern const trace_codec_ops trace_src_gzip, trace_src_zstd, trace_src_xz;

struct trace_src {
  const char *name;
  unsigned char *in;     /* TRACE_SRC_IN_BYTES of input not yet decoded: in[at, end) */
  size_t at, end;
  uint64_t offset;       /* bytes read() so far */
  int fd;                /* -1: in-memory input (all of it in `in`) */
  trace_codec codec;
  unsigned jobs;         /* decode threads a codec may use (xz); 0: the cores available */
  bool in_eof;           /* read() returned 0 */
  const trace_codec_ops *ops; /* NULL: plain */
  void *state;           /* the codec's */
};

/* "NAME:LINE: cannot read input: why" in d; -1. */
int trace_src_fail(const trace_src *s, unsigned long line, diag *d, const char *why);
/* read() that retries on EINTR: bytes, 0 at the end, -1 with errno. */
ssize_t trace_src_read_some(int fd, void *buf, size_t cap);
/* Tops up `in` behind its unread bytes (moved to the front) until it holds
 * at least `want` of them or the input ends: 0, or -1 with errno. */
int trace_src_top_up(trace_src *s, size_t want);
/* trace_src_top_up, its errno as trace_src_fail's message. */
int trace_src_fill_in(trace_src *s, size_t want, unsigned long line, diag *d);
/* in[at, end) starts with the n bytes of magic. */
bool trace_src_starts_with(const trace_src *s, const unsigned char *magic, size_t n);

extern const unsigned char trace_src_gzip_magic[2];
/* After a gzip member, both gzip codecs: 1 when another member starts at
 * in[at], 0 when the input ends there, -1 with *why ("data after the end
 * of the gzip stream") or *err (read()'s errno). top_up: how the codec
 * waits for input (trace_src_top_up's contract). */
int trace_src_gzip_member_end(trace_src *s, int (*top_up)(trace_src *s, size_t want), const char **why, int *err);

/* zstd compression for trace_write.c, behind the same seam: false (and
 * trace_zstd_enc_new NULL) where the build has no zstd. */
extern const bool trace_zstd_writes;
typedef struct trace_zstd_enc trace_zstd_enc;
trace_zstd_enc *trace_zstd_enc_new(void); /* NULL: out of memory */
/* Compresses from *in (advanced) up to end into out[0, cap), *got bytes
 * of it; last: the frame ends there. *more: output is still held back
 * (call again). 0, or -1 with *why. */
int trace_zstd_enc_step(trace_zstd_enc *e, const uint8_t **in, const uint8_t *end, uint8_t *out, size_t cap,
                        size_t *got, bool last, bool *more, const char **why);
void trace_zstd_enc_free(trace_zstd_enc *e);

#endif
