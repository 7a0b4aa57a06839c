/* The page-table tree. One descent loop (descend) serves map, unmap,
 * protect, lookup and walk; the format's level table is the only thing that
 * differs between architectures.
 *
 * A table variant is a (level, effective shift) pair: every level has its own
 * shift as variant 0, plus one variant per leaf of that level larger than its
 * smallest page (Hopper's 64K-PT). Variant tables other than 0 hold leaves
 * only, since the way to deeper levels goes through variant 0.
 *
 * Host memory: a node of up to 2^PT_DENSE_BITS entries (every built-in
 * format's) holds them in arrays indexed directly, allocated on its first
 * leaf or child. A wider one (a configuration's [format.NAME] may index 24
 * bits a level: 128 MiB an array) keeps only the entries ever set, in a
 * hash table of cells, so host memory follows the entries used, not the
 * simulated table size. A host allocation that fails is PT_MAP_NO_HOST_MEMORY,
 * never the simulated memory's exhaustion. */
#include "tlbsim/pt.h"

#include <stdlib.h>
#include <string.h>

#define PTE_VALID UINT64_C(1)
#define PTE_PROT_SHIFT 1 /* prot sits below the frame address, which pages >= 16 B leave free */
#define PT_DENSE_BITS 13 /* the widest node held in arrays: ARM64's 64 KiB granule (13 bits), 64 KiB each */
#define PT_MAX_VARS (PT_MAX_LEAVES + 1)

struct pt_node;

/* One entry of a wide node: its leaf word and child slots. */
typedef struct pt_cell {
  uint32_t key; /* the entry's index + 1; 0: an empty cell */
  uint64_t pte;
  struct pt_node *child[PT_MAX_VARS];
} pt_cell;

typedef struct pt_node {
  uint64_t pa;            /* simulated address: walks name the entries they read by it */
  uint64_t *pte;          /* dense: leaf words pa | prot << 1 | valid; NULL until the first leaf */
  struct pt_node **child; /* dense: entries x nvar[level + 1] slots; NULL until the first child */
  pt_cell *cell;          /* wide: open addressing by index, linear probing; NULL until the first entry */
  uint32_t cap, ncells;   /* wide: cells (a power of two) and those in use */
  uint32_t used;          /* leaves + child pointers: at 0 a non-root node goes */
  uint8_t level;
  uint8_t var;   /* which of its parent entry's slots holds it */
  uint8_t shift; /* effective index shift and bits: leaves here map 2^shift bytes */
  uint8_t bits;
} pt_node;

struct pt {
  const pt_format *f;
  pt_node *root;
  uint64_t next_pa; /* bump allocator for node addresses; never reused, so runs are deterministic */
  pt_table_frames frames; /* or nodes take pages of simulated memory from here (take set) */
  uint64_t mapped;
  uint8_t nvar[PT_MAX_LEVELS + 1];                     /* variants per level; 0 below the last */
  uint8_t var_shift[PT_MAX_LEVELS][PT_MAX_LEAVES + 1]; /* [0] is the level's own shift */
  pt_level_usage use[PT_MAX_LEVELS];
};

/* The path of one descent: the node read at each depth and its entry. */
typedef struct cursor {
  unsigned depth;
  pt_node *node[PT_MAX_LEVELS];
  uint32_t index[PT_MAX_LEVELS];
} cursor;

static uint32_t node_index(const pt_node *n, uint64_t va) {
  return (uint32_t)(va >> n->shift) & ((UINT32_C(1) << n->bits) - 1);
}

static uint64_t node_bytes(const pt *t, const pt_node *n) {
  return (uint64_t)t->f->level[n->level].entry_bytes << n->bits;
}

/* --- entry storage: dense arrays, or a wide node's cells ------------------ */

static bool is_wide(const pt_node *n) { return n->bits > PT_DENSE_BITS; }

static size_t cell_home(uint32_t i, uint32_t cap) { return (size_t)((i * UINT32_C(0x9e3779b1)) & (cap - 1)); }

/* The cell of entry i of a wide node, or NULL when it has none. */
static pt_cell *cell_find(const pt_node *n, uint32_t i) {
  if (!n->cell) return NULL;
  for (size_t c = cell_home(i, n->cap);; c = (c + 1) & (n->cap - 1)) {
    if (n->cell[c].key == i + 1) return &n->cell[c];
    if (!n->cell[c].key) return NULL;
  }
}

