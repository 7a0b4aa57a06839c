/* vas_tree.h — the ordered set every allocator policy builds on (internal).
 *
 * vtree       an AVL tree of intrusive nodes ordered by a key of up to
 *             three words (compared in order): (addr) for address order,
 *             (size, addr) for best fit, (stream, size, addr) for the
 *             caching allocator's pools. Each node also carries a weight
 *             (a free size) and the tree keeps the largest weight of every
 *             subtree, so "largest free extent" is O(1) and "lowest address
 *             with room for N bytes" (first fit) is O(log n).
 * vtree_node  embedded in the owner's struct; vtree_entry gets the owner.
 *             Keys change only while the node is out of the tree.
 */
#ifndef TLBSIM_VAS_TREE_H
#define TLBSIM_VAS_TREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct vtree_node {
  struct vtree_node *left, *right, *parent;
  uint64_t key[3];
  uint64_t weight, max_weight; /* max_weight: largest weight in this subtree */
  int height;
} vtree_node;

typedef struct vtree {
  vtree_node *root;
  size_t count;
} vtree;

#define vtree_entry(node, type, member) ((type *)(void *)((char *)(node) - offsetof(type, member)))

void vtree_insert(vtree *t, vtree_node *n);
void vtree_remove(vtree *t, vtree_node *n);
/* Changes n's weight in place (its key stays). */
void vtree_set_weight(vtree_node *n, uint64_t weight);

vtree_node *vtree_first(const vtree *t);
vtree_node *vtree_last(const vtree *t);
vtree_node *vtree_next(const vtree_node *n);
vtree_node *vtree_prev(const vtree_node *n);
/* First node whose key is >= key (NULL: none). */
vtree_node *vtree_lower_bound(const vtree *t, const uint64_t key[3]);
/* Exact key match. */
vtree_node *vtree_find(const vtree *t, const uint64_t key[3]);
/* First node in key order with key >= from (from NULL: any) and
 * weight >= min_weight. */
vtree_node *vtree_first_fit(const vtree *t, const uint64_t from[3], uint64_t min_weight);
/* Last node in key order with weight >= min_weight. */
vtree_node *vtree_last_fit(const vtree *t, uint64_t min_weight);
static inline uint64_t vtree_max_weight(const vtree *t) { return t->root ? t->root->max_weight : 0; }

#endif
