/* tlbsim/trace.h — streaming trace readers, one interface for every format.
 *
 * trace_record  one event: an access, an allocation, an explicit mapping, a
 *               context switch or a mark. Readers fill it; the machine
 *               applies it. Records carry their source line for errors.
 * trace_reader  owns its input (a file, gzip transparently, or stdin for "-")
 *               and one fixed line buffer: memory is constant in the trace's
 *               length and nothing is allocated per record.
 *
 * Formats: native (traces/FORMAT.md), lackey (valgrind --trace-mem=yes),
 * din (Dinero IV). "auto" sniffs the first meaningful line. Every field a
 * record's kind does not use is zero, so records compare field by field.
 */
#ifndef TLBSIM_TRACE_H
#define TLBSIM_TRACE_H

#include "tlbsim/base.h"

typedef enum {
  REC_ACCESS,  /* access, addr (or alloc_id + addr as offset), size >= 1 */
  REC_ALLOC,   /* alloc_id, size, align (0: the allocator's default), stream */
  REC_FREE,    /* alloc_id */
  REC_MAP,     /* addr, size, page_size, prot; pa chosen by phys */
  REC_UNMAP,   /* addr, size */
  REC_PROTECT, /* addr, size, prot */
  REC_CTX,     /* asid */
  REC_MARK     /* label: a phase boundary reported in timelines */
} trace_rec_kind;

typedef enum { TRACE_READ, TRACE_WRITE, TRACE_EXEC } trace_access;

#define TRACE_LABEL_MAX 64
/* Longest line a reader accepts (bytes, without the newline): a longer one
 * is an error rather than a reason to grow the buffer without bound. */
#define TRACE_LINE_MAX (64 * 1024)

typedef struct trace_record {
  trace_rec_kind kind;
  trace_access access;
  bool relative;        /* addr is an offset into allocation alloc_id */
  uint8_t prot;         /* PT_R|PT_W|PT_X */
  uint32_t asid;
  uint32_t stream;      /* REC_ALLOC: the stream a caching allocator pools by */
  uint64_t alloc_id;
  uint64_t addr;
  uint64_t size;
  uint64_t align;
  uint64_t page_size;   /* 0: the configured default */
  unsigned long line;   /* source line, for diagnostics */
  char label[TRACE_LABEL_MAX];
} trace_record;

typedef enum { TRACE_AUTO, TRACE_NATIVE, TRACE_LACKEY, TRACE_DIN } trace_format;

/* "auto", "native", "lackey", "din"; -1 for anything else. */
int trace_format_parse(const char *s, trace_format *out);
const char *trace_format_name(trace_format f);

typedef struct trace_reader trace_reader;

/* path "-" reads stdin. gzip input is detected by its magic bytes. With
 * TRACE_AUTO the format is settled here from the first line that is not
 * blank, a # comment or a valgrind ==PID== banner; an input with no such
 * line is an empty native trace. */
trace_reader *trace_open(const char *path, trace_format fmt, diag *d);
/* 1: *rec filled; 0: end of input; -1: error in d as "FILE:LINE: ...".
 * After -1 every further call repeats the same error. */
int trace_next(trace_reader *r, trace_record *rec, diag *d);
trace_format trace_get_format(const trace_reader *r); /* resolved after auto */
const char *trace_get_path(const trace_reader *r);    /* "<stdin>" for "-" */
/* Bytes consumed from the (compressed) input so far, for progress lines;
 * on an unseekable input (a pipe) the decompressed bytes instead. */
uint64_t trace_bytes_read(const trace_reader *r);
void trace_close(trace_reader *r);

#endif