static pt_cell *cell_put(pt_cell *cells, uint32_t cap, uint32_t i) {
  size_t c = cell_home(i, cap);
  while (cells[c].key) c = (c + 1) & (cap - 1);
  cells[c].key = i + 1;
  return &cells[c];
}

/* The cell of entry i, made (empty) if need be; NULL: no host memory. */
static pt_cell *cell_get(pt_node *n, uint32_t i) {
  pt_cell *c = cell_find(n, i);
  if (c) return c;
  if ((n->ncells + 1) * 2 > n->cap) { /* at most half full: probes stay short */
    uint32_t cap = n->cap ? n->cap * 2 : 8;
    pt_cell *grown = calloc(cap, sizeof *grown);
    if (!grown) return NULL;
    for (uint32_t k = 0; k < n->cap; k++)
      if (n->cell[k].key) *cell_put(grown, cap, n->cell[k].key - 1) = n->cell[k];
    free(n->cell);
    n->cell = grown;
    n->cap = cap;
  }
  n->ncells++;
  return cell_put(n->cell, n->cap, i);
}

/* Drops entry i's cell once it holds nothing, closing the probe gap behind
 * it (backward shift), so a node's cells follow its entries in use. */
static void cell_tidy(const pt *t, pt_node *n, uint32_t i) {
  pt_cell *c = is_wide(n) ? cell_find(n, i) : NULL;
  if (!c || c->pte) return;
  for (unsigned v = 0; v < t->nvar[n->level + 1]; v++)
    if (c->child[v]) return;
  size_t hole = (size_t)(c - n->cell), mask = n->cap - 1;
  for (size_t k = (hole + 1) & mask; n->cell[k].key; k = (k + 1) & mask) {
    size_t home = cell_home(n->cell[k].key - 1, n->cap);
    if (((k - home) & mask) >= ((k - hole) & mask)) { /* its home is at or before the hole */
      n->cell[hole] = n->cell[k];
      hole = k;
    }
  }
  n->cell[hole] = (pt_cell){0};
  n->ncells--;
}

/* Entry i's leaf word, or NULL when the node holds none there. */
static uint64_t *leaf_at(const pt_node *n, uint32_t i) {
  if (!is_wide(n)) return n->pte ? &n->pte[i] : NULL;
  pt_cell *c = cell_find(n, i);
  return c ? &c->pte : NULL;
}

static bool is_leaf(const pt_node *n, uint32_t i) {
  const uint64_t *w = leaf_at(n, i);
  return w && (*w & PTE_VALID);
}

/* The child slots of entry i, or NULL when there are none. */
static pt_node **slots(const pt *t, const pt_node *n, uint32_t i) {
  if (!is_wide(n)) return n->child ? &n->child[(size_t)i * t->nvar[n->level + 1]] : NULL;
  pt_cell *c = cell_find(n, i);
  return c ? c->child : NULL;
}

/* The same, made if need be (for a new child or leaf); NULL: no host memory. */
static pt_node **slots_make(const pt *t, pt_node *n, uint32_t i) {
  if (is_wide(n)) {
    pt_cell *c = cell_get(n, i);
    return c ? c->child : NULL;
  }
  if (!n->child && !(n->child = calloc((size_t)t->nvar[n->level + 1] << n->bits, sizeof *n->child))) return NULL;
  return &n->child[(size_t)i * t->nvar[n->level + 1]];
}

static uint64_t *leaf_make(pt_node *n, uint32_t i) {
  if (is_wide(n)) {
    pt_cell *c = cell_get(n, i);
    return c ? &c->pte : NULL;
  }
  if (!n->pte && !(n->pte = calloc((size_t)1 << n->bits, sizeof *n->pte))) return NULL;
  return &n->pte[i];
}

static bool entry_present(const pt *t, const pt_node *n, uint32_t i) {
  if (is_leaf(n, i)) return true;
  pt_node **s = slots(t, n, i);
  for (unsigned v = 0; s && v < t->nvar[n->level + 1]; v++)
    if (s[v]) return true;
  return false;
}

static unsigned var_of(const pt *t, unsigned level, unsigned shift) {
  unsigned v = 0;
  while (t->var_shift[level][v] != shift) v++;
  return v;
}

/* The child of entry i to follow toward va. With page_shift 0 it is the one
 * holding va's leaf, else variant 0, else any; otherwise the one on the way
 * to a 2^page_shift leaf at leaf_level. */
