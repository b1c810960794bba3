// The model tester's programs: what a random ARMCI program is (phases of per-thread operation lists between
// collective completion points), how one is generated from a seed, and the reference model that says what
// every get must return and what every slice must hold at the end of a phase.  No MPI and no ARMCI here: the
// same code runs on every rank (each rank generates the whole program and simulates every rank's operations),
// and the unit tests run it on its own.
//
// Why programs are well defined: in each phase every block of every slice has one role (model.cc picks them):
//   RO   read-only: anyone gets it, nobody writes it;
//   OWN  one (rank, thread) puts, swaps and gets it, in its issue order (ARMCI's location consistency: an
//        origin sees its own operations to a location in order);
//   ACC  anyone accumulates it, with the allocation's element type; nobody reads it (accumulates commute);
//   CNT  anyone fetch-and-adds its first word; fetched values are checked against bounds;
//   MX   anyone increments its first element under a mutex (lock, get, put, fence, unlock);
//   DST  the slice's own (rank, thread) lands gets there (gets into ARMCI memory);
// and the phase ends with a completion collective, after which every rank compares its own slices with the
// model.  Values are small integers in every element type, so sums are exact in float and double.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace model {

enum class Elem : uint8_t { I32, I64, F32, F64, C32, C64 };  // = ARMCI_ACC_INT .. ARMCI_ACC_DCP
int elem_bytes(Elem e);
int comp_bytes(Elem e);  // one real component (complex: two per element)
const char* elem_name(Elem e);

// The value of component `i` of a buffer filled under `key` (put and accumulate origins), and of a fresh
// slice (init_key).  A closed formula, written the same way in the C reproducers (emit.cc).
inline int gen_value(uint32_t key, uint64_t i) {
  return static_cast<int>((key * 2654435761u + static_cast<uint32_t>(i) * 40503u) % 97u) - 48;
}
inline uint32_t init_key(int slot_serial, int rank) {
  return static_cast<uint32_t>(slot_serial) * 7919u + static_cast<uint32_t>(rank) * 104729u + 17u;
}
void fill_values(Elem e, uint32_t key, void* buf, std::size_t bytes, std::size_t first_comp = 0);

enum class Role : uint8_t { RO, OWN, ACC, CNT, MX, DST };
const char* role_name(Role r);

enum class Kind : uint8_t {
  Put, Get, Acc,           // contiguous, strided (levels > 0) or vector (segs), by shape
  PutVal, GetVal,          // ARMCI_PutValue* / ARMCI_GetValue* on one element
  FetchAdd, Swap,          // ARMCI_Rmw
  LockedInc,               // lock, get, +1, put, fence, unlock
  LocalRead, LocalWrite,   // ARMCI_Access_begin/end on the origin's own slice, then loads / stores
  Wait, Test, WaitProc, WaitAll, Fence, AllFence,
};
const char* kind_name(Kind k);
enum class Mode : uint8_t { Blocking, NbImplicit, NbExplicit };
enum class Buf : uint8_t { Private, MallocLocal, OwnArmci };  // origin buffer: heap, ARMCI_Malloc_local,
                                                             // the origin's own slice (RO src / DST dst)
enum class Shape : uint8_t { Contig, Strided, Vector };

// One piece of a transfer: origin-buffer offset, target offset (from the slice's base), length in bytes.
struct Chunk {
  long loc, rem, len;
};

struct Op {
  Kind kind = Kind::WaitAll;
  Mode mode = Mode::Blocking;
  Buf buf = Buf::Private;
  Shape shape = Shape::Contig;
  int slot = -1;       // allocation slot (index into Program::slots)
  int target = -1;     // absolute rank (the target of a transfer; the rank of WaitProc / Fence)
  int block = -1;      // block of the target slice
  long base = 0;       // target offset of the transfer's first byte (strided: of the patch)
  // Strided: levels 1..3, count[0] in bytes; strides of the target and of the origin buffer.
  int levels = 0;
  int count[4] = {0, 0, 0, 0};
  int rstride[3] = {0, 0, 0};
  int lstride[3] = {0, 0, 0};
  // Vector: segments of seg_bytes each (origin offset, target offset), split into niov descriptors.
  int seg_bytes = 0;
  int niov = 1;
  std::vector<long> seg_loc, seg_rem;
  long local_extent = 0;  // bytes of the origin buffer
  // Origin in ARMCI memory: slot and block of the origin's own slice, and the offset there.
  int own_slot = -1, own_block = -1;
  long own_base = 0;
  int scale_re = 1, scale_im = 0;
  int value = 0;   // PutVal value, FetchAdd increment, Swap value
  int mutex = -1;  // LockedInc
  int ref = -1;    // Wait / Test: the index (in its thread's list) of the operation whose handle it waits
  uint32_t key = 0;  // data of this operation (gen_value)
  bool keep = true;  // false: dropped by the shrinker
};

// A group of ranks the program allocates on (created once, before the first phase).
struct GroupSpec {
  std::vector<int> members;  // absolute ranks, in group-rank order
};

