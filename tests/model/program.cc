// The generator and the reference model of the model tester (program.h says why the programs are defined).
#include "program.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace model {

int elem_bytes(Elem e) {
  static const int b[] = {4, 8, 4, 8, 8, 16};
  return b[static_cast<int>(e)];
}
int comp_bytes(Elem e) {
  static const int b[] = {4, 8, 4, 8, 4, 8};
  return b[static_cast<int>(e)];
}
const char* elem_name(Elem e) {
  static const char* n[] = {"int", "long", "float", "double", "complex", "dcomplex"};
  return n[static_cast<int>(e)];
}
const char* role_name(Role r) {
  static const char* n[] = {"RO", "OWN", "ACC", "CNT", "MX", "DST"};
  return n[static_cast<int>(r)];
}
const char* kind_name(Kind k) {
  static const char* n[] = {"Put",        "Get",       "Acc",  "PutValue", "GetValue", "FetchAdd",
                            "Swap",       "LockedInc", "LocalRead", "LocalWrite", "Wait", "Test",
                            "WaitProc",   "WaitAll",   "Fence", "AllFence"};
  return n[static_cast<int>(k)];
}
bool is_transfer(Kind k) {
  return k == Kind::Put || k == Kind::Get || k == Kind::Acc;
}
bool is_completion(Kind k) {
  return k >= Kind::Wait;
}
bool reads_remote(Kind k) {
  return k == Kind::Get || k == Kind::GetVal;
}

void fill_values(Elem e, uint32_t key, void* buf, std::size_t bytes, std::size_t first) {
  const std::size_t n = bytes / static_cast<std::size_t>(comp_bytes(e));
  for (std::size_t i = 0; i < n; ++i) {
    const int v = gen_value(key, first + i);
    switch (e) {
      case Elem::I32: static_cast<int32_t*>(buf)[i] = v; break;
      case Elem::I64: static_cast<int64_t*>(buf)[i] = v; break;
      case Elem::F32:
      case Elem::C32: static_cast<float*>(buf)[i] = static_cast<float>(v); break;
      case Elem::F64:
      case Elem::C64: static_cast<double*>(buf)[i] = v; break;
    }
  }
}

template <class T>
static void acc_real(T s, unsigned char* d, const unsigned char* x, long n) {
  for (long i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, d + i * static_cast<long>(sizeof(T)), sizeof(T));
    std::memcpy(&b, x + i * static_cast<long>(sizeof(T)), sizeof(T));
    a = static_cast<T>(a + s * b);
    std::memcpy(d + i * static_cast<long>(sizeof(T)), &a, sizeof(T));
  }
}
template <class T>
static void acc_complex(T sr, T si, unsigned char* d, const unsigned char* x, long n) {
  for (long i = 0; i < n; ++i) {
    T a[2], b[2];
    std::memcpy(a, d + i * 2 * static_cast<long>(sizeof(T)), sizeof a);
    std::memcpy(b, x + i * 2 * static_cast<long>(sizeof(T)), sizeof b);
    a[0] = a[0] + (sr * b[0] - si * b[1]);
    a[1] = a[1] + (sr * b[1] + si * b[0]);
    std::memcpy(d + i * 2 * static_cast<long>(sizeof(T)), a, sizeof a);
  }
}
void apply_acc(Elem e, int sr, int si, unsigned char* d, const unsigned char* x, long bytes) {
  const long n = bytes / elem_bytes(e);
  switch (e) {
    case Elem::I32: acc_real<int32_t>(sr, d, x, n); break;
    case Elem::I64: acc_real<int64_t>(sr, d, x, n); break;
    case Elem::F32: acc_real<float>(static_cast<float>(sr), d, x, n); break;
    case Elem::F64: acc_real<double>(sr, d, x, n); break;
    case Elem::C32: acc_complex<float>(static_cast<float>(sr), static_cast<float>(si), d, x, n); break;
    case Elem::C64: acc_complex<double>(sr, si, d, x, n); break;
  }
}

int Program::nblocks(int slot, int rank) const {
  const long b = slots[static_cast<std::size_t>(slot)].bytes[static_cast<std::size_t>(rank)];
  if (b <= 0) return 0;
  // 2 to 8 blocks by slot: large blocks give transfers of a pool block's size, small ones many roles.
  const long want = 2 + slots[static_cast<std::size_t>(slot)].serial % 7;
  return static_cast<int>(std::max<long>(1, std::min<long>(want, b / 64)));
}
long Program::block_bytes(int slot, int rank) const {
  const Slot& s = slots[static_cast<std::size_t>(slot)];
  const long b = s.bytes[static_cast<std::size_t>(rank)];
  const int n = nblocks(slot, rank);
  if (n == 0) return 0;
  const long eb = elem_bytes(s.elem);
  return b / n / eb * eb;
}