static pt_node *next_node(const pt *t, const pt_node *n, uint32_t i, uint64_t va,
                          unsigned page_shift, unsigned leaf_level) {
  pt_node **s = slots(t, n, i);
  if (!s) return NULL;
  unsigned below = n->level + 1u;
  if (page_shift) return s[below == leaf_level ? var_of(t, below, page_shift) : 0];
  pt_node *any = s[0];
  for (unsigned v = 1; v < t->nvar[below]; v++)
    if (s[v]) {
      if (is_leaf(s[v], node_index(s[v], va))) return s[v];
      if (!any) any = s[v];
    }
  return any;
}

/* The walker loop: from the root toward va, stopping at a leaf, an empty
 * entry, or (when page_shift is set) the node at that leaf's level. */
static void descend(const pt *t, uint64_t va, unsigned page_shift, cursor *c) {
  unsigned leaf_level = page_shift ? (unsigned)pt_format_leaf_level(t->f, page_shift) : 0;
  pt_node *n = t->root;
  c->depth = 0;
  while (n) {
    uint32_t i = node_index(n, va);
    c->node[c->depth] = n;
    c->index[c->depth++] = i;
    if ((page_shift && n->level == leaf_level) || is_leaf(n, i)) return;
    n = next_node(t, n, i, va, page_shift, leaf_level);
  }
}

/* A new node in *out: 0, PT_MAP_NO_TABLE_MEMORY (its frames' memory is
 * full) or PT_MAP_NO_HOST_MEMORY. */
static int node_new(pt *t, unsigned level, unsigned var, pt_node **out) {
  pt_node *n = *out = calloc(1, sizeof *n);
  if (!n) return PT_MAP_NO_HOST_MEMORY;
  const pt_level_format *l = &t->f->level[level];
  n->level = (uint8_t)level;
  n->var = (uint8_t)var;
  n->shift = t->var_shift[level][var];
  n->bits = (uint8_t)(l->shift + l->bits - n->shift);
  uint64_t bytes = node_bytes(t, n);
  if (t->frames.take) {
    int rc = t->frames.take(t->frames.ctx, bytes, &n->pa);
    if (rc) {
      free(n);
      *out = NULL;
      return rc == PT_TAKE_NO_HOST_MEMORY ? PT_MAP_NO_HOST_MEMORY : PT_MAP_NO_TABLE_MEMORY;
    }
  } else {
    n->pa = (t->next_pa + bytes - 1) & ~(bytes - 1); /* bytes is a power of two */
    t->next_pa = n->pa + bytes;
  }
  pt_level_usage *u = &t->use[level];
  u->tables++;
  u->bytes += bytes;
  if (u->tables > u->tables_peak) u->tables_peak = u->tables;
  if (u->bytes > u->bytes_peak) u->bytes_peak = u->bytes;
  return 0;
}

static void node_free(pt *t, pt_node *n) {
  pt_level_usage *u = &t->use[n->level];
  u->tables--;
  u->bytes -= node_bytes(t, n);
  if (t->frames.give) t->frames.give(t->frames.ctx, n->pa, node_bytes(t, n));
  free(n->pte);
  free(n->child);
  free(n->cell);
  free(n);
}

/* Frees the nodes at the bottom of the path that hold nothing, upward. */
static void prune(pt *t, const cursor *c) {
  for (unsigned d = c->depth - 1; d > 0 && c->node[d]->used == 0; d--) {
    pt_node *parent = c->node[d - 1];
    slots(t, parent, c->index[d - 1])[c->node[d]->var] = NULL;
    parent->used--;
    node_free(t, c->node[d]);
    cell_tidy(t, parent, c->index[d - 1]);
  }
}

/* Hangs a new variant-`var` table under entry i of n, in *out: 0 or why
 * not (node_new's codes). */
static int attach(pt *t, pt_node *n, uint32_t i, unsigned var, pt_node **out) {
  pt_node **s = slots_make(t, n, i);
  if (!s) return PT_MAP_NO_HOST_MEMORY;
  int rc = node_new(t, n->level + 1u, var, out);
  if (rc) {
    cell_tidy(t, n, i);
    return rc;
  }
  s[var] = *out;
  n->used++;
  return 0;
}

pt *pt_create(const pt_format *f) { return pt_create_in(f, NULL); }

