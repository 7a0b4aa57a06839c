/* ktrace_op.c — opcode strings: interned once per reader, with the class
 * and access width Accel-Sim gives them (traces/FORMAT.md, "Opcodes").
 *
 * Class: the opcode's first token (before the first '.'), looked up in the
 * memory opcodes of Accel-Sim's ISA tables (gpu-simulator/ISA_Def/ARCH_opcode.h)
 * as its trace_driven.cc treats them; every other opcode, known to those
 * tables or not (Hopper's are not), accesses no memory.
 *
 * Width: Accel-Sim's get_datawidth_from_opcode: the first token of digits
 * ("64" in LDG.E.64) or of U and digits ("U16") gives the width in bits,
 * else 4 bytes. tlbsim also reads S and digits ("S16"), which Accel-Sim
 * takes as the default 4: a signed load reads the bytes of an unsigned one.
 * A width token of another size (".48", ".U4") gives width 0.
 *
 * Integer pipe: the opcode's first token among the integer-pipe opcodes
 * (INTP_OP) of Accel-Sim's ISA_Def/ampere_opcode.h, less IMAD, IMUL and the
 * other multiplies: ptxas issues IMAD.MOV as a move to keep such moves off
 * that pipe (the FMA pipe runs them), and the uniform datapath's U* opcodes
 * are a pipe of their own.
 *
 * L2 only: a token pair .STRONG.GPU or .STRONG.SYS (a load coherent at the
 * GPU or the system, which the L1 cannot hold: the PTX ISA's ld.global.cg
 * caches in L2 only, and volatile loads are coherent at the system).
 */
#include "ktrace_fmt.h"

#include <stdlib.h>
#include <string.h>

const char *const ktrace_class_names[] = {
    [KTRACE_NONE] = "none",
    [KTRACE_GLOBAL_LOAD] = "global_load",
    [KTRACE_GLOBAL_STORE] = "global_store",
    [KTRACE_GLOBAL_ATOMIC] = "global_atomic",
    [KTRACE_SHARED_LOAD] = "shared_load",
    [KTRACE_SHARED_STORE] = "shared_store",
    [KTRACE_SHARED_ATOMIC] = "shared_atomic",
    [KTRACE_LOCAL_LOAD] = "local_load",
    [KTRACE_LOCAL_STORE] = "local_store",
    [KTRACE_CONST_LOAD] = "const_load",
    [KTRACE_TEXTURE] = "texture",
    [KTRACE_GENERIC_LOAD] = "generic_load",
    [KTRACE_GENERIC_STORE] = "generic_store",
    NULL};

typedef struct base_class {
  const char *base;
  ktrace_class cls;
} base_class;

/* The memory opcodes. LDGSTS copies global to shared memory: Accel-Sim
 * models its global load. STSM (sm_90's stmatrix) and REDG (sm_90's name
 * for RED) are not in Accel-Sim's tables, which end at Ampere. */
static const base_class memory_ops[] = {
    {"LD", KTRACE_GENERIC_LOAD},   {"ST", KTRACE_GENERIC_STORE},  {"LDG", KTRACE_GLOBAL_LOAD},
    {"LDGSTS", KTRACE_GLOBAL_LOAD}, {"STG", KTRACE_GLOBAL_STORE}, {"ATOM", KTRACE_GLOBAL_ATOMIC},
    {"ATOMG", KTRACE_GLOBAL_ATOMIC}, {"RED", KTRACE_GLOBAL_ATOMIC}, {"REDG", KTRACE_GLOBAL_ATOMIC},
    {"LDS", KTRACE_SHARED_LOAD},   {"LDSM", KTRACE_SHARED_LOAD},  {"STS", KTRACE_SHARED_STORE},
    {"STSM", KTRACE_SHARED_STORE}, {"ATOMS", KTRACE_SHARED_ATOMIC}, {"LDL", KTRACE_LOCAL_LOAD},
    {"STL", KTRACE_LOCAL_STORE},   {"LDC", KTRACE_CONST_LOAD},    {"TEX", KTRACE_TEXTURE},
    {"TLD", KTRACE_TEXTURE},       {"TLD4", KTRACE_TEXTURE},      {"TMML", KTRACE_TEXTURE},
    {"TXD", KTRACE_TEXTURE},       {"TXQ", KTRACE_TEXTURE},       {"TEXS", KTRACE_TEXTURE},
    {"TLD4S", KTRACE_TEXTURE},     {"TLDS", KTRACE_TEXTURE},      {"SULD", KTRACE_TEXTURE},
    {"SUST", KTRACE_TEXTURE},      {"SUATOM", KTRACE_TEXTURE},    {"SURED", KTRACE_TEXTURE},
    {"SUQUERY", KTRACE_TEXTURE},
};

static ktrace_class class_of(const char *s, size_t len) {
  size_t n = 0;
  while (n < len && s[n] != '.') n++;
  for (size_t i = 0; i < sizeof memory_ops / sizeof memory_ops[0]; i++)
    if (strlen(memory_ops[i].base) == n && !memcmp(memory_ops[i].base, s, n)) return memory_ops[i].cls;
  return KTRACE_NONE;
}

/* The integer pipe's opcodes (above). */
static const char *const int_ops[] = {"BFE",  "BFI",  "BMSK", "BREV", "FLO",  "IABS",    "IADD", "IADD3",
                                      "IADD32I", "ICMP", "IMNMX", "ISCADD", "ISCADD32I", "ISETP", "LEA", "LOP",
                                      "LOP3", "LOP32I", "POPC", "SHF", "SHL", "SHR", "VABSDIFF", "VABSDIFF4"};