std::vector<Chunk> chunks_of(const Op& op) {
  std::vector<Chunk> out;
  if (op.shape == Shape::Vector) {
    for (std::size_t i = 0; i < op.seg_loc.size(); ++i) out.push_back({op.seg_loc[i], op.seg_rem[i], op.seg_bytes});
    return out;
  }
  if (op.shape == Shape::Contig || op.levels == 0) {
    out.push_back({0, op.base, op.count[0]});
    return out;
  }
  int idx[4] = {0, 0, 0, 0};
  for (;;) {
    long l = 0, r = op.base;
    for (int k = 1; k <= op.levels; ++k) {
      l += static_cast<long>(idx[k]) * op.lstride[k - 1];
      r += static_cast<long>(idx[k]) * op.rstride[k - 1];
    }
    out.push_back({l, r, op.count[0]});
    int k = 1;
    while (k <= op.levels && ++idx[k] == op.count[k]) idx[k++] = 0;
    if (k > op.levels) break;
  }
  return out;
}

namespace {

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  long range(long lo, long hi) { return lo + static_cast<long>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  bool chance(int percent) { return range(0, 99) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<std::size_t>(range(0, static_cast<long>(v.size()) - 1))]; }
};

long size_class(Rng& rng, long max_bytes) {
  const int c = static_cast<int>(rng.range(0, 99));
  long lo = 64, hi = 512;                                  // tiny
  if (c >= 30) lo = 4096, hi = 65536;                      // pool-sized
  if (c >= 75) lo = 256 * 1024, hi = 1024 * 1024;          // several pool segments
  if (c >= 97) lo = 2 * 1024 * 1024, hi = 4 * 1024 * 1024;  // large
  hi = std::min(hi, max_bytes);
  lo = std::min(lo, hi);
  return rng.range(lo, hi) / 16 * 16;
}

struct Gen {
  const Config& cfg;
  Program& p;
  Rng rng;
  int nth() const { return cfg.nthreads; }

  int new_slot(int ph, int group, int thread) {
    Slot s;
    s.serial = static_cast<int>(p.slots.size());
    s.elem = static_cast<Elem>(rng.range(0, 5));
    s.group = group;
    s.alloc_phase = ph;
    s.alloc_thread = thread;
    s.bytes.assign(static_cast<std::size_t>(cfg.nranks), -1);
    const std::vector<int>* members = nullptr;
    std::vector<int> all;
    for (int r = 0; r < cfg.nranks; ++r) all.push_back(r);
    members = group < 0 ? &all : &p.groups[static_cast<std::size_t>(group)].members;
    const long uniform = size_class(rng, cfg.max_bytes);
    const bool differ = rng.chance(25);
    for (int r : *members) {
      long b = uniform;
      if (differ) b = rng.chance(15) ? 0 : size_class(rng, cfg.max_bytes);
      s.bytes[static_cast<std::size_t>(r)] = b;
    }
    p.slots.push_back(s);
    return s.serial;
  }

  std::vector<int> live(int ph) const {
    std::vector<int> v;
    for (const Slot& s : p.slots)
      if (s.alloc_phase <= ph && ph < s.free_phase) v.push_back(s.serial);
    return v;
  }

  void events(int ph) {
    Phase& f = p.phases[static_cast<std::size_t>(ph)];
    if (ph == 0) {
      for (int i = 0; i < 3; ++i) f.allocs.push_back(new_slot(0, i == 2 && !cfg.no_groups ? 0 : -1, 0));
      return;
    }
    if (cfg.parallel_groups && nth() > 1 && rng.chance(25)) {
      // Each thread frees its slot of an earlier parallel allocation and allocates a new one, concurrently.
      f.parallel_alloc = true;
      for (int t = 0; t < nth(); ++t) {
        for (const Slot& s : p.slots)
          if (s.alloc_thread == t && t > 0 && s.free_phase > ph && s.alloc_phase < ph) {
            p.slots[static_cast<std::size_t>(s.serial)].free_phase = ph;
            f.frees.push_back(s.serial);
            break;
          }
        f.allocs.push_back(new_slot(ph, static_cast<int>(p.groups.size()) - nth() + t, t));
      }
      return;
    }
    std::vector<int> l = live(ph);
    if (!l.empty() && rng.chance(30)) {
      const int s = rng.pick(l);
      if (p.slots[static_cast<std::size_t>(s)].alloc_thread == 0) {
        p.slots[static_cast<std::size_t>(s)].free_phase = ph;
        f.frees.push_back(s);
      }
    }
    if (static_cast<int>(live(ph).size()) < cfg.max_slots && rng.chance(40)) {
      const int ng = static_cast<int>(p.groups.size()) - (cfg.parallel_groups && nth() > 1 ? nth() : 0);
      int group = ng > 0 && !cfg.no_groups && rng.chance(30) ? static_cast<int>(rng.range(0, ng - 1)) : -1;
      for (const Phase& q : p.phases)
        if (std::count(q.group_frees.begin(), q.group_frees.end(), group)) group = -1;  // freed: the world
      f.allocs.push_back(new_slot(ph, group, 0));
    }
  }

