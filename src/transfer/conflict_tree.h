// Overlap detection for the segments of an I/O-vector transfer.
//
// An IOV transfer can issue all of its segments as RMA operations in one epoch only if no two of them
// overlap: MPI leaves the outcome of conflicting accesses within an epoch undefined, so overlapping
// vectors have to take a slower, ordered path.  Checking N segments pairwise is O(N^2),
// which is unusable for the large vectors that GA produces, so we keep the already-accepted segments in a
// balanced interval tree and check each new segment in O(log N).

#ifndef ARMCIX_TRANSFER_CONFLICT_TREE_H_
#define ARMCIX_TRANSFER_CONFLICT_TREE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace armcix {

// Detects overlap among closed byte ranges [lo, hi] (hi >= lo; a segment of n bytes at address a is
// [a, a+n-1]).  Closed ranges are used so that a segment ending at the very top of the address space can
// be represented without overflow.
//
// Self-balancing (AVL) tree keyed by lo; insert() merges the overlap check with the insertion so that
// checking N segments costs O(N log N).  Ranges that merely touch (a.hi + 1 == b.lo) do NOT conflict.
//
// Not thread-safe; one tree per checking thread.
class ConflictTree {
 public:
  ConflictTree();
  ~ConflictTree();
  ConflictTree(const ConflictTree&) = delete;
  ConflictTree& operator=(const ConflictTree&) = delete;

  // Inserts [lo, hi] unless it intersects a range already in the tree.  Returns true if inserted, false
  // on conflict; on conflict, *conflict_lo/*conflict_hi (if non-null) receive the stored range it hit
  // (when several stored ranges intersect, which one is unspecified).  On success the outputs are left
  // untouched, and on conflict the tree is left unchanged.  Precondition: lo <= hi.
  bool insert(uintptr_t lo, uintptr_t hi, uintptr_t* conflict_lo = nullptr, uintptr_t* conflict_hi = nullptr);

  // True if [lo, hi] intersects a stored range.  Precondition: lo <= hi.
  bool contains_overlap(uintptr_t lo, uintptr_t hi) const;

  // Removes all ranges but keeps the node storage, so a tree reused across transfers stops allocating.
  void clear();

  std::size_t size() const;

  // Number of nodes on the longest root-to-leaf path (0 when empty, 1 for a single range).
  int height() const;

  // Verifies BST order, AVL balance, stored heights, reachability of every node, and that no two stored
  // ranges overlap.  O(N); meant for tests.
  bool check_invariants() const;

 private:
  // Nodes live in a vector and refer to each other by index: no per-node allocation, the whole tree is
  // freed by clear() in O(1), and 32-bit links keep a node at 32 bytes on LP64.
  using Index = int32_t;
  static constexpr Index kNil = -1;

  struct Node {
    uintptr_t lo;
    uintptr_t hi;
    Index left;
    Index right;
    int32_t height;  // of the subtree rooted here, counting nodes; a leaf has height 1
  };

  Node& node(Index x) { return nodes_[static_cast<std::size_t>(x)]; }
  const Node& node(Index x) const { return nodes_[static_cast<std::size_t>(x)]; }
  Index find_overlap(uintptr_t lo, uintptr_t hi) const;
  int32_t height_of(Index x) const { return x == kNil ? 0 : node(x).height; }
  int32_t balance_of(Index x) const { return height_of(node(x).left) - height_of(node(x).right); }
  void update_height(Index x);
  Index rotate_left(Index x);
  Index rotate_right(Index x);
  Index rebalance(Index x);
  int check_subtree(Index x, int depth, std::size_t* visited, const Node** prev) const;

  std::vector<Node> nodes_;
  Index root_ = kNil;
};

// Convenience: true if any two of the n segments (each `bytes` long, starting at ptrs[i]) overlap.
// Zero-length segments (bytes <= 0) never conflict.  On overlap, *second (if non-null) receives the
// smallest index whose segment overlaps an earlier one and *first (if non-null) an earlier index it
// overlaps, so first < second; with no overlap both are set to -1.  A segment that would extend past the
// top of the address space is truncated there.
bool segments_overlap(void* const* ptrs, int n, int bytes, int* first = nullptr, int* second = nullptr);

}  // namespace armcix

#endif  // ARMCIX_TRANSFER_CONFLICT_TREE_H_