static bool int_pipe_of(const char *s, size_t len) {
  size_t n = 0;
  while (n < len && s[n] != '.') n++;
  for (size_t i = 0; i < sizeof int_ops / sizeof int_ops[0]; i++)
    if (strlen(int_ops[i]) == n && !memcmp(int_ops[i], s, n)) return true;
  return false;
}

static bool all_digits(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return false;
  return n > 0;
}

/* The width of s[0, len) in bytes; 0 for a width token of a size no
 * access has. */
static uint8_t width_of(const char *s, size_t len) {
  for (size_t at = 0; at < len;) {
    size_t n = 0;
    while (at + n < len && s[at + n] != '.') n++;
    const char *t = s + at;
    size_t skip = (t[0] == 'U' || t[0] == 'S') ? 1 : 0;
    if (n > skip && all_digits(t + skip, n - skip)) {
      if (n - skip > 3) return 0;
      unsigned bits = 0;
      for (size_t i = skip; i < n; i++) bits = bits * 10 + (unsigned)(t[i] - '0');
      return bits % 8 == 0 && bits >= 8 && bits <= 128 && is_pow2(bits) ? (uint8_t)(bits / 8) : 0;
    }
    at += n + 1;
  }
  return 4;
}

/* Whether s[0, len) holds the tokens tok (".A.B") whole: followed by '.' or its end. */
static bool has_token(const char *s, size_t len, const char *tok) {
  size_t n = strlen(tok);
  for (size_t at = 0; at + n <= len; at++)
    if (!memcmp(s + at, tok, n) && (at + n == len || s[at + n] == '.')) return true;
  return false;
}

static bool opcode_byte(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

int ktrace_optab_init(ktrace_optab *t) {
  t->n = 0;
  t->op = malloc(KTRACE_OPS_MAX * sizeof *t->op);
  t->slot = calloc(KTRACE_OP_SLOTS, sizeof *t->slot);
  return t->op && t->slot ? 0 : -1;
}

void ktrace_optab_free(ktrace_optab *t) {
  free(t->op);
  free(t->slot);
  t->op = NULL;
  t->slot = NULL;
}

int ktrace_optab_find(ktrace_optab *t, const char *s, size_t len, uint32_t hash) {
  if (len == 0 || len >= KTRACE_OP_NAME_MAX) return -1;
  uint32_t i = hash & (KTRACE_OP_SLOTS - 1);
  for (;; i = (i + 1) & (KTRACE_OP_SLOTS - 1)) {
    uint16_t id = t->slot[i];
    if (!id) break;
    const char *name = t->op[id - 1].name;
    if (!memcmp(name, s, len) && name[len] == '\0') return id - 1;
  }
  for (size_t k = 0; k < len; k++)
    if (!opcode_byte((unsigned char)s[k])) return -1;
  if (t->n == KTRACE_OPS_MAX) return -2;
  ktrace_op *op = &t->op[t->n];
  memcpy(op->name, s, len);
  op->name[len] = '\0';
  op->cls = (uint8_t)class_of(s, len);
  op->width = width_of(s, len);
  op->l2_only = has_token(s, len, ".STRONG.GPU") || has_token(s, len, ".STRONG.SYS");
  op->int_pipe = int_pipe_of(s, len);
  t->slot[i] = (uint16_t)++t->n;
  return (int)t->n - 1;
}

int ktrace_optab_intern(ktrace_optab *t, const char *s, size_t len) {
  char padded[KTRACE_OP_NAME_MAX + 16] = {0}; /* ktrace_op_hash reads 16 bytes */
  if (len >= KTRACE_OP_NAME_MAX) return -1;
  memcpy(padded, s, len);
  return ktrace_optab_find(t, s, len, ktrace_op_hash(padded, len));
}

/* Accel-Sim's LOCAL_MEM_SIZE_MAX (gpgpu-sim's abstract_hardware_model.h):
 * the local window a generic address is taken to be in. */
#define LOCAL_WINDOW (UINT64_C(1) << 14)
#define KEPLER_BINARY_VERSION 35

unsigned ktrace_resolve(const ktrace_kernel *k, unsigned cls, const uint64_t *first_addr) {
  if (cls != KTRACE_GENERIC_LOAD && cls != KTRACE_GENERIC_STORE) return cls;
  bool load = cls == KTRACE_GENERIC_LOAD;
  /* Kepler's table maps LD and ST to LDG and STG */
  if (k->binary_version == KEPLER_BINARY_VERSION) return load ? KTRACE_GLOBAL_LOAD : KTRACE_GLOBAL_STORE;
  if (!k->shmem_base || !k->local_base) return load ? KTRACE_SHARED_LOAD : KTRACE_SHARED_STORE;
  if (first_addr) {
    uint64_t a = *first_addr;
    if (a >= k->shmem_base && a < k->local_base) return load ? KTRACE_SHARED_LOAD : KTRACE_SHARED_STORE;
    if (a >= k->local_base && a - k->local_base < LOCAL_WINDOW) return load ? KTRACE_LOCAL_LOAD : KTRACE_LOCAL_STORE;
  }
  return load ? KTRACE_GLOBAL_LOAD : KTRACE_GLOBAL_STORE;
}