  void roles(int ph) {
    Phase& f = p.phases[static_cast<std::size_t>(ph)];
    f.roles.resize(p.slots.size());
    f.owner.resize(p.slots.size());
    for (int s : live(ph)) {
      const Slot& sl = p.slots[static_cast<std::size_t>(s)];
      std::vector<int> members;
      for (int r = 0; r < cfg.nranks; ++r)
        if (sl.member(r)) members.push_back(r);
      f.roles[static_cast<std::size_t>(s)].resize(static_cast<std::size_t>(cfg.nranks));
      f.owner[static_cast<std::size_t>(s)].resize(static_cast<std::size_t>(cfg.nranks));
      const bool ints = sl.elem == Elem::I32 || sl.elem == Elem::I64;
      for (int r : members) {
        const int nb = p.nblocks(s, r);
        auto& ro = f.roles[static_cast<std::size_t>(s)][static_cast<std::size_t>(r)];
        auto& ow = f.owner[static_cast<std::size_t>(s)][static_cast<std::size_t>(r)];
        ro.assign(static_cast<std::size_t>(nb), Role::RO);
        ow.assign(static_cast<std::size_t>(nb), -1);
        for (int b = 0; b < nb; ++b) {
          const int c = static_cast<int>(rng.range(0, 99));
          Role role = c < 30 ? Role::RO : c < 60 ? Role::OWN : c < 75 ? Role::ACC : c < 85 ? Role::DST : c < 92 ? Role::MX : Role::CNT;
          if (role == Role::CNT && !ints) role = Role::ACC;
          int who = -1;
          if (role == Role::OWN) who = static_cast<int>(rng.pick(members) * nth() + rng.range(0, nth() - 1));
          if (role == Role::DST) who = static_cast<int>(r * nth() + rng.range(0, nth() - 1));
          if (role == Role::MX) who = static_cast<int>(rng.range(0, nth() - 1));
          ro[static_cast<std::size_t>(b)] = role;
          ow[static_cast<std::size_t>(b)] = who;
        }
      }
    }
  }

  struct Target {
    int slot, rank, block;
  };
  // Blocks that (me, t) may use for `role` (OWN, DST: its own; MX: its thread index; others: any), on slots
  // it is a member of; `own_slice`: only on its own slice.
  std::vector<Target> blocks(int ph, int me, int t, Role role, bool own_slice) const {
    const Phase& f = p.phases[static_cast<std::size_t>(ph)];
    std::vector<Target> v;
    for (int s : live(ph)) {
      const Slot& sl = p.slots[static_cast<std::size_t>(s)];
      if (!sl.member(me)) continue;
      if (sl.group_freed_early) continue;
      for (int r = 0; r < cfg.nranks; ++r) {
        if (!sl.member(r) || (own_slice && r != me)) continue;
        const auto& ro = f.roles[static_cast<std::size_t>(s)][static_cast<std::size_t>(r)];
        for (std::size_t b = 0; b < ro.size(); ++b) {
          if (ro[b] != role) continue;
          const int who = f.owner[static_cast<std::size_t>(s)][static_cast<std::size_t>(r)][b];
          if ((role == Role::OWN || role == Role::DST) && who != me * nth() + t) continue;
          if (role == Role::MX && who != t) continue;
          v.push_back({s, r, static_cast<int>(b)});
        }
      }
    }
    return v;
  }

