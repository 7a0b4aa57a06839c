/* stride.c — the program behind stride.lackey.gz and stride.din.
 *
 * Touches one byte per 4 KiB page of a 256 KiB buffer: one pass of
 * read-modify-writes (lackey "M"), then three passes of loads. With a
 * 16-entry LRU data TLB of 4 KiB pages the 64 pages thrash it; with 64 or
 * more entries only the first pass misses. No libc, so the trace holds
 * nothing but this loop (x86-64 Linux):
 *
 *   gcc -O1 -static -nostdlib -fno-pie -no-pie -fno-stack-protector \
 *       -o stride stride.c
 *   valgrind --tool=lackey --trace-mem=yes --log-file=stride.lackey ./stride
 */
#define PAGE 4096
#define PAGES 64
#define READ_PASSES 3

static volatile char buf[PAGES * PAGE];

void _start(void);

void _start(void) {
  for (int i = 0; i < PAGES; i++) __asm__ volatile("addb $1, %0" : "+m"(buf[i * PAGE]));
  for (int pass = 0; pass < READ_PASSES; pass++)
    for (int i = 0; i < PAGES; i++) (void)buf[i * PAGE];
  __asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall"); /* exit(0) */
}