pt *pt_create_in(const pt_format *f, const pt_table_frames *frames) {
  if (pt_format_check(f, NULL) < 0) return NULL;
  pt *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->f = f;
  if (frames) t->frames = *frames;
  t->next_pa = PT_TABLE_PA_BASE;
  for (unsigned l = 0; l < f->nlevels; l++) {
    t->var_shift[l][0] = f->level[l].shift;
    t->nvar[l] = 1;
  }
  for (unsigned i = 0; i < f->nleaves; i++) {
    const pt_leaf_format *lf = &f->leaf[i];
    if (lf->page_shift != f->level[lf->level].shift)
      t->var_shift[lf->level][t->nvar[lf->level]++] = lf->page_shift;
  }
  if (node_new(t, 0, 0, &t->root)) {
    free(t);
    return NULL;
  }
  return t;
}

static void free_subtree(pt *t, pt_node *n) {
  unsigned nv = t->nvar[n->level + 1];
  size_t nslots = n->child ? (size_t)nv << n->bits : 0;
  for (size_t s = 0; s < nslots; s++)
    if (n->child[s]) free_subtree(t, n->child[s]);
  for (uint32_t c = 0; n->cell && c < n->cap; c++)
    for (unsigned v = 0; n->cell[c].key && v < nv; v++)
      if (n->cell[c].child[v]) free_subtree(t, n->cell[c].child[v]);
  node_free(t, n);
}

void pt_destroy(pt *t) {
  if (!t) return;
  free_subtree(t, t->root);
  free(t);
}

const pt_format *pt_get_format(const pt *t) { return t->f; }

static uint64_t leaf_word(uint64_t pa, unsigned prot) {
  return pa | (uint64_t)prot << PTE_PROT_SHIFT | PTE_VALID;
}

/* Whether any entry of the tables beside `var` under entry i of n covers
 * [va, va + 2^page_shift): the other half of a dual entry. */
static bool siblings_overlap(const pt *t, const pt_node *n, uint32_t i, unsigned var, uint64_t va,
                             unsigned page_shift) {
  pt_node **s = slots(t, n, i);
  for (unsigned v = 0; s && v < t->nvar[n->level + 1]; v++) {
    const pt_node *sib = s[v];
    if (v == var || !sib) continue;
    uint32_t first = node_index(sib, va);
    uint32_t count = sib->shift < page_shift ? UINT32_C(1) << (page_shift - sib->shift) : 1;
    for (uint32_t k = 0; k < count; k++)
      if (entry_present(t, sib, first + k)) return true;
  }
  return false;
}

static int check_map(const pt *t, uint64_t va, uint64_t pa, unsigned page_shift, unsigned prot,
                     diag *d) {
  const pt_format *f = t->f;
  char buf[32];
  if (pt_format_leaf_level(f, page_shift) < 0)
    return diag_set(d, NULL, 0, "format %s has no %s pages", f->name,
                    num_format_size(page_shift < 64 ? UINT64_C(1) << page_shift : 0, buf, sizeof buf));
  uint64_t mask = (UINT64_C(1) << page_shift) - 1;
  num_format_size(mask + 1, buf, sizeof buf);
  if (va & mask)
    return diag_set(d, NULL, 0, "va 0x%llx is not aligned to its %s page", (unsigned long long)va,
                    buf);
  if (pa & mask)
    return diag_set(d, NULL, 0, "pa 0x%llx is not aligned to its %s page", (unsigned long long)pa,
                    buf);
  if (!pt_format_va_ok(f, va))
    return diag_set(d, NULL, 0, "va 0x%llx is beyond the %u-bit address space of %s%s", (unsigned long long)va,
                    f->va_bits, f->name, f->sign_extend ? " (not canonical)" : "");
  if (prot & ~(unsigned)PT_RWX)
    return diag_set(d, NULL, 0, "protection 0x%x is not a combination of R, W and X", prot);
  return 0;
}

/* Whether the path to a new 2^page_shift leaf at va meets anything mapped. */
static bool path_overlaps(const pt *t, const cursor *c, uint64_t va, unsigned page_shift,
                          unsigned leaf_level) {
  const pt_node *last = c->node[c->depth - 1];
  uint32_t li = c->index[c->depth - 1];
  if (is_leaf(last, li)) return true; /* a page at or above leaf_level covers va */
  if (last->level == leaf_level && entry_present(t, last, li)) return true; /* smaller pages */
  for (unsigned d = 0; d < c->depth && c->node[d]->level < leaf_level; d++) {
    unsigned below = c->node[d]->level + 1u;
    unsigned var = below == leaf_level ? var_of(t, below, page_shift) : 0;
    if (siblings_overlap(t, c->node[d], c->index[d], var, va, page_shift)) return true;
  }
  return false;
}

