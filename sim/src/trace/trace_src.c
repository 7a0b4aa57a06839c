/* trace_src.c — a trace's bytes from a file or stdin, decompressed by the
 * codec its first bytes name (trace_src.h).
 *
 * The source reads the input in chunks of TRACE_SRC_IN_BYTES. The first
 * chunk settles the codec; for plain input what is left of it is handed
 * out first and every later read() goes straight into the caller's buffer.
 * Compressed input stays in `in` and the codec (trace_src_impl.h: one file
 * each, the build's choice) inflates from it.
 */
#include "trace_src_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Enough input to tell every codec's magic bytes apart. */
#define MAGIC_MAX 8

const unsigned char trace_src_gzip_magic[2] = {0x1f, 0x8b};
static const unsigned char zstd_magic[] = {0x28, 0xb5, 0x2f, 0xfd};
static const unsigned char xz_magic[] = {0xfd, '7', 'z', 'X', 'Z', 0x00};

int trace_src_fail(const trace_src *s, unsigned long line, diag *d, const char *why) {
  return diag_set(d, s->name, line, "cannot read input: %s", why);
}

ssize_t trace_src_read_some(int fd, void *buf, size_t cap) {
  ssize_t n;
  do n = read(fd, buf, cap);
  while (n < 0 && errno == EINTR);
  return n;
}

int trace_src_top_up(trace_src *s, size_t want) {
  memmove(s->in, s->in + s->at, s->end - s->at);
  s->end -= s->at;
  s->at = 0;
  while (!s->in_eof && s->end < want) {
    ssize_t n = trace_src_read_some(s->fd, s->in + s->end, TRACE_SRC_IN_BYTES - s->end);
    if (n < 0) return -1;
    if (n == 0) s->in_eof = true;
    s->end += (size_t)n;
    s->offset += (uint64_t)n;
  }
  return 0;
}

int trace_src_fill_in(trace_src *s, size_t want, unsigned long line, diag *d) {
  return trace_src_top_up(s, want) ? trace_src_fail(s, line, d, strerror(errno)) : 0;
}

bool trace_src_starts_with(const trace_src *s, const unsigned char *magic, size_t n) {
  return s->end - s->at >= n && !memcmp(s->in + s->at, magic, n);
}

int trace_src_gzip_member_end(trace_src *s, int (*top_up)(trace_src *s, size_t want), const char **why, int *err) {
  if (s->end - s->at < sizeof trace_src_gzip_magic && top_up(s, sizeof trace_src_gzip_magic)) {
    *err = errno;
    return -1;
  }
  if (s->at == s->end) return 0;
  if (trace_src_starts_with(s, trace_src_gzip_magic, sizeof trace_src_gzip_magic)) return 1;
  *why = "data after the end of the gzip stream";
  return -1;
}

/* The codec the first bytes name, and its decoder started. */
static int settle_codec(trace_src *s, diag *d) {
  if (trace_src_starts_with(s, trace_src_gzip_magic, sizeof trace_src_gzip_magic)) {
    s->codec = TRACE_GZIP;
    s->ops = &trace_src_gzip;
  } else if (trace_src_starts_with(s, zstd_magic, sizeof zstd_magic)) {
    s->codec = TRACE_ZSTD;
    s->ops = &trace_src_zstd;
  } else if (trace_src_starts_with(s, xz_magic, sizeof xz_magic)) {
    s->codec = TRACE_XZ;
    s->ops = &trace_src_xz;
  }
  return s->ops ? s->ops->start(s, d) : 0;
}

trace_src *trace_src_open(const char *path, const char *name, unsigned jobs, diag *d) {
  trace_src *s = calloc(1, sizeof *s);
  if (!s || !(s->in = malloc(TRACE_SRC_IN_BYTES))) {
    free(s);
    diag_set(d, name, 0, "out of memory");
    return NULL;
  }
  s->name = name;
  s->jobs = jobs;
  errno = 0;
  s->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
  if (s->fd < 0) {
    diag_set(d, name, 0, "cannot open: %s", strerror(errno));
    trace_src_close(s);
    return NULL;
  }
  if (trace_src_fill_in(s, MAGIC_MAX, 0, d) || settle_codec(s, d)) {
    trace_src_close(s);
    return NULL;
  }
  return s;
}

trace_src *trace_src_open_memory(const void *data, size_t len, const char *name, diag *d) {
  trace_src *s = calloc(1, sizeof *s);
  if (!s || !(s->in = malloc(len ? len : 1))) {
    free(s);
    diag_set(d, name, 0, "out of memory");
    return NULL;
  }
  memcpy(s->in, data, len);
  *s = (trace_src){.name = name, .in = s->in, .end = len, .offset = len, .fd = -1, .jobs = 1, .in_eof = true};
  if (settle_codec(s, d)) {
    trace_src_close(s);
    return NULL;
  }
  return s;
}

/* Plain input: what the first chunk left, then read() into buf directly. */
static int read_plain(trace_src *s, unsigned char *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  if (s->at < s->end) {
    size_t n = s->end - s->at < cap ? s->end - s->at : cap;
    memcpy(buf, s->in + s->at, n);
    s->at += n;
    *got = n;
    return 0;
  }
  *got = 0;
  if (s->in_eof) return 0;
  ssize_t n = trace_src_read_some(s->fd, buf, cap);
  if (n < 0) return trace_src_fail(s, line, d, strerror(errno));
  if (n == 0) s->in_eof = true;
  s->offset += (uint64_t)n;
  *got = (size_t)n;
  return 0;
}

int trace_src_read(trace_src *s, void *buf, size_t cap, size_t *got, unsigned long line, diag *d) {
  return s->ops ? s->ops->read(s, buf, cap, got, line, d) : read_plain(s, buf, cap, got, line, d);
}

uint64_t trace_src_offset(const trace_src *s) {
  return s->ops && s->ops->offset ? s->ops->offset(s) : s->offset;
}

trace_codec trace_src_codec(const trace_src *s) { return s->codec; }

bool trace_src_regular_file(const trace_src *s) {
  struct stat st;
  return s->fd >= 0 && fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode);
}

void trace_src_close(trace_src *s) {
  if (!s) return;
  if (s->ops) s->ops->stop(s);
  if (s->fd >= 0) close(s->fd);
  free(s->in);
  free(s);
}
