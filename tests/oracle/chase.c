/* Oracle workload: a pointer chase through nodes scattered over 16 MiB in a
 * fixed pseudo-random order (a TLB's worst case). */
#include <stdint.h>
#include <stdlib.h>

#define NODES 4096
#define SPAN (16u << 20)

int main(void) {
  char *arena = malloc(SPAN);
  unsigned *order = malloc(NODES * sizeof *order);
  if (!arena || !order) return 1;
  for (unsigned i = 0; i < NODES; i++) order[i] = i;
  uint32_t x = 12345;
  for (unsigned i = NODES - 1; i > 0; i--) {
    x = x * 1103515245u + 12345u;
    unsigned j = (x >> 8) % (i + 1), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (unsigned i = 0; i < NODES; i++) {
    void **node = (void **)(arena + (size_t)order[i] * (SPAN / NODES));
    *node = arena + (size_t)order[(i + 1) % NODES] * (SPAN / NODES);
  }
  void **p = (void **)(arena + (size_t)order[0] * (SPAN / NODES));
  for (unsigned step = 0; step < 8 * NODES; step++) p = (void **)*p;
  int r = p == NULL;
  free(order);
  free(arena);
  return r;
}