int pt_map(pt *t, uint64_t va, uint64_t pa, unsigned page_shift, unsigned prot, diag *d) {
  if (check_map(t, va, pa, page_shift, prot, d) < 0) return -1;
  unsigned leaf_level = (unsigned)pt_format_leaf_level(t->f, page_shift);
  cursor c;
  descend(t, va, page_shift, &c);
  if (path_overlaps(t, &c, va, page_shift, leaf_level)) {
    char buf[32];
    return diag_set(d, NULL, 0, "va 0x%llx (%s page) overlaps a page already mapped",
                    (unsigned long long)va, num_format_size(UINT64_C(1) << page_shift, buf, sizeof buf));
  }
  pt_node *n = c.node[c.depth - 1];
  int rc = 0;
  while (!rc && n->level < leaf_level) {
    unsigned below = n->level + 1u;
    rc = attach(t, n, c.index[c.depth - 1], below == leaf_level ? var_of(t, below, page_shift) : 0, &n);
    if (rc) break;
    c.node[c.depth] = n;
    c.index[c.depth++] = node_index(n, va);
  }
  uint64_t *leaf = rc ? NULL : leaf_make(n, c.index[c.depth - 1]);
  if (!leaf) {
    prune(t, &c);
    rc = rc ? rc : PT_MAP_NO_HOST_MEMORY;
    diag_set(d, NULL, 0, rc == PT_MAP_NO_HOST_MEMORY ? "out of host memory for page-table nodes"
                                                     : "out of memory for page-table nodes");
    return rc;
  }
  *leaf = leaf_word(pa, prot);
  n->used++;
  t->mapped++;
  return 0;
}

/* The leaf holding va, as the cursor's last entry, or NULL. */
static uint64_t *find_leaf(const pt *t, uint64_t va, cursor *c) {
  if (!pt_format_va_ok(t->f, va)) return NULL;
  descend(t, va, 0, c);
  pt_node *n = c->node[c->depth - 1];
  uint32_t i = c->index[c->depth - 1];
  return is_leaf(n, i) ? leaf_at(n, i) : NULL;
}

static void leaf_mapping(const pt_node *n, uint64_t word, uint64_t va, pt_mapping *out) {
  uint64_t mask = (UINT64_C(1) << n->shift) - 1;
  out->va = va & ~mask;
  out->pa = word & ~mask;
  out->page_shift = n->shift;
  out->prot = (uint8_t)((word >> PTE_PROT_SHIFT) & PT_RWX);
}

int pt_unmap(pt *t, uint64_t va, pt_mapping *old) {
  cursor c;
  uint64_t *leaf = find_leaf(t, va, &c);
  if (!leaf) return -1;
  pt_node *n = c.node[c.depth - 1];
  if (old) leaf_mapping(n, *leaf, va, old);
  *leaf = 0;
  n->used--;
  t->mapped--;
  cell_tidy(t, n, c.index[c.depth - 1]);
  prune(t, &c);
  return 0;
}

int pt_protect(pt *t, uint64_t va, unsigned prot) {
  cursor c;
  uint64_t *leaf = find_leaf(t, va, &c);
  if (!leaf || (prot & ~(unsigned)PT_RWX)) return -1;
  uint64_t prot_bits = (uint64_t)PT_RWX << PTE_PROT_SHIFT;
  *leaf = (*leaf & ~prot_bits) | (uint64_t)prot << PTE_PROT_SHIFT;
  return 0;
}

bool pt_lookup(const pt *t, uint64_t va, pt_mapping *out) {
  cursor c;
  const uint64_t *leaf = find_leaf(t, va, &c);
  if (leaf && out) leaf_mapping(c.node[c.depth - 1], *leaf, va, out);
  return leaf != NULL;
}