  // A shape for a transfer into [0, room) of a block with element size eb: contiguous, strided or vector.
  void shape(Op& op, long room, long eb, bool allow_shapes) {
    const long elems = room / eb;
    const int c = static_cast<int>(rng.range(0, 99));
    if (!allow_shapes || c < 45 || elems < 4) {
      long n = rng.chance(20) ? elems : rng.range(1, std::min<long>(elems, rng.chance(50) ? 8 : 4096));
      op.shape = Shape::Contig;
      op.count[0] = static_cast<int>(n * eb);
      op.base = rng.range(0, elems - n) * eb;
      op.local_extent = op.count[0];
      return;
    }
    if (c < 80) {  // strided
      for (int tries = 0; tries < 8; ++tries) {
        op.shape = Shape::Strided;
        op.levels = static_cast<int>(rng.range(1, 3));
        op.count[0] = static_cast<int>(rng.range(1, 16) * eb);
        // Strides as GA makes them (each a multiple of the one below: an array's leading dimensions), or,
        // unless --ga-strides, any that do not overlap (ARMCI allows them; ARMCI-MPI assumes GA's).
        const bool ga = cfg.ga_strides || rng.chance(60);
        long rs = op.count[0], ls = op.count[0];
        for (int k = 1; k <= op.levels; ++k) {
          op.count[k] = static_cast<int>(rng.range(1, k == 1 ? 8 : 3));
          if (ga && k > 1) {
            op.rstride[k - 1] = static_cast<int>(op.rstride[k - 2] * (op.count[k - 1] + rng.range(0, 2)));
            op.lstride[k - 1] = static_cast<int>(op.lstride[k - 2] * (op.count[k - 1] + rng.range(0, 1)));
          } else {
            op.rstride[k - 1] = static_cast<int>(rs + rng.range(0, 3) * eb);
            op.lstride[k - 1] = static_cast<int>(ls + rng.range(0, 2) * eb);
          }
          rs = static_cast<long>(op.rstride[k - 1]) * op.count[k];
          ls = static_cast<long>(op.lstride[k - 1]) * op.count[k];
        }
        if (rs <= room) {
          op.base = rng.range(0, (room - rs) / eb) * eb;
          op.local_extent = ls;
          return;
        }
      }
      op.levels = 0;
      op.shape = Shape::Contig;
      op.count[0] = static_cast<int>(eb);
      op.base = 0;
      op.local_extent = eb;
      return;
    }
    // vector: segments in distinct places of the block and of the origin buffer
    op.shape = Shape::Vector;
    op.seg_bytes = static_cast<int>(rng.range(1, std::min<long>(8, elems / 2)) * eb);
    const long places = room / op.seg_bytes;
    const int n = static_cast<int>(rng.range(1, std::min<long>(8, places)));
    std::vector<long> all;
    for (long i = 0; i < places; ++i) all.push_back(i);
    for (long i = places - 1; i > 0; --i) std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(rng.range(0, i))]);
    long at = 0;
    for (int i = 0; i < n; ++i) {
      op.seg_rem.push_back(all[static_cast<std::size_t>(i)] * op.seg_bytes);
      op.seg_loc.push_back(at);
      at += op.seg_bytes + (rng.chance(50) ? eb : 0);
    }
    op.local_extent = op.seg_loc.back() + op.seg_bytes;
    op.niov = n > 1 && rng.chance(40) ? 2 : 1;
  }

  Op transfer(int ph, int me, int t, Kind kind, const Target& tg) {
    Op op;
    op.kind = kind;
    op.slot = tg.slot;
    op.target = tg.rank;
    op.block = tg.block;
    const Slot& sl = p.slots[static_cast<std::size_t>(tg.slot)];
    const long eb = elem_bytes(sl.elem);
    const long start = p.block_start(tg.slot, tg.rank, tg.block);
    const long room = p.block_bytes(tg.slot, tg.rank);
    shape(op, room, eb, true);
    if (op.shape != Shape::Vector) op.base += start;
    for (long& r : op.seg_rem) r += start;
    const int m = static_cast<int>(rng.range(0, 99));
    op.mode = m < 45 ? Mode::Blocking : m < 70 ? Mode::NbImplicit : Mode::NbExplicit;
    op.buf = rng.chance(10) ? Buf::MallocLocal : Buf::Private;
    // Origins in ARMCI memory: a get lands in a DST block of mine, a put reads an RO block of my slice.
    if (kind != Kind::Acc && rng.chance(50)) {
      std::vector<Target> own = blocks(ph, me, t, kind == Kind::Get ? Role::DST : Role::RO, true);
      std::vector<Target> fit;
      for (const Target& o : own)
        // The same element type: another type's bit patterns (an int's in a float slot) would make values
        // that later accumulates round, in an order the model cannot know.
        if (p.block_bytes(o.slot, o.rank) >= op.local_extent && p.slots[static_cast<std::size_t>(o.slot)].elem == sl.elem) fit.push_back(o);
      if (!fit.empty()) {
        const Target& o = rng.pick(fit);
        op.buf = Buf::OwnArmci;
        op.own_slot = o.slot;
        op.own_block = o.block;
        const long orm = p.block_bytes(o.slot, o.rank);
        op.own_base = p.block_start(o.slot, o.rank, o.block) + rng.range(0, (orm - op.local_extent) / eb) * eb;
      }
    }
    if (kind == Kind::Acc) {
      op.scale_re = static_cast<int>(rng.pick(std::vector<long>{1, 1, -1, 2, 3}));
      if (sl.elem == Elem::C32 || sl.elem == Elem::C64) op.scale_im = static_cast<int>(rng.range(-1, 1));
    }
    return op;
  }

  Op element_op(Kind kind, const Target& tg) {
    Op op;
    op.kind = kind;
    op.slot = tg.slot;
    op.target = tg.rank;
    op.block = tg.block;
    const long eb = elem_bytes(p.slots[static_cast<std::size_t>(tg.slot)].elem);
    const long room = p.block_bytes(tg.slot, tg.rank) / eb;
    const bool first = kind == Kind::FetchAdd || kind == Kind::LockedInc;
    op.base = p.block_start(tg.slot, tg.rank, tg.block) + (first ? 0 : rng.range(0, room - 1) * eb);
    op.count[0] = static_cast<int>(eb);
    op.value = static_cast<int>(rng.range(-40, 40));
    if (kind == Kind::FetchAdd) op.value = static_cast<int>(rng.range(1, 9));
    if (kind == Kind::LockedInc) op.mutex = (tg.slot * 3 + tg.block) % cfg.nmutex;
    return op;
  }

  void thread_ops(int ph, int me, int t) {
    Phase& f = p.phases[static_cast<std::size_t>(ph)];
    std::vector<Op>& ops = f.ops[static_cast<std::size_t>(me)][static_cast<std::size_t>(t)];
    const int n = static_cast<int>(rng.range(cfg.ops / 3, cfg.ops));
    std::vector<int> explicit_open;  // explicit handles not waited yet
    std::vector<int> touched;
    struct DstUse {
      int slot;
      long lo, hi;
    };
    std::vector<DstUse> dst_used;
    struct Written {
      int slot, rank, block;
      bool local;
    };
    std::vector<Written> written;
    auto rma_written = [&](const Target& tg) {
      for (const Written& w : written)
        if (!w.local && w.slot == tg.slot && w.rank == tg.rank && w.block == tg.block) return true;
      return false;
    };
    for (int i = 0; i < n; ++i) {
      const int c = static_cast<int>(rng.range(0, 99));
      Op op;
      bool made = false;
      auto with = [&](Role role, bool own, auto&& make) {
        std::vector<Target> v = blocks(ph, me, t, role, own);
        if (v.empty()) return;
        op = make(rng.pick(v));
        made = true;
      };
      if (c < 18) with(Role::OWN, false, [&](const Target& tg) { return transfer(ph, me, t, Kind::Put, tg); });
      else if (c < 36) {
        std::vector<Target> v = blocks(ph, me, t, Role::RO, false);
        std::vector<Target> o = blocks(ph, me, t, Role::OWN, false);
        v.insert(v.end(), o.begin(), o.end());
        if (!v.empty()) op = transfer(ph, me, t, Kind::Get, rng.pick(v)), made = true;
      } else if (c < 50) with(Role::ACC, false, [&](const Target& tg) { return transfer(ph, me, t, Kind::Acc, tg); });
      else if (c < 58) {
        const bool put = c < 54;
        std::vector<Target> v = blocks(ph, me, t, put || rng.chance(50) ? Role::OWN : Role::RO, false);
        std::vector<Target> w;
        for (const Target& tg : v) {
          const Elem e = p.slots[static_cast<std::size_t>(tg.slot)].elem;
          if (e != Elem::C32 && e != Elem::C64) w.push_back(tg);
        }
        if (!w.empty()) op = element_op(put ? Kind::PutVal : Kind::GetVal, rng.pick(w)), made = true;
      }
      else if (c < 62) with(Role::CNT, false, [&](const Target& tg) { return element_op(Kind::FetchAdd, tg); });
      else if (c < 65) {
        std::vector<Target> v = blocks(ph, me, t, Role::OWN, false);
        std::vector<Target> w;
        for (const Target& tg : v) {
          const Elem e = p.slots[static_cast<std::size_t>(tg.slot)].elem;
          if (e == Elem::I32 || e == Elem::I64) w.push_back(tg);
        }
        if (!w.empty()) op = element_op(Kind::Swap, rng.pick(w)), made = true;
      } else if (c < 68) with(Role::MX, false, [&](const Target& tg) { return element_op(Kind::LockedInc, tg); });
      else if (c < 71) with(Role::RO, true, [&](const Target& tg) { return element_op(Kind::LocalRead, tg); });
      else if (c < 73) {
        // A local store only to a block this thread has not written by RMA in the phase (ARMCI wants
        // the RMA complete before local access; the model does not track completion that finely).
        std::vector<Target> v = blocks(ph, me, t, Role::OWN, true);
        std::vector<Target> w;
        for (const Target& tg : v)
          if (!rma_written(tg)) w.push_back(tg);
        if (!w.empty()) op = element_op(Kind::LocalWrite, rng.pick(w)), made = true;
      }
      else if (c < 82 && !explicit_open.empty()) {
        op.kind = rng.chance(70) ? Kind::Wait : Kind::Test;
        const std::size_t k = static_cast<std::size_t>(rng.range(0, static_cast<long>(explicit_open.size()) - 1));
        op.ref = explicit_open[k];
        explicit_open.erase(explicit_open.begin() + static_cast<long>(k));
        made = true;
      } else if (c < 88 && !touched.empty()) {
        op.kind = rng.chance(50) ? Kind::WaitProc : Kind::Fence;
        op.target = rng.pick(touched);
        made = true;
      } else if (c < 91) {
        op.kind = rng.chance(60) ? Kind::WaitAll : Kind::AllFence;
        made = true;
      }
      if (!made) continue;
      if (op.kind == Kind::Get && op.buf == Buf::OwnArmci) {
        // Gets into a DST block land in disjoint places within a phase: two gets in flight into one place
        // would land in either order.
        const long lo = op.own_base, hi = op.own_base + op.local_extent;
        bool clash = false;
        for (const DstUse& u : dst_used) clash |= u.slot == op.own_slot && lo < u.hi && u.lo < hi;
        if (clash) op.buf = Buf::Private;
        else dst_used.push_back({op.own_slot, lo, hi});
      }
      if (op.kind == Kind::Put || op.kind == Kind::PutVal || op.kind == Kind::Swap) written.push_back({op.slot, op.target, op.block, false});
      if (op.kind == Kind::LocalWrite) written.push_back({op.slot, op.target, op.block, true});
      op.key = static_cast<uint32_t>(rng.next());
      if (is_transfer(op.kind) || op.kind == Kind::PutVal) touched.push_back(op.target);
      if (op.kind == Kind::PutVal && op.mode == Mode::NbExplicit) op.mode = Mode::Blocking;
      if (op.mode == Mode::NbExplicit) explicit_open.push_back(static_cast<int>(ops.size()));
      ops.push_back(op);
    }
    // Some explicit handles are left to the phase's end (completed by WaitAll / barrier, never waited).
  }
};

}  // namespace

