#include "conflict_tree.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>

namespace armcix {

namespace {

// An AVL tree with n nodes has height < 1.4405 * log2(n + 2); with at most 2^31 - 1 nodes (the range of
// the 32-bit links) that is below 46, so a fixed array always holds the insertion path.
constexpr int kMaxPath = 64;

// Closed ranges intersect iff neither lies entirely before the other.  Written without "+ 1" so that
// ranges ending at UINTPTR_MAX cannot wrap.
inline bool intersects(uintptr_t lo, uintptr_t hi, uintptr_t other_lo, uintptr_t other_hi) {
  return lo <= other_hi && other_lo <= hi;
}

}  // namespace

ConflictTree::ConflictTree() = default;
ConflictTree::~ConflictTree() = default;

std::size_t ConflictTree::size() const {
  return nodes_.size();
}

int ConflictTree::height() const {
  return height_of(root_);
}

void ConflictTree::clear() {
  // Node is trivially destructible, so this just resets the length; the capacity stays for the next use.
  nodes_.clear();
  root_ = kNil;
}

// Stored ranges are pairwise disjoint, so ordering them by lo also orders them by hi.  A query that does
// not intersect node x therefore lies wholly on one side of it, and every stored range it could hit is in
// that subtree: one root-to-leaf walk suffices, unlike a general interval tree.
ConflictTree::Index ConflictTree::find_overlap(uintptr_t lo, uintptr_t hi) const {
  Index cur = root_;
  while (cur != kNil) {
    const Node& x = node(cur);
    if (intersects(lo, hi, x.lo, x.hi)) return cur;
    cur = (hi < x.lo) ? x.left : x.right;
  }
  return kNil;
}

bool ConflictTree::contains_overlap(uintptr_t lo, uintptr_t hi) const {
  assert(lo <= hi);
  return find_overlap(lo, hi) != kNil;
}

void ConflictTree::update_height(Index x) {
  Node& n = node(x);
  n.height = 1 + std::max(height_of(n.left), height_of(n.right));
}

ConflictTree::Index ConflictTree::rotate_left(Index x) {
  const Index y = node(x).right;
  node(x).right = node(y).left;
  node(y).left = x;
  update_height(x);  // x is now y's child, so it must be updated first
  update_height(y);
  return y;
}

ConflictTree::Index ConflictTree::rotate_right(Index x) {
  const Index y = node(x).left;
  node(x).left = node(y).right;
  node(y).right = x;
  update_height(x);
  update_height(y);
  return y;
}

// Restores the AVL property at x, assuming both subtrees are valid AVL trees whose heights differ by at
// most 2.  Returns the new root of the subtree.
ConflictTree::Index ConflictTree::rebalance(Index x) {
  update_height(x);
  const int32_t bf = balance_of(x);
  if (bf > 1) {
    // Left-right case: first turn it into left-left, so the single right rotation balances it.
    if (balance_of(node(x).left) < 0) node(x).left = rotate_left(node(x).left);
    return rotate_right(x);
  }
  if (bf < -1) {
    if (balance_of(node(x).right) > 0) node(x).right = rotate_right(node(x).right);
    return rotate_left(x);
  }
  return x;
}

// The conflict check and the search for the insertion point are the same walk, so we do it once and
// remember the path; a conflict returns before anything is modified.  Keeping the path explicit (rather
// than recursing) lets the retrace stop as soon as heights stop changing instead of unwinding to the root.
bool ConflictTree::insert(uintptr_t lo, uintptr_t hi, uintptr_t* conflict_lo, uintptr_t* conflict_hi) {
  assert(lo <= hi);

  Index path[kMaxPath];
  int depth = 0;
  Index cur = root_;
  while (cur != kNil) {
    const Node& x = node(cur);
    if (intersects(lo, hi, x.lo, x.hi)) {
      if (conflict_lo) *conflict_lo = x.lo;
      if (conflict_hi) *conflict_hi = x.hi;
      return false;
    }
    assert(depth < kMaxPath);
    path[depth++] = cur;
    cur = (hi < x.lo) ? x.left : x.right;
  }

  if (nodes_.size() >= static_cast<std::size_t>(std::numeric_limits<Index>::max())) {
    throw std::length_error("armcix::ConflictTree: too many ranges");
  }
  const Index fresh = static_cast<Index>(nodes_.size());
  nodes_.push_back(Node{lo, hi, kNil, kNil, 1});  // may reallocate: hold indices, never references

  if (depth == 0) {
    root_ = fresh;
    return true;
  }
  Node& parent = node(path[depth - 1]);
  if (hi < parent.lo) {
    parent.left = fresh;
  } else {
    parent.right = fresh;
  }

  // Retrace towards the root.  Once a subtree's height is unchanged, no ancestor can change either; and
  // an insertion needs at most one (single or double) rotation, after which the rotated subtree is back
  // at its pre-insertion height.  Either way we can stop there.
  for (int i = depth - 1; i >= 0; --i) {
    const Index x = path[i];
    const int32_t old_height = node(x).height;
    const Index sub = rebalance(x);
    if (sub != x) {
      if (i == 0) {
        root_ = sub;
      } else {
        Node& p = node(path[i - 1]);
        if (p.left == x) {
          p.left = sub;
        } else {
          p.right = sub;
        }
      }
      break;
    }
    if (node(x).height == old_height) break;
  }
  return true;
}

// Returns the computed height of the subtree at x, or -1 if any invariant is violated.  *prev is the
// previous node in in-order sequence: requiring prev->hi < x.lo for consecutive nodes checks BST order and
// pairwise disjointness together.  The depth guard keeps a corrupted (cyclic or degenerate) tree from
// overflowing the stack.
int ConflictTree::check_subtree(Index x, int depth, std::size_t* visited, const Node** prev) const {
  if (x == kNil) return 0;
  if (x < 0 || static_cast<std::size_t>(x) >= nodes_.size()) return -1;
  if (depth > kMaxPath || ++*visited > nodes_.size()) return -1;
  const Node& n = node(x);
  if (n.lo > n.hi) return -1;

  const int hl = check_subtree(n.left, depth + 1, visited, prev);
  if (hl < 0) return -1;
  if (*prev != nullptr && !((*prev)->hi < n.lo)) return -1;
  *prev = &n;
  const int hr = check_subtree(n.right, depth + 1, visited, prev);
  if (hr < 0) return -1;

  if (hl - hr > 1 || hr - hl > 1) return -1;
  const int h = 1 + std::max(hl, hr);
  if (n.height != h) return -1;
  return h;
}

bool ConflictTree::check_invariants() const {
  if (root_ == kNil) return nodes_.empty();
  std::size_t visited = 0;
  const Node* prev = nullptr;
  if (check_subtree(root_, 1, &visited, &prev) < 0) return false;
  // Every pooled node must be reachable, otherwise size() would be lying.
  return visited == nodes_.size();
}

bool segments_overlap(void* const* ptrs, int n, int bytes, int* first, int* second) {
  if (first) *first = -1;
  if (second) *second = -1;
  if (bytes <= 0 || n < 2) return false;

  const uintptr_t span = static_cast<uintptr_t>(bytes) - 1;
  const uintptr_t kTop = std::numeric_limits<uintptr_t>::max();
  // Such a segment is not valid memory anyway, but wrapping to a low address would report a bogus
  // conflict (or violate lo <= hi), so clamp.
  auto hi_of = [&](uintptr_t lo) { return lo > kTop - span ? kTop : lo + span; };

  // Fast path, O(n) with no allocation: descriptors from GA and NWChem list their segments in ascending
  // address order, and ascending segments that do not touch their predecessor cannot overlap at all.
  // (10,000 x 8 B: the tree alone cost more than the MPI transfer on the MPI path; doc/performance.md.)
  bool ascending = true;
  for (int i = 1; i < n && ascending; ++i)
    ascending = reinterpret_cast<uintptr_t>(ptrs[i]) > hi_of(reinterpret_cast<uintptr_t>(ptrs[i - 1]));
  if (ascending) return false;

  ConflictTree tree;
  for (int i = 0; i < n; ++i) {
    const uintptr_t lo = reinterpret_cast<uintptr_t>(ptrs[i]);
    uintptr_t hit_lo = 0;
    if (!tree.insert(lo, hi_of(lo), &hit_lo, nullptr)) {
      // The tree stores no payload, to keep nodes small for the common no-conflict case.  Recover the
      // index with a scan instead: everything before i was accepted, so the stored ranges are disjoint and
      // exactly one earlier segment starts at hit_lo.
      if (first) {
        for (int j = 0; j < i; ++j) {
          if (reinterpret_cast<uintptr_t>(ptrs[j]) == hit_lo) {
            *first = j;
            break;
          }
        }
      }
      if (second) *second = i;
      return true;
    }
  }
  return false;
}

}  // namespace armcix
