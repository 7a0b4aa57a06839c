/* trace_src.h — a trace's bytes, decompressed: what every reader of the
 * trace module reads from. Private to the trace module, and to the ktrace
 * module (GPU kernel traces), which reads its files through it.
 *
 * trace_src  a file, stdin ("-") or bytes in memory, and the codec its
 *            first bytes name:
 *            plain bytes are read() straight into the caller's buffer (no
 *            copy through a decompressor); zstd (libzstd) and xz
 *            (liblzma) decompress from one input buffer of the source's
 *            own, xz's blocks on liblzma's decode threads when the file
 *            has several and more than one job is asked for; gzip (ISA-L's igzip) is inflated by a thread of the
 *            source's own into a fixed ring of buffers, ahead of the
 *            reader. Memory is constant. The codecs are the module's
 *            portability seam (trace_src_impl.h): the browser build
 *            inflates gzip with zlib in the reader's calls and refuses zstd
 *            and xz by name.
 */
#ifndef TLBSIM_TRACE_SRC_H
#define TLBSIM_TRACE_SRC_H

#include "tlbsim/trace.h"

typedef struct trace_src trace_src;

/* Opens path ("-": stdin, duplicated so closing leaves the process's stdin
 * open) and settles its codec from the first bytes. name is the path as
 * errors print it; it must outlive the source. jobs: the threads a codec
 * may decode on (xz's multithreaded decoder for a multi-block file; 0: the
 * cores available, 1: the reader's own calls). NULL with d set on error. */
trace_src *trace_src_open(const char *path, const char *name, unsigned jobs, diag *d);
/* The same over a copy of len bytes at data (compressed or not), all of
 * the input at once: what a library caller hands over as text. */
trace_src *trace_src_open_memory(const void *data, size_t len, const char *name, diag *d);
/* Up to cap decompressed bytes into buf: 0 with *got (0 only at the end of
 * input), or -1 with d as "NAME:LINE: cannot read input: ..." (line: the
 * line being read, for the message). */
int trace_src_read(trace_src *s, void *buf, size_t cap, size_t *got, unsigned long line, diag *d);
/* Bytes taken from the file or pipe so far (compressed bytes for gzip, as
 * of when the buffer being read was inflated; all of them at the end). */
uint64_t trace_src_offset(const trace_src *s);
trace_codec trace_src_codec(const trace_src *s);
/* Whether the input is a regular file: a read of it never waits on a
 * writer (a pipe's or a terminal's can, for ever). */
bool trace_src_regular_file(const trace_src *s);
/* Frees s; for gzip, first stops and joins its thread. */
void trace_src_close(trace_src *s);

#endif