Program generate(const Config& cfg) {
  Program p;
  p.cfg = cfg;
  Gen g{cfg, p, Rng{cfg.seed * 0x2545F4914F6CDD1Dull + 1}};
  // Groups: every rank in reverse order (group ranks differ from absolute ones), the even ranks, the first
  // half; with parallel groups one more group of every rank per thread.
  GroupSpec rev, even, half;
  for (int r = cfg.nranks - 1; r >= 0; --r) rev.members.push_back(r);
  for (int r = 0; r < cfg.nranks; r += 2) even.members.push_back(r);
  for (int r = 0; r < (cfg.nranks + 1) / 2; ++r) half.members.push_back(r);
  p.groups = {rev, even, half};
  // Threads allocate concurrently only on groups whose member lists differ (armci-x refuses the same list,
  // doc/user-guide.md "Threads"): every rank, rotated by t + 1.
  if (cfg.parallel_groups && cfg.nthreads > 1)
    for (int t = 0; t < cfg.nthreads; ++t) {
      GroupSpec g;
      for (int k = 0; k < cfg.nranks; ++k) g.members.push_back((k + t + 1) % cfg.nranks);
      p.groups.push_back(g);
    }
  p.phases.resize(static_cast<std::size_t>(cfg.phases));
  for (int ph = 0; ph < cfg.phases; ++ph) {
    g.events(ph);
    Phase& f = p.phases[static_cast<std::size_t>(ph)];
    if (cfg.group_free_early && ph > 0 && g.rng.chance(15)) {
      // ARMCI_Group_free of the "first half" group while slots on it live: they stay usable until freed
      // (no operations are generated on them afterwards: only their ARMCI_Free_group).
      bool used = false;
      for (const Slot& s : p.slots) used |= s.group == 2 && s.free_phase > ph && s.alloc_phase < ph;
      bool freed = false;
      for (const Phase& q : p.phases) freed |= std::count(q.group_frees.begin(), q.group_frees.end(), 2) > 0;
      bool fresh = false;  // allocated on it at this phase's start, after the group would be freed
      for (const Slot& s : p.slots) fresh |= s.group == 2 && s.alloc_phase == ph;
      if (used && !freed && !fresh) {
        f.group_frees.push_back(2);
        for (Slot& s : p.slots)
          if (s.group == 2 && s.free_phase > ph) s.group_freed_early = true;
      }
    }
    g.roles(ph);
    f.ops.assign(static_cast<std::size_t>(cfg.nranks), std::vector<std::vector<Op>>(static_cast<std::size_t>(cfg.nthreads)));
    for (int r = 0; r < cfg.nranks; ++r)
      for (int t = 0; t < cfg.nthreads; ++t) g.thread_ops(ph, r, t);
    f.signal = cfg.nthreads > 1 && cfg.nranks > 1 && g.rng.chance(50);
    f.end = static_cast<int>(g.rng.range(0, cfg.compat_mpi_barrier ? 4 : cfg.compat_barrier ? 3 : 2));
    f.collective = static_cast<int>(g.rng.range(0, 4));
    f.coll_root = static_cast<int>(g.rng.range(0, cfg.nranks - 1));
  }
  return p;
}