void pt_walk_va(const pt *t, uint64_t va, pt_walk *out) {
  out->nsteps = 0;
  out->mapped = false;
  if (!pt_format_va_ok(t->f, va)) return;
  cursor c;
  descend(t, va, 0, &c);
  for (unsigned d = 0; d < c.depth; d++) {
    const pt_node *n = c.node[d];
    pt_step *s = &out->step[d];
    s->level = n->level;
    s->index = c.index[d];
    s->table_pa = n->pa;
    s->entry_pa = n->pa + (uint64_t)s->index * t->f->level[n->level].entry_bytes;
    s->leaf = is_leaf(n, s->index);
    s->present = d + 1 < c.depth || entry_present(t, n, s->index);
  }
  out->nsteps = (uint8_t)c.depth;
  const pt_node *last = c.node[c.depth - 1];
  out->mapped = out->step[c.depth - 1].leaf;
  if (out->mapped) leaf_mapping(last, *leaf_at(last, c.index[c.depth - 1]), va, &out->map);
}

pt_level_usage pt_usage(const pt *t, unsigned level) {
  pt_level_usage none = {0, 0, 0, 0};
  return level < t->f->nlevels ? t->use[level] : none;
}

uint64_t pt_total_bytes(const pt *t) {
  uint64_t sum = 0;
  for (unsigned l = 0; l < t->f->nlevels; l++) sum += t->use[l].bytes;
  return sum;
}

uint64_t pt_mapped_pages(const pt *t) { return t->mapped; }

/* --- entry words, as explain and dump show them ---------------------------- */

/* The entry word of entry i of n; `follow` (may be NULL) is the child a walk
 * takes under it, else the first child present is shown. */
static uint64_t entry_word(const pt *t, const pt_node *n, uint32_t i, const pt_node *follow) {
  if (is_leaf(n, i)) {
    uint64_t w = *leaf_at(n, i), mask = (UINT64_C(1) << n->shift) - 1;
    uint64_t prot = (w >> PTE_PROT_SHIFT) & PT_RWX;
    return ((w & ~mask) & PT_ENTRY_ADDR_MASK) | PT_ENTRY_V | prot * PT_ENTRY_R | PT_ENTRY_L |
           (uint64_t)n->var << PT_ENTRY_SIZE_SHIFT;
  }
  pt_node **s = slots(t, n, i);
  const pt_node *c = follow;
  for (unsigned v = 0; !c && s && v < t->nvar[n->level + 1]; v++) c = s[v];
  return c ? (c->pa & PT_ENTRY_ADDR_MASK) | PT_ENTRY_V : 0;
}

int pt_entry_decode(const pt_format *f, unsigned level, uint64_t raw, pt_entry *out, diag *d) {
  *out = (pt_entry){.raw = raw};
  if (level >= f->nlevels) return diag_set(d, NULL, 0, "format %s has no level %u", f->name, level);
  if (raw == 0) return 0;
  if (!(raw & PT_ENTRY_V))
    return diag_set(d, NULL, 0, "entry 0x%llx has bits set but not V (bit 56)", (unsigned long long)raw);
  out->valid = true;
  out->addr = raw & PT_ENTRY_ADDR_MASK;
  unsigned size = (unsigned)(raw >> PT_ENTRY_SIZE_SHIFT);
  if (!(raw & PT_ENTRY_L)) {
    if (raw & (PT_ENTRY_R | PT_ENTRY_W | PT_ENTRY_X | (UINT64_C(7) << PT_ENTRY_SIZE_SHIFT)))
      return diag_set(d, NULL, 0, "table entry 0x%llx has leaf bits set", (unsigned long long)raw);
    if (level + 1u >= f->nlevels)
      return diag_set(d, NULL, 0, "entry 0x%llx points to a table below %s, the last level",
                      (unsigned long long)raw, f->level[level].name);
    return 0;
  }
  out->leaf = true;
  out->prot = (uint8_t)((raw / PT_ENTRY_R) & PT_RWX);
  /* Size k: the level's own shift, or the k-th larger leaf listed at the level. */
  unsigned shift = f->level[level].shift, k = 0;
  bool found = size == 0;
  for (unsigned i = 0; !found && i < f->nleaves; i++)
    if (f->leaf[i].level == level && f->leaf[i].page_shift != shift && ++k == size) {
      shift = f->leaf[i].page_shift;
      found = true;
    }
  if (!found || pt_format_leaf_level(f, shift) != (int)level)
    return diag_set(d, NULL, 0, "entry 0x%llx: %s has no leaf of size %u", (unsigned long long)raw,
                    f->level[level].name, size);
  out->page_shift = (uint8_t)shift;
  if (out->addr & ((UINT64_C(1) << shift) - 1))
    return diag_set(d, NULL, 0, "entry 0x%llx: frame address not aligned to its page", (unsigned long long)raw);
  out->frame = out->addr >> shift;
  return 0;
}

