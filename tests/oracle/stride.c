/* Oracle workload: strided sweeps over 32 MiB, including 8-byte reads that
 * straddle page boundaries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BYTES (32u << 20)

int main(void) {
  unsigned char *buf = malloc(BYTES);
  if (!buf) return 1;
  uint64_t sum = 0;
  for (unsigned stride = 4096; stride <= (1u << 20); stride *= 4)
    for (int pass = 0; pass < 3; pass++)
      for (unsigned off = 0; off < BYTES; off += stride) buf[off] = (unsigned char)(off + (unsigned)pass);
  for (unsigned off = 4092; off + 8 < BYTES; off += 4096 * 7) {
    uint64_t v;
    memcpy(&v, buf + off, sizeof v); /* crosses into the next page */
    sum += v;
  }
  free(buf);
  return (int)(sum & 1);
}