void init_slots(const Program& p, int ph, Shadow& s) {
  s.mem.resize(p.slots.size());
  for (int sl : p.phases[static_cast<std::size_t>(ph)].allocs) {
    const Slot& slot = p.slots[static_cast<std::size_t>(sl)];
    auto& m = s.mem[static_cast<std::size_t>(sl)];
    m.assign(static_cast<std::size_t>(p.cfg.nranks), {});
    for (int r = 0; r < p.cfg.nranks; ++r) {
      const long b = slot.bytes[static_cast<std::size_t>(r)];
      if (b <= 0) continue;
      m[static_cast<std::size_t>(r)].assign(static_cast<std::size_t>(b), 0);
      fill_values(slot.elem, init_key(slot.serial, r), m[static_cast<std::size_t>(r)].data(),
                  static_cast<std::size_t>(b) / comp_bytes(slot.elem) * comp_bytes(slot.elem));
    }
  }
  for (int sl : p.phases[static_cast<std::size_t>(ph)].frees) s.mem[static_cast<std::size_t>(sl)].clear();
}

long load_value(Elem e, const unsigned char* q) {
  if (e == Elem::I32) {
    int32_t v;
    std::memcpy(&v, q, 4);
    return v;
  }
  if (e == Elem::I64) {
    int64_t v;
    std::memcpy(&v, q, 8);
    return v;
  }
  if (e == Elem::F32 || e == Elem::C32) {
    float v;
    std::memcpy(&v, q, 4);
    return static_cast<long>(v);
  }
  double v;
  std::memcpy(&v, q, 8);
  return static_cast<long>(v);
}
void store_value(Elem e, unsigned char* q, long v) {
  switch (e) {
    case Elem::I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(q, &x, 4); break; }
    case Elem::I64: { int64_t x = v; std::memcpy(q, &x, 8); break; }
    case Elem::F32:
    case Elem::C32: { float x = static_cast<float>(v); std::memcpy(q, &x, 4); break; }
    case Elem::F64:
    case Elem::C64: { double x = static_cast<double>(v); std::memcpy(q, &x, 8); break; }
  }
}

