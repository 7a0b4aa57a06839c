/* Oracle workload: a naive transpose of a 512x512 double matrix (each column
 * walk touches a new page every 8 elements), with read-modify-writes. */
#include <stdlib.h>

#define N 512

int main(void) {
  double *a = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N * N);
  if (!a || !b) return 1;
  for (unsigned i = 0; i < N * N; i++) a[i] = i;
  for (unsigned i = 0; i < N; i++)
    for (unsigned j = 0; j < N; j++) b[j * N + i] = a[i * N + j];
  for (unsigned i = 0; i < N; i += 3) b[i] += a[i * N];
  int r = b[N + 1] > 1e9;
  free(a);
  free(b);
  return r;
}
