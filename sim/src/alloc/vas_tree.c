/* An augmented AVL tree with parent pointers: in-order neighbours for the
 * allocators' scans, subtree-maximum weights for first fit. Rebalancing
 * walks to the root every time, which also refreshes the maxima. */
#include "vas_tree.h"

static int key_cmp(const uint64_t a[3], const uint64_t b[3]) {
  for (int i = 0; i < 3; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

static int height(const vtree_node *n) { return n ? n->height : 0; }
static uint64_t max_weight(const vtree_node *n) { return n ? n->max_weight : 0; }

static void update(vtree_node *n) {
  int hl = height(n->left), hr = height(n->right);
  n->height = 1 + (hl > hr ? hl : hr);
  uint64_t m = n->weight;
  if (max_weight(n->left) > m) m = max_weight(n->left);
  if (max_weight(n->right) > m) m = max_weight(n->right);
  n->max_weight = m;
}

static void replace_child(vtree *t, vtree_node *parent, vtree_node *old, vtree_node *repl) {
  if (!parent) t->root = repl;
  else if (parent->left == old) parent->left = repl;
  else parent->right = repl;
  if (repl) repl->parent = parent;
}

static vtree_node *rotate_left(vtree *t, vtree_node *x) {
  vtree_node *y = x->right;
  x->right = y->left;
  if (y->left) y->left->parent = x;
  replace_child(t, x->parent, x, y);
  y->left = x;
  x->parent = y;
  update(x);
  update(y);
  return y;
}

static vtree_node *rotate_right(vtree *t, vtree_node *x) {
  vtree_node *y = x->left;
  x->left = y->right;
  if (y->right) y->right->parent = x;
  replace_child(t, x->parent, x, y);
  y->right = x;
  x->parent = y;
  update(x);
  update(y);
  return y;
}

/* Restores the AVL balance at n; returns the subtree's new root. */
static vtree_node *balance(vtree *t, vtree_node *n) {
  update(n);
  int b = height(n->left) - height(n->right);
  if (b > 1) {
    if (height(n->left->left) < height(n->left->right)) rotate_left(t, n->left);
    return rotate_right(t, n);
  }
  if (b < -1) {
    if (height(n->right->right) < height(n->right->left)) rotate_right(t, n->right);
    return rotate_left(t, n);
  }
  return n;
}

static void rebalance_up(vtree *t, vtree_node *n) {
  while (n) n = balance(t, n)->parent;
}

void vtree_insert(vtree *t, vtree_node *n) {
  vtree_node *p = NULL, **link = &t->root;
  while (*link) {
    p = *link;
    link = key_cmp(n->key, p->key) < 0 ? &p->left : &p->right;
  }
  n->left = n->right = NULL;
  n->parent = p;
  n->height = 1;
  n->max_weight = n->weight;
  *link = n;
  t->count++;
  rebalance_up(t, p);
}

void vtree_remove(vtree *t, vtree_node *n) {
  vtree_node *start;
  if (n->left && n->right) {
    /* The successor s (leftmost of the right subtree) takes n's place. */
    vtree_node *s = n->right;
    while (s->left) s = s->left;
    if (s->parent == n) {
      start = s;
    } else {
      start = s->parent;
      start->left = s->right;
      if (s->right) s->right->parent = start;
      s->right = n->right;
      n->right->parent = s;
    }
    s->left = n->left;
    n->left->parent = s;
    replace_child(t, n->parent, n, s);
  } else {
    start = n->parent;
    replace_child(t, n->parent, n, n->left ? n->left : n->right);
  }
  n->left = n->right = n->parent = NULL;
  t->count--;
  rebalance_up(t, start);
}

void vtree_set_weight(vtree_node *n, uint64_t weight) {
  n->weight = weight;
  for (; n; n = n->parent) update(n);
}

static vtree_node *leftmost(vtree_node *n) {
  while (n && n->left) n = n->left;
  return n;
}

static vtree_node *rightmost(vtree_node *n) {
  while (n && n->right) n = n->right;
  return n;
}

vtree_node *vtree_first(const vtree *t) { return leftmost(t->root); }
vtree_node *vtree_last(const vtree *t) { return rightmost(t->root); }

vtree_node *vtree_next(const vtree_node *n) {
  if (n->right) return leftmost(n->right);
  while (n->parent && n->parent->right == n) n = n->parent;
  return n->parent;
}

vtree_node *vtree_prev(const vtree_node *n) {
  if (n->left) return rightmost(n->left);
  while (n->parent && n->parent->left == n) n = n->parent;
  return n->parent;
}

vtree_node *vtree_lower_bound(const vtree *t, const uint64_t key[3]) {
  vtree_node *best = NULL, *n = t->root;
  while (n) {
    if (key_cmp(n->key, key) >= 0) {
      best = n;
      n = n->left;
    } else {
      n = n->right;
    }
  }
  return best;
}

vtree_node *vtree_find(const vtree *t, const uint64_t key[3]) {
  vtree_node *n = vtree_lower_bound(t, key);
  return n && key_cmp(n->key, key) == 0 ? n : NULL;
}

/* Leftmost node of subtree n with weight >= w. */
static vtree_node *leftmost_fit(vtree_node *n, uint64_t w) {
  while (n && n->max_weight >= w) {
    if (max_weight(n->left) >= w) n = n->left;
    else if (n->weight >= w) return n;
    else n = n->right;
  }
  return NULL;
}

/* Leftmost node of subtree n with key >= from and weight >= w. */
static vtree_node *fit_from(vtree_node *n, const uint64_t from[3], uint64_t w) {
  for (; n && n->max_weight >= w; n = n->right) {
    if (key_cmp(n->key, from) < 0) continue; /* all of n's left is before from */
    vtree_node *r = fit_from(n->left, from, w);
    if (r) return r;
    return n->weight >= w ? n : leftmost_fit(n->right, w);
  }
  return NULL;
}

vtree_node *vtree_first_fit(const vtree *t, const uint64_t from[3], uint64_t min_weight) {
  return from ? fit_from(t->root, from, min_weight) : leftmost_fit(t->root, min_weight);
}

vtree_node *vtree_last_fit(const vtree *t, uint64_t min_weight) {
  vtree_node *n = t->root;
  while (n && n->max_weight >= min_weight) {
    if (max_weight(n->right) >= min_weight) n = n->right;
    else if (n->weight >= min_weight) return n;
    else n = n->left;
  }
  return NULL;
}