std::vector<std::vector<Expect>> simulate_phase(const Program& p, int ph, Shadow& s, int me) {
  const Phase& f = p.phases[static_cast<std::size_t>(ph)];
  std::vector<std::vector<Expect>> mine(static_cast<std::size_t>(p.cfg.nthreads));
  // Bounds for counters: every fetch-and-add and locked increment of the phase, from every rank.
  std::vector<std::vector<std::vector<long>>> total(p.slots.size());
  for (int r = 0; r < p.cfg.nranks; ++r)
    for (const auto& th : f.ops[static_cast<std::size_t>(r)])
      for (const Op& op : th) {
        if (!op.keep || (op.kind != Kind::FetchAdd && op.kind != Kind::LockedInc)) continue;
        auto& t = total[static_cast<std::size_t>(op.slot)];
        t.resize(static_cast<std::size_t>(p.cfg.nranks));
        t[static_cast<std::size_t>(op.target)].resize(8, 0);
        t[static_cast<std::size_t>(op.target)][static_cast<std::size_t>(op.block)] += op.kind == Kind::FetchAdd ? op.value : 1;
      }
  std::vector<unsigned char> start_cnt;  // counters' values at the phase's start, read before any increment
  struct CounterStart {
    int slot, rank, block;
    long v;
  };
  std::vector<CounterStart> starts;
  auto counter_start = [&](const Op& op) {
    for (const CounterStart& c : starts)
      if (c.slot == op.slot && c.rank == op.target && c.block == op.block) return c.v;
    const Elem e = p.slots[static_cast<std::size_t>(op.slot)].elem;
    const long v = load_value(e, s.mem[static_cast<std::size_t>(op.slot)][static_cast<std::size_t>(op.target)].data() + op.base);
    starts.push_back({op.slot, op.target, op.block, v});
    return v;
  };
  for (int r = 0; r < p.cfg.nranks; ++r)
    for (const auto& th : f.ops[static_cast<std::size_t>(r)])
      for (const Op& op : th)
        if (op.keep && (op.kind == Kind::FetchAdd || op.kind == Kind::LockedInc)) counter_start(op);
  for (int r = 0; r < p.cfg.nranks; ++r) {
    for (int t = 0; t < p.cfg.nthreads; ++t) {
      const auto& ops = f.ops[static_cast<std::size_t>(r)][static_cast<std::size_t>(t)];
      std::vector<Expect>* ex = r == me ? &mine[static_cast<std::size_t>(t)] : nullptr;
      if (ex) ex->resize(ops.size());
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        if (!op.keep || is_completion(op.kind)) continue;
        const Elem e = p.slots[static_cast<std::size_t>(op.slot)].elem;
        unsigned char* tgt = s.mem[static_cast<std::size_t>(op.slot)][static_cast<std::size_t>(op.target)].data();
        const long eb = elem_bytes(e);
        switch (op.kind) {
          case Kind::Put: {
            std::vector<unsigned char> src(static_cast<std::size_t>(op.local_extent));
            if (op.buf == Buf::OwnArmci)
              std::memcpy(src.data(), s.mem[static_cast<std::size_t>(op.own_slot)][static_cast<std::size_t>(r)].data() + op.own_base, src.size());
            else
              fill_values(e, op.key, src.data(), src.size());
            for (const Chunk& c : chunks_of(op)) std::memcpy(tgt + c.rem, src.data() + c.loc, static_cast<std::size_t>(c.len));
            break;
          }
          case Kind::Get: {
            std::vector<unsigned char> got;
            for (const Chunk& c : chunks_of(op)) got.insert(got.end(), tgt + c.rem, tgt + c.rem + c.len);
            if (op.buf == Buf::OwnArmci) {
              unsigned char* dst = s.mem[static_cast<std::size_t>(op.own_slot)][static_cast<std::size_t>(r)].data() + op.own_base;
              long at = 0;
              for (const Chunk& c : chunks_of(op)) std::memcpy(dst + c.loc, got.data() + at, static_cast<std::size_t>(c.len)), at += c.len;
            }
            if (ex) (*ex)[i].bytes = std::move(got);
            break;
          }
          case Kind::Acc: {
            std::vector<unsigned char> src(static_cast<std::size_t>(op.local_extent));
            fill_values(e, op.key, src.data(), src.size());
            for (const Chunk& c : chunks_of(op)) apply_acc(e, op.scale_re, op.scale_im, tgt + c.rem, src.data() + c.loc, c.len);
            break;
          }
          case Kind::PutVal:
          case Kind::LocalWrite:
            store_value(e, tgt + op.base, op.value);
            break;
          case Kind::GetVal:
          case Kind::LocalRead:
            if (ex) (*ex)[i].bytes.assign(tgt + op.base, tgt + op.base + eb);
            break;
          case Kind::Swap:
            if (ex) (*ex)[i].bytes.assign(tgt + op.base, tgt + op.base + eb);
            store_value(e, tgt + op.base, op.value);
            break;
          case Kind::FetchAdd:
          case Kind::LockedInc: {
            const long v0 = counter_start(op);
            const long tot = total[static_cast<std::size_t>(op.slot)][static_cast<std::size_t>(op.target)][static_cast<std::size_t>(op.block)];
            if (ex) (*ex)[i].lo = v0, (*ex)[i].hi = v0 + tot - (op.kind == Kind::FetchAdd ? op.value : 1);
            break;
          }
          default:
            break;
        }
      }
    }
  }
  // Counters end at their start plus every increment.
  for (const CounterStart& c : starts) {
    const Elem e = p.slots[static_cast<std::size_t>(c.slot)].elem;
    const long tot = total[static_cast<std::size_t>(c.slot)][static_cast<std::size_t>(c.rank)][static_cast<std::size_t>(c.block)];
    store_value(e, s.mem[static_cast<std::size_t>(c.slot)][static_cast<std::size_t>(c.rank)].data() + p.block_start(c.slot, c.rank, c.block), c.v + tot);
  }
  return mine;
}