struct Slot {
  int serial = 0;             // order of creation (init_key)
  Elem elem = Elem::F64;
  int group = -1;             // -1: world, else index into Program::groups
  std::vector<long> bytes;    // per absolute rank (0 for non-members and empty slices)
  int alloc_phase = 0, free_phase = 1 << 30;  // live in [alloc_phase, free_phase)
  int alloc_thread = 0;       // the thread that allocates and frees it (parallel group allocations)
  bool group_freed_early = false;
  bool member(int r) const { return bytes[static_cast<std::size_t>(r)] >= 0; }
};

struct Phase {
  std::vector<int> allocs, frees;  // slots allocated / freed at the phase's start (collective, in order)
  bool parallel_alloc = false;     // threads allocate and free their slots concurrently, one group each
  std::vector<int> group_frees;    // groups freed at the phase's start (after frees)
  // roles[slot][rank][block] and the (rank, thread) owning OWN and DST blocks, the thread of MX blocks
  std::vector<std::vector<std::vector<Role>>> roles;
  std::vector<std::vector<std::vector<int>>> owner;  // rank * nthreads + thread
  std::vector<std::vector<std::vector<Op>>> ops;     // [rank][thread]
  int end = 0;          // 0: WaitAll + ARMCI_Barrier; 1: AllFence + armci_msg_barrier; 2: AllFence + MPI_Barrier;
                        // 3, 4 (compatibility only): WaitAll + armci_msg_barrier / MPI_Barrier, no fence
  int collective = 0;   // 0: none; 1: igop; 2: lgop; 3: dgop; 4: bcast
  int coll_root = 0;
  // Threaded programs: the last thread of each rank puts a flag to the next rank and polls its own until the
  // previous rank's arrives, while thread 0 calls ARMCI_Barrier -- at once on even ranks, after its own rank's
  // flag arrived on odd ones (a barrier that stops the other threads of its process deadlocks here).
  bool signal = false;
};

struct Config {
  uint64_t seed = 1;
  int nranks = 2;
  int nthreads = 1;
  int phases = 12;
  int ops = 24;           // operations per thread and phase, at most
  int max_slots = 4;
  int nmutex = 4;
  long max_bytes = 1 << 20;  // largest slice
  bool compat_barrier = false;      // end 3: ARMCI-MPI's "a blocking put is visible after armci_msg_barrier"
  bool compat_mpi_barrier = false;  // end 4: the same after MPI_Barrier (not promised: doc/user-guide.md)
  bool group_free_early = false;  // free a group while allocations on it live (ARMCI_Group_free first)
  bool parallel_groups = false;   // threads allocate on their own groups concurrently (nthreads > 1)
  bool no_groups = false;         // allocations on the world only (ARMCI-MPI 0.3.1's ARMCI_Fence(p) asserts
                                  // that p is in every allocation's group)
  bool ga_strides = false;        // every stride a multiple of the one below (as GA's; ARMCI-MPI needs it)
};

struct Program {
  Config cfg;
  std::vector<GroupSpec> groups;
  std::vector<Slot> slots;
  std::vector<Phase> phases;
  // Blocks of a slice: nblocks(slot, rank) of block_bytes(slot, rank) each, from the slice's start.
  int nblocks(int slot, int rank) const;
  long block_bytes(int slot, int rank) const;
  long block_start(int slot, int rank, int block) const { return block * block_bytes(slot, rank); }
};

Program generate(const Config& cfg);

// The chunks of a transfer, in the order the origin buffer lays them out.
std::vector<Chunk> chunks_of(const Op& op);
bool is_transfer(Kind k);
bool is_completion(Kind k);
bool reads_remote(Kind k);  // Get, GetVal (results checked)
std::string describe(const Program& p, int phase, int rank, int thread, int index);

// The reference model.  Shadow memory: slice bytes per slot and absolute rank.
struct Shadow {
  std::vector<std::vector<std::vector<unsigned char>>> mem;  // [slot][rank]
};
// What an operation of (rank, thread) must see, filled by simulate_phase for the simulating rank's ops.
struct Expect {
  std::vector<unsigned char> bytes;  // Get: the chunks' bytes, in chunk order; GetVal / Swap / LocalRead: value
  long lo = 0, hi = 0;               // FetchAdd / LockedInc: bounds of the fetched value
};
// Applies phase `ph` to `s` (the slots allocated at its start must be initialised already: init_slots)
// and returns, for rank `me`, the expectation of each of its operations ([thread][index]).
std::vector<std::vector<Expect>> simulate_phase(const Program& p, int ph, Shadow& s, int me);
long load_value(Elem e, const unsigned char* q);  // an element's (first component's) value
void store_value(Elem e, unsigned char* q, long v);
void init_slots(const Program& p, int ph, Shadow& s);  // allocations of phase ph, as each rank fills them
void apply_acc(Elem e, int scale_re, int scale_im, unsigned char* dst, const unsigned char* src, long bytes);

}  // namespace model
