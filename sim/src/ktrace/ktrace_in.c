/* ktrace_in.c — one kernel-trace file's bytes in one fixed buffer
 * (ktrace_fmt.h): lines cut in place for the text format, runs of bytes
 * for the binary one. The bytes come from the trace module's trace_src, so
 * gzip, zstd and xz are read as the other traces are.
 *
 * A line that runs off the end of the buffered data has its start moved to
 * the front and the rest read behind it; TRACE_LINE_MAX bounds a line, so
 * the buffer always holds one whole line and a useful read.
 */
#include "ktrace_fmt.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(KTRACE_IN_BYTES >= 4 * TRACE_LINE_MAX, "the buffer holds a whole line and most of a read");

int ktrace_in_open(ktrace_in *in, const char *path, const char *name, diag *d) {
  *in = (ktrace_in){0};
  if (!(in->name = strdup(name)) || !(in->buf = malloc(KTRACE_IN_BYTES + 1 + KTRACE_PAD))) {
    ktrace_in_close(in);
    return diag_set(d, name, 0, "out of memory");
  }
  if (!(in->src = trace_src_open(path, in->name, 1, d))) {
    ktrace_in_close(in);
    return -1;
  }
  return 0;
}

/* Moves the unread tail to the front and reads behind it. */
static int refill(ktrace_in *in, diag *d) {
  size_t keep = in->end - in->start, got;
  memmove(in->buf, in->buf + in->start, keep);
  in->start = 0;
  in->end = keep;
  if (trace_src_read(in->src, in->buf + keep, KTRACE_IN_BYTES - keep, &got, in->no + 1, d)) return -1;
  if (got == 0) in->eof = true;
  in->end += got;
  return 0;
}

int ktrace_in_line(ktrace_in *in, char **line, size_t *len, diag *d) {
  char *nl;
  for (;;) {
    size_t avail = in->end - in->start;
    if ((nl = memchr(in->buf + in->start, '\n', avail))) break;
    if (avail > TRACE_LINE_MAX) goto too_long;
    if (in->eof) {
      if (!avail) return 0;
      nl = in->buf + in->end; /* a last line without a newline: the buffer has a spare byte */
      in->end++;
      break;
    }
    if (refill(in, d)) return -1;
  }
  char *s = in->buf + in->start;
  size_t n = (size_t)(nl - s);
  if (n > TRACE_LINE_MAX) goto too_long;
  in->start += n + 1;
  if (n && s[n - 1] == '\r') n--;
  s[n] = '\0';
  in->no++;
  *line = s;
  *len = n;
  return 1;
too_long:
  return diag_set(d, in->name, in->no + 1, "line longer than %d bytes: is this a kernel trace?", TRACE_LINE_MAX);
}

int ktrace_in_fill(ktrace_in *in, size_t want, diag *d) {
  while (!in->eof && in->end - in->start < want)
    if (refill(in, d)) return -1;
  if (in->eof) memset(in->buf + in->end, 0, KTRACE_PAD);
  return 0;
}

void ktrace_in_close(ktrace_in *in) {
  trace_src_close(in->src);
  free(in->buf);
  free(in->name);
  *in = (ktrace_in){0};
}