std::string describe(const Program& p, int ph, int rank, int thread, int index) {
  const Op& op = p.phases[static_cast<std::size_t>(ph)].ops[static_cast<std::size_t>(rank)][static_cast<std::size_t>(thread)][static_cast<std::size_t>(index)];
  char b[512];
  static const char* modes[] = {"blocking", "nb implicit", "nb explicit"};
  static const char* bufs[] = {"heap", "ARMCI_Malloc_local", "own ARMCI memory"};
  static const char* shapes[] = {"contiguous", "strided", "vector"};
  if (is_completion(op.kind)) {
    std::snprintf(b, sizeof b, "%s%s", kind_name(op.kind),
                  op.kind == Kind::Wait || op.kind == Kind::Test ? (" of op #" + std::to_string(op.ref)).c_str()
                  : op.target >= 0 ? ("(" + std::to_string(op.target) + ")").c_str() : "");
    return b;
  }
  const Slot& s = p.slots[static_cast<std::size_t>(op.slot)];
  std::snprintf(b, sizeof b, "%s %s %s %s, slot %d (%s, %ld B at rank %d, %s block %d), target offset %ld, %ld B, origin %s",
                modes[static_cast<int>(op.mode)], shapes[static_cast<int>(op.shape)], kind_name(op.kind), elem_name(s.elem),
                op.slot, s.group < 0 ? "world" : ("group " + std::to_string(s.group)).c_str(), s.bytes[static_cast<std::size_t>(op.target)],
                op.target, role_name(p.phases[static_cast<std::size_t>(ph)].roles[static_cast<std::size_t>(op.slot)][static_cast<std::size_t>(op.target)][static_cast<std::size_t>(op.block)]),
                op.block, op.base, op.local_extent, bufs[static_cast<int>(op.buf)]);
  return b;
}

}  // namespace model