unsigned pt_walk_raw(const pt *t, uint64_t va, uint64_t raw[PT_MAX_LEVELS]) {
  if (!pt_format_va_ok(t->f, va)) return 0;
  cursor c;
  descend(t, va, 0, &c);
  for (unsigned d = 0; d < c.depth; d++)
    raw[d] = entry_word(t, c.node[d], c.index[d], d + 1 < c.depth ? c.node[d + 1] : NULL);
  return c.depth;
}

/* The entries in use of n, in index order (a dense node's by a scan, a wide
 * one's by sorting its cells). */
static int by_index(const void *a, const void *b) {
  uint32_t x = ((const pt_table_entry *)a)->index, y = ((const pt_table_entry *)b)->index;
  return (x > y) - (x < y);
}

typedef struct entry_buf {
  pt_table_entry *e;
  size_t cap;
} entry_buf;

/* n's valid entries into buf: their count, or -1 when out of host memory. */
static long valid_entries(const pt *t, const pt_node *n, entry_buf *buf) {
  size_t most = is_wide(n) ? n->ncells : (size_t)1 << n->bits, k = 0;
  if (most > buf->cap || !buf->e) { /* never NULL after: qsort and memcpy take it with k = 0 too */
    pt_table_entry *grown = realloc(buf->e, (most ? most : 1) * sizeof *grown);
    if (!grown) return -1;
    buf->e = grown;
    buf->cap = most;
  }
  if (!is_wide(n)) {
    for (uint32_t i = 0; i < (UINT32_C(1) << n->bits); i++)
      if (entry_present(t, n, i)) buf->e[k++] = (pt_table_entry){i, entry_word(t, n, i, NULL)};
    return (long)k;
  }
  for (uint32_t c = 0; c < n->cap; c++) {
    uint32_t i = n->cell[c].key - 1;
    if (n->cell[c].key && entry_present(t, n, i)) buf->e[k++] = (pt_table_entry){i, entry_word(t, n, i, NULL)};
  }
  qsort(buf->e, k, sizeof *buf->e, by_index);
  return (long)k;
}

/* Calls fn for every node at `level` of the subtree of n (which covers VA
 * from base), in VA order: 0, or -1 when out of host memory. */
static int each_at(const pt *t, const pt_node *n, uint64_t base, unsigned level, entry_buf *buf, pt_table_fn fn,
                   void *ctx) {
  long k = n->level == level || is_wide(n) ? valid_entries(t, n, buf) : 0;
  if (k < 0) return -1;
  if (n->level == level) {
    fn(ctx, level, pt_format_va_canonical(t->f, base), n->pa, UINT32_C(1) << n->bits, buf->e, (uint32_t)k);
    return 0;
  }
  unsigned nv = t->nvar[n->level + 1];
  if (is_wide(n)) { /* the entries in order, copied: the recursion reuses buf */
    pt_table_entry *order = malloc((size_t)(k ? k : 1) * sizeof *order);
    if (!order) return -1;
    memcpy(order, buf->e, (size_t)k * sizeof *order);
    int rc = 0;
    for (long j = 0; !rc && j < k; j++) {
      pt_node **s = slots(t, n, order[j].index);
      for (unsigned v = 0; !rc && s && v < nv; v++)
        if (s[v]) rc = each_at(t, s[v], base + ((uint64_t)order[j].index << n->shift), level, buf, fn, ctx);
    }
    free(order);
    return rc;
  }
  for (uint32_t i = 0; n->child && i < (UINT32_C(1) << n->bits); i++)
    for (unsigned v = 0; v < nv; v++)
      if (n->child[(size_t)i * nv + v] &&
          each_at(t, n->child[(size_t)i * nv + v], base + ((uint64_t)i << n->shift), level, buf, fn, ctx))
        return -1;
  return 0;
}

int pt_each_table(const pt *t, pt_table_fn fn, void *ctx) {
  entry_buf buf = {0};
  int rc = 0;
  for (unsigned l = 0; !rc && l < t->f->nlevels; l++) rc = each_at(t, t->root, 0, l, &buf, fn, ctx);
  free(buf.e);
  return rc;
}
