// The model tester's executor: every rank runs its operations of each phase (one std::thread per program
// thread), checks what its gets, values and fetches return at their completion points, ends the phase with
// its completion collective, and compares its own slices with the model.  Completion points, as ARMCI-MPI
// programs see them: Wait/Test of a handle completes that operation; WaitProc(p) and Fence(p) every
// operation to p; WaitAll, AllFence and the phase's end everything.
#include "run.h"

#include "armci_c.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <mutex>
#include <thread>

namespace model {

namespace {

constexpr unsigned char kJunk = 0xC3;     // fresh get buffers: bytes outside the chunks must stay so
constexpr unsigned char kScribble = 0x5A;  // origin buffers after completion: a late read sends this
constexpr unsigned char kDone = 0x3C;      // get buffers after their check: a late write changes it

std::string hex(const unsigned char* b, long n) {
  std::string s;
  char t[4];
  for (long i = 0; i < n; ++i) std::snprintf(t, sizeof t, "%02x", b[i]), s += t;
  return s;
}

struct Issued {
  int index;
  int target;
  bool explicit_handle;
  std::vector<unsigned char> heap;  // Private origin buffer
  unsigned char* local = nullptr;   // the origin buffer in use
  bool malloc_local = false;
  std::vector<void*> ptrs;          // vector descriptors' pointer arrays (kept until completion)
  std::vector<armci_giov_t> iov;
};

struct Runner;

struct ThreadRun {
  Runner& R;
  int ph, t;
  const std::vector<Op>& ops;
  std::vector<Expect>& ex;
  std::vector<armci_hdl_t> handles;
  std::vector<Issued> open;
  std::vector<Issued> done;  // completed, kept to the phase's end: nothing may write or read them late
  std::vector<int> done_by;
  long checked = 0, run = 0;
  int completing = -1;  // the operation whose completion call is running (-1: the phase's end)
  ThreadRun(Runner& r, int phase, int thread, const std::vector<Op>& o, std::vector<Expect>& e)
      : R(r), ph(phase), t(thread), ops(o), ex(e), handles(o.size()) {}
  void execute();
  void issue(std::size_t i);
  void complete_if(bool (*pred)(const Issued&, int), int arg);
  void finish(Issued& is);
  void check_done();
  void fail(std::size_t i, long off, const unsigned char* want, const unsigned char* got, long n, const char* what);
};

struct Runner {
  const Program& p;
  int me = 0, np = 0;
  std::vector<ARMCI_Group> groups;
  std::vector<std::vector<char*>> bases;  // [slot][absolute rank]
  Shadow shadow;
  std::mutex fail_mu;
  Outcome out;
  long inject = -1;  // self-test: corrupt the inject-th checked get
  std::vector<char*> flags;          // one int per rank (signal phases)
  std::atomic<bool> received{false};
  std::mutex inject_mu;

  explicit Runner(const Program& prog) : p(prog) {
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char* inj = std::getenv("ARMCIX_MODEL_INJECT");
    if (inj && me == 0) inject = std::atol(inj);
  }
  char* addr(int slot, int rank, long off) { return bases[static_cast<std::size_t>(slot)][static_cast<std::size_t>(rank)] + off; }
  const Slot& slot(int s) const { return p.slots[static_cast<std::size_t>(s)]; }
  ARMCI_Group* group_of(int s) { return &groups[static_cast<std::size_t>(slot(s).group)]; }

  void allocate(int s) {
    const Slot& sl = slot(s);
    bases[static_cast<std::size_t>(s)].assign(static_cast<std::size_t>(np), nullptr);
    if (!sl.member(me)) return;
    const long mine = sl.bytes[static_cast<std::size_t>(me)];
    if (sl.group < 0) {
      std::vector<void*> ptrs(static_cast<std::size_t>(np));
      ARMCI_Malloc(ptrs.data(), mine);
      for (int r = 0; r < np; ++r) bases[static_cast<std::size_t>(s)][static_cast<std::size_t>(r)] = static_cast<char*>(ptrs[static_cast<std::size_t>(r)]);
    } else {
      const auto& m = p.groups[static_cast<std::size_t>(sl.group)].members;
      std::vector<void*> ptrs(m.size());
      ARMCI_Malloc_group(ptrs.data(), mine, group_of(s));
      for (std::size_t g = 0; g < m.size(); ++g) bases[static_cast<std::size_t>(s)][static_cast<std::size_t>(m[g])] = static_cast<char*>(ptrs[g]);
    }
    if (mine > 0) {  // this rank fills its slice as init_slots says
      char* b = bases[static_cast<std::size_t>(s)][static_cast<std::size_t>(me)];
      ARMCI_Access_begin(b);
      const std::size_t cb = static_cast<std::size_t>(comp_bytes(sl.elem));
      std::memset(b, 0, static_cast<std::size_t>(mine));
      fill_values(sl.elem, init_key(sl.serial, me), b, static_cast<std::size_t>(mine) / cb * cb);
      ARMCI_Access_end(b);
    }
  }
  void release(int s) {
    const Slot& sl = slot(s);
    if (!sl.member(me)) return;
    if (sl.group_freed_early) return;  // its group is gone: left to ARMCI_Finalize (doc/design.md, "Groups")
    char* mine = bases[static_cast<std::size_t>(s)][static_cast<std::size_t>(me)];
    if (sl.group < 0) ARMCI_Free(mine);
    else ARMCI_Free_group(mine, group_of(s));
    bases[static_cast<std::size_t>(s)].clear();
  }
  void record(int ph, int t, int index, int done_by, long off, int slot_index, const std::string& msg, const std::string& want,
              const std::string& got) {
    std::lock_guard<std::mutex> g(fail_mu);
    if (out.failed) return;
    out.failed = true;
    out.phase = ph;
    out.fail_thread = t;
    out.fail_index = index;
    out.late = msg.find("late write") != std::string::npos;
    out.fail_done_by = done_by;
    out.fail_offset = off;
    out.fail_slot = slot_index;
    out.message = msg;
    out.fail_expected = want;
    out.fail_seen = got;
  }
  bool corrupt_now() {
    if (inject < 0) return false;
    std::lock_guard<std::mutex> g(inject_mu);
    return inject-- == 0;
  }

  void phase_start(int ph);
  void run_threads(int ph, std::vector<std::vector<Expect>>& ex, std::vector<std::unique_ptr<ThreadRun>>& runs);
  void phase_end(int ph, std::vector<std::unique_ptr<ThreadRun>>& runs);
  void verify(int ph);
};

const char* const kEndNames[] = {"WaitAll + ARMCI_Barrier", "AllFence + armci_msg_barrier", "AllFence + MPI_Barrier",
                                 "WaitAll + armci_msg_barrier, no fence", "WaitAll + MPI_Barrier, no fence"};

bool all_pred(const Issued&, int) { return true; }
bool proc_pred(const Issued& is, int p) { return is.target == p; }
bool index_pred(const Issued& is, int i) { return is.index == i; }

void ThreadRun::fail(std::size_t i, long off, const unsigned char* want, const unsigned char* got, long n, const char* what) {
  char b[160];
  std::snprintf(b, sizeof b, "%s at byte %ld of the result: expected %s, seen %s", what, off, hex(want, n).c_str(), hex(got, n).c_str());
  R.record(ph, t, static_cast<int>(i), completing, off, -1, "rank " + std::to_string(R.me) + " thread " + std::to_string(t) + " phase " +
           std::to_string(ph) + " op #" + std::to_string(i) + " (" + describe(R.p, ph, R.me, t, static_cast<int>(i)) + "): " + b,
           hex(want, n), hex(got, n));
}

// The operation's result is in place (or its origin buffer free): check a get, scribble a put's origin.
void ThreadRun::finish(Issued& is) {
  const Op& op = ops[static_cast<std::size_t>(is.index)];
  if (op.kind == Kind::Get) {
    const Expect& e = ex[static_cast<std::size_t>(is.index)];
    const long eb = elem_bytes(R.slot(op.slot).elem);
    if (R.corrupt_now()) is.local[chunks_of(op)[0].loc] ^= 0x40;
    long at = 0;
    for (const Chunk& c : chunks_of(op)) {
      if (std::memcmp(is.local + c.loc, e.bytes.data() + at, static_cast<std::size_t>(c.len)) != 0) {
        long k = 0;
        while (is.local[c.loc + k] == e.bytes[static_cast<std::size_t>(at + k)]) ++k;
        const long el = k / eb * eb;
        fail(static_cast<std::size_t>(is.index), at + el, e.bytes.data() + at + el, is.local + c.loc + el, eb, "stale or wrong data");
        break;
      }
      at += c.len;
    }
    if (op.buf != Buf::OwnArmci) {  // nothing outside the chunks may change
      std::vector<char> in(static_cast<std::size_t>(op.local_extent), 0);
      for (const Chunk& c : chunks_of(op)) std::memset(in.data() + c.loc, 1, static_cast<std::size_t>(c.len));
      for (long k = 0; k < op.local_extent; ++k)
        if (!in[static_cast<std::size_t>(k)] && is.local[k] != kJunk) {
          const unsigned char j = kJunk;
          fail(static_cast<std::size_t>(is.index), k, &j, is.local + k, 1, "a byte outside the requested pieces changed");
          break;
        }
    }
    ++checked;
    if (op.buf != Buf::OwnArmci) std::memset(is.local, kDone, static_cast<std::size_t>(op.local_extent));
  } else if (op.buf != Buf::OwnArmci) {
    std::memset(is.local, kScribble, static_cast<std::size_t>(op.local_extent));
  }
}

// At the phase's end: a get's buffer still holds what finish() left there (MPI wrote nothing after the
// completion call), then the buffers go.
void ThreadRun::check_done() {
  for (std::size_t k = 0; k < done.size(); ++k) {
    Issued& is = done[k];
    const Op& op = ops[static_cast<std::size_t>(is.index)];
    if (op.kind == Kind::Get && op.buf != Buf::OwnArmci) {
      for (long b = 0; b < op.local_extent; ++b)
        if (is.local[b] != kDone) {
          const unsigned char want[4] = {kDone, kDone, kDone, kDone};
          const long n = std::min<long>(4, op.local_extent - b);
          completing = done_by[k];
          fail(static_cast<std::size_t>(is.index), b, want, is.local + b, n,
               ("late write: MPI wrote into the get's buffer after its completion call (op #" + std::to_string(done_by[k]) +
                ", or the phase's end if -1) had returned; seen at the phase's end").c_str());
          break;
        }
    }
    if (is.malloc_local) ARMCI_Free_local(is.local);
  }
  done.clear();
  done_by.clear();
}

void ThreadRun::complete_if(bool (*pred)(const Issued&, int), int arg) {
  for (std::size_t k = 0; k < open.size();) {
    if (pred(open[k], arg)) {
      finish(open[k]);
      done.push_back(std::move(open[k]));
      done_by.push_back(completing);
      open.erase(open.begin() + static_cast<long>(k));
    } else {
      ++k;
    }
  }
}

bool trace_on() {
  static const bool on = std::getenv("ARMCIX_MODEL_TRACE") != nullptr;
  return on;
}

void ThreadRun::issue(std::size_t i) {
  const Op& op = ops[i];
  ++run;
  if (trace_on()) std::fprintf(stderr, "[%d] phase %d thread %d #%zu %s\n", R.me, ph, t, i, describe(R.p, ph, R.me, t, static_cast<int>(i)).c_str());
  completing = static_cast<int>(i);
  switch (op.kind) {
    case Kind::Wait:
    case Kind::Test: {
      const Op& ref = ops[static_cast<std::size_t>(op.ref)];
      if (!ref.keep) return;
      armci_hdl_t* h = &handles[static_cast<std::size_t>(op.ref)];
      if (op.kind == Kind::Wait) {
        ARMCI_Wait(h);
      } else {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (ARMCI_Test(h) != 0)
          if (std::chrono::steady_clock::now() > deadline) {
            R.record(ph, t, static_cast<int>(i), -1, -1, -1, "rank " + std::to_string(R.me) + " phase " + std::to_string(ph) +
                     " op #" + std::to_string(i) + ": ARMCI_Test never reported completion in 60 s", "", "");
            break;
          }
      }
      complete_if(index_pred, op.ref);
      return;
    }
    case Kind::WaitProc: ARMCI_WaitProc(op.target); complete_if(proc_pred, op.target); return;
    case Kind::Fence: ARMCI_Fence(op.target); complete_if(proc_pred, op.target); return;
    case Kind::WaitAll: ARMCI_WaitAll(); complete_if(all_pred, 0); return;
    case Kind::AllFence: ARMCI_AllFence(); complete_if(all_pred, 0); return;
    default: break;
  }
  const Slot& sl = R.slot(op.slot);
  const Elem e = sl.elem;
  const long eb = elem_bytes(e);
  char* rem = R.addr(op.slot, op.target, 0);
  const Expect& want = ex[i];
  auto value_check = [&](const unsigned char* got, const char* what) {
    ++checked;
    if (std::memcmp(got, want.bytes.data(), static_cast<std::size_t>(eb)) != 0) fail(i, 0, want.bytes.data(), got, eb, what);
  };
  auto bounds_check = [&](long v, const char* what) {
    ++checked;
    if (v < want.lo || v > want.hi) {
      R.record(ph, t, static_cast<int>(i), -1, 0, -1, "rank " + std::to_string(R.me) + " phase " + std::to_string(ph) + " op #" +
               std::to_string(i) + " (" + describe(R.p, ph, R.me, t, static_cast<int>(i)) + "): " + what + " " +
               std::to_string(v) + " outside [" + std::to_string(want.lo) + ", " + std::to_string(want.hi) + "]", "", "");
    }
  };
  switch (op.kind) {
    case Kind::PutVal: {
      char* d = rem + op.base;
      if (e == Elem::I32) ARMCI_PutValueInt(op.value, d, op.target);
      else if (e == Elem::I64) ARMCI_PutValueLong(op.value, d, op.target);
      else if (e == Elem::F32) ARMCI_PutValueFloat(static_cast<float>(op.value), d, op.target);
      else ARMCI_PutValueDouble(op.value, d, op.target);
      return;
    }
    case Kind::GetVal: {
      unsigned char got[16] = {0};
      char* s = rem + op.base;
      if (e == Elem::I32) { int v = ARMCI_GetValueInt(s, op.target); std::memcpy(got, &v, 4); }
      else if (e == Elem::I64) { long v = ARMCI_GetValueLong(s, op.target); std::memcpy(got, &v, 8); }
      else if (e == Elem::F32) { float v = ARMCI_GetValueFloat(s, op.target); std::memcpy(got, &v, 4); }
      else { double v = ARMCI_GetValueDouble(s, op.target); std::memcpy(got, &v, 8); }
      value_check(got, "ARMCI_GetValue returned a wrong value");
      return;
    }
    case Kind::FetchAdd: {
      long v = 0;
      if (e == Elem::I32) { int x = 0; ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &x, rem + op.base, op.value, op.target); v = x; }
      else { long x = 0; ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &x, rem + op.base, op.value, op.target); v = x; }
      bounds_check(v, "fetch-and-add fetched");
      return;
    }
    case Kind::Swap: {
      unsigned char got[8] = {0};
      if (e == Elem::I32) { int x = op.value; ARMCI_Rmw(ARMCI_SWAP, &x, rem + op.base, 0, op.target); std::memcpy(got, &x, 4); }
      else { long x = op.value; ARMCI_Rmw(ARMCI_SWAP_LONG, &x, rem + op.base, 0, op.target); std::memcpy(got, &x, 8); }
      value_check(got, "swap fetched a wrong value");
      return;
    }
    case Kind::LockedInc: {
      unsigned char v[16] = {0};
      ARMCI_Lock(op.mutex, op.target);
      ARMCI_Get(rem + op.base, v, static_cast<int>(eb), op.target);
      const long x = load_value(e, v);
      bounds_check(x, "value read under the mutex");
      store_value(e, v, x + 1);
      ARMCI_Put(v, rem + op.base, static_cast<int>(eb), op.target);
      ARMCI_Fence(op.target);
      ARMCI_Unlock(op.mutex, op.target);
      return;
    }
    case Kind::LocalRead: {
      char* mine = R.addr(op.slot, R.me, 0);
      unsigned char got[16];
      ARMCI_Access_begin(mine);
      std::memcpy(got, mine + op.base, static_cast<std::size_t>(eb));
      ARMCI_Access_end(mine);
      value_check(got, "a load from the own slice (ARMCI_Access_begin) saw a wrong value");
      return;
    }
    case Kind::LocalWrite: {
      char* mine = R.addr(op.slot, R.me, 0);
      ARMCI_Access_begin(mine);
      store_value(e, reinterpret_cast<unsigned char*>(mine + op.base), op.value);
      ARMCI_Access_end(mine);
      return;
    }
    default: break;
  }
  // Transfers.
  Issued is;
  is.index = static_cast<int>(i);
  is.target = op.target;
  is.explicit_handle = op.mode == Mode::NbExplicit;
  if (op.buf == Buf::OwnArmci) {
    is.local = reinterpret_cast<unsigned char*>(R.addr(op.own_slot, R.me, op.own_base));
  } else if (op.buf == Buf::MallocLocal) {
    is.local = static_cast<unsigned char*>(ARMCI_Malloc_local(op.local_extent));
    is.malloc_local = true;
  } else {
    is.heap.resize(static_cast<std::size_t>(op.local_extent));
    is.local = is.heap.data();
  }
  if (op.kind == Kind::Get) {
    if (op.buf != Buf::OwnArmci) std::memset(is.local, kJunk, static_cast<std::size_t>(op.local_extent));
  } else if (op.buf != Buf::OwnArmci) {
    std::memset(is.local, 0, static_cast<std::size_t>(op.local_extent));
    fill_values(e, op.key, is.local, static_cast<std::size_t>(op.local_extent));
  }
  armci_hdl_t* h = nullptr;
  if (op.mode == Mode::NbExplicit) {
    h = &handles[i];
    ARMCI_INIT_HANDLE(h);
  }
  const bool nb = op.mode != Mode::Blocking;
  unsigned char scale[16] = {0};
  switch (e) {
    case Elem::I32: { int s = op.scale_re; std::memcpy(scale, &s, 4); break; }
    case Elem::I64: { long s = op.scale_re; std::memcpy(scale, &s, 8); break; }
    case Elem::F32: { float s = static_cast<float>(op.scale_re); std::memcpy(scale, &s, 4); break; }
    case Elem::F64: { double s = op.scale_re; std::memcpy(scale, &s, 8); break; }
    case Elem::C32: { float s[2] = {static_cast<float>(op.scale_re), static_cast<float>(op.scale_im)}; std::memcpy(scale, s, 8); break; }
    case Elem::C64: { double s[2] = {static_cast<double>(op.scale_re), static_cast<double>(op.scale_im)}; std::memcpy(scale, s, 16); break; }
  }
  const int type = static_cast<int>(e);  // ARMCI_ACC_INT .. ARMCI_ACC_DCP
  void* L = is.local;
  char* T = rem;
  int rc = 0;
  if (op.shape == Shape::Contig) {
    const int n = op.count[0];
    switch (op.kind) {
      case Kind::Put: rc = nb ? ARMCI_NbPut(L, T + op.base, n, op.target, h) : ARMCI_Put(L, T + op.base, n, op.target); break;
      case Kind::Get: rc = nb ? ARMCI_NbGet(T + op.base, L, n, op.target, h) : ARMCI_Get(T + op.base, L, n, op.target); break;
      default: rc = nb ? ARMCI_NbAcc(type, scale, L, T + op.base, n, op.target, h) : ARMCI_Acc(type, scale, L, T + op.base, n, op.target);
    }
  } else if (op.shape == Shape::Strided) {
    int count[4], ls[3], rs[3];
    std::memcpy(count, op.count, sizeof count);
    std::memcpy(ls, op.lstride, sizeof ls);
    std::memcpy(rs, op.rstride, sizeof rs);
    const int lv = op.levels;
    switch (op.kind) {
      case Kind::Put: rc = nb ? ARMCI_NbPutS(L, ls, T + op.base, rs, count, lv, op.target, h) : ARMCI_PutS(L, ls, T + op.base, rs, count, lv, op.target); break;
      case Kind::Get: rc = nb ? ARMCI_NbGetS(T + op.base, rs, L, ls, count, lv, op.target, h) : ARMCI_GetS(T + op.base, rs, L, ls, count, lv, op.target); break;
      default:
        rc = nb ? ARMCI_NbAccS(type, scale, L, ls, T + op.base, rs, count, lv, op.target, h)
                : ARMCI_AccS(type, scale, L, ls, T + op.base, rs, count, lv, op.target);
    }
  } else {
    const std::size_t n = op.seg_loc.size();
    is.ptrs.resize(2 * n);
    for (std::size_t k = 0; k < n; ++k) {
      void* lp = is.local + op.seg_loc[k];
      void* rp = T + op.seg_rem[k];
      is.ptrs[k] = op.kind == Kind::Get ? rp : lp;          // src
      is.ptrs[n + k] = op.kind == Kind::Get ? lp : rp;      // dst
    }
    const std::size_t first = op.niov == 2 ? n / 2 : n;
    is.iov.push_back({is.ptrs.data(), is.ptrs.data() + n, op.seg_bytes, static_cast<int>(first)});
    if (first < n) is.iov.push_back({is.ptrs.data() + first, is.ptrs.data() + n + first, op.seg_bytes, static_cast<int>(n - first)});
    armci_giov_t* v = is.iov.data();
    const int nv = static_cast<int>(is.iov.size());
    switch (op.kind) {
      case Kind::Put: rc = nb ? ARMCI_NbPutV(v, nv, op.target, h) : ARMCI_PutV(v, nv, op.target); break;
      case Kind::Get: rc = nb ? ARMCI_NbGetV(v, nv, op.target, h) : ARMCI_GetV(v, nv, op.target); break;
      default: rc = nb ? ARMCI_NbAccV(type, scale, v, nv, op.target, h) : ARMCI_AccV(type, scale, v, nv, op.target);
    }
  }
  if (rc != 0)
    R.record(ph, t, static_cast<int>(i), -1, -1, -1, "rank " + std::to_string(R.me) + " phase " + std::to_string(ph) + " op #" +
             std::to_string(i) + " returned " + std::to_string(rc), "", "");
  if (!nb) {
    finish(is);
    done.push_back(std::move(is));
    done_by.push_back(static_cast<int>(i));
    return;
  }
  open.push_back(std::move(is));
  if (!open.back().heap.empty()) open.back().local = open.back().heap.data();  // (moved vector keeps its data)
}

void ThreadRun::execute() {
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].keep) issue(i);
  if (!R.p.phases[static_cast<std::size_t>(ph)].signal) return;
  const int tag = ph + 1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto late = [&](const char* what) {
    if (std::chrono::steady_clock::now() < deadline) return false;
    R.record(ph, t, -1, -1, -1, -1, "rank " + std::to_string(R.me) + " thread " + std::to_string(t) + " phase " +
             std::to_string(ph) + ": " + what + " within 60 s", "", "");
    return true;
  };
  if (t == R.p.cfg.nthreads - 1) {
    const int next = (R.me + 1) % R.np;
    ARMCI_PutValueInt(tag, R.flags[static_cast<std::size_t>(next)], next);
    ARMCI_Fence(next);
    while (ARMCI_GetValueInt(R.flags[static_cast<std::size_t>(R.me)], R.me) != tag)
      if (late("the previous rank's flag (ARMCI_PutValueInt + ARMCI_Fence) did not arrive")) break;
    R.received = true;
  }
  if (t == 0) {
    if (R.me % 2 == 1) {
      while (!R.received.load()) {
        if (late("this rank's flag did not arrive before its barrier")) break;
        std::this_thread::yield();
      }
    }
    ARMCI_Barrier();
  }
}

void Runner::phase_start(int ph) {
  const Phase& f = p.phases[static_cast<std::size_t>(ph)];
  bases.resize(p.slots.size());
  init_slots(p, ph, shadow);
  if (f.parallel_alloc) {
    std::vector<std::thread> th;
    for (int t = 0; t < p.cfg.nthreads; ++t)
      th.emplace_back([this, &f, t] {
        for (int s : f.frees)
          if (slot(s).alloc_thread == t) release(s);
        for (int s : f.allocs)
          if (slot(s).alloc_thread == t) allocate(s);
      });
    for (auto& x : th) x.join();
  } else {
    for (int s : f.frees) release(s);
    for (int g : f.group_frees) {
      const auto& m = p.groups[static_cast<std::size_t>(g)].members;
      if (std::count(m.begin(), m.end(), me)) ARMCI_Group_free(&groups[static_cast<std::size_t>(g)]);
    }
    for (int s : f.allocs) allocate(s);
  }
  ARMCI_Barrier();
}

void Runner::phase_end(int ph, std::vector<std::unique_ptr<ThreadRun>>& runs) {
  const Phase& f = p.phases[static_cast<std::size_t>(ph)];
  switch (f.end) {
    case 0: ARMCI_WaitAll(); ARMCI_Barrier(); break;
    case 1: ARMCI_AllFence(); armci_msg_barrier(); break;
    case 2: ARMCI_AllFence(); MPI_Barrier(MPI_COMM_WORLD); break;
    case 3: ARMCI_WaitAll(); armci_msg_barrier(); break;
    default: ARMCI_WaitAll(); MPI_Barrier(MPI_COMM_WORLD); break;
  }
  // A late write lands at a later flush of the same pair: the buffers of a phase are looked at (and freed)
  // at the end of the next one (check_done, from run_program).
  for (auto& r : runs) {
    r->completing = -1;
    r->complete_if(all_pred, 0);
    out.ops_checked += r->checked;
    out.ops_run += r->run;
  }
  // The phase's collective, checked against what every rank contributes.
  if (f.collective == 1) {
    int x[2] = {me + 1, ph};
    armci_msg_igop(x, 2, const_cast<char*>("+"));
    if (x[0] != np * (np + 1) / 2 || x[1] != ph * np) record(ph, -1, -1, -1, -1, -1, "armci_msg_igop(+) returned a wrong sum", "", "");
  } else if (f.collective == 2) {
    long x = 1L << (me % 40);
    armci_msg_lgop(&x, 1, const_cast<char*>("max"));
    if (x != 1L << ((np - 1) % 40)) record(ph, -1, -1, -1, -1, -1, "armci_msg_lgop(max) returned a wrong value", "", "");
  } else if (f.collective == 3) {
    double x = 0.5 * me;
    armci_msg_dgop(&x, 1, const_cast<char*>("+"));
    if (x != 0.25 * np * (np - 1)) record(ph, -1, -1, -1, -1, -1, "armci_msg_dgop(+) returned a wrong sum", "", "");
  } else if (f.collective == 4) {
    int x[3] = {-1, -1, -1};
    if (me == f.coll_root) x[0] = ph, x[1] = f.coll_root, x[2] = 7;
    armci_msg_bcast(x, sizeof x, f.coll_root);
    if (x[0] != ph || x[1] != f.coll_root || x[2] != 7) record(ph, -1, -1, -1, -1, -1, "armci_msg_bcast delivered wrong data", "", "");
  }
  verify(ph);
}

// Every rank compares its own slices with the model.
void Runner::verify(int ph) {
  for (std::size_t s = 0; s < p.slots.size(); ++s) {
    const Slot& sl = p.slots[s];
    if (!(sl.alloc_phase <= ph && ph < sl.free_phase) || !sl.member(me)) continue;
    const long n = sl.bytes[static_cast<std::size_t>(me)];
    if (n <= 0) continue;
    char* b = bases[s][static_cast<std::size_t>(me)];
    const unsigned char* want = shadow.mem[s][static_cast<std::size_t>(me)].data();
    ARMCI_Access_begin(b);
    const bool same = std::memcmp(b, want, static_cast<std::size_t>(n)) == 0;
    long k = 0;
    if (!same)
      while (static_cast<unsigned char>(b[k]) == want[k]) ++k;
    unsigned char got[16];
    const long eb = elem_bytes(sl.elem);
    const long el = k / eb * eb;
    if (!same) std::memcpy(got, b + el, static_cast<std::size_t>(eb));
    ARMCI_Access_end(b);
    ++out.ops_checked;
    if (same) continue;
    const long bb = p.block_bytes(static_cast<int>(s), me);
    const int blk = bb > 0 ? static_cast<int>(el / bb) : -1;
    const auto& roles = p.phases[static_cast<std::size_t>(ph)].roles[s][static_cast<std::size_t>(me)];
    const char* role = blk >= 0 && blk < static_cast<int>(roles.size()) ? role_name(roles[static_cast<std::size_t>(blk)]) : "tail";
    record(ph, -1, -1, -1, el, static_cast<int>(s),
           "rank " + std::to_string(me) + " phase " + std::to_string(ph) + ": after the phase's end (" +
               kEndNames[p.phases[static_cast<std::size_t>(ph)].end] + ") its slice of slot " +
               std::to_string(s) + " (" + elem_name(sl.elem) + ", " + std::to_string(n) + " B) differs at byte " + std::to_string(el) +
               " (block " + std::to_string(blk) + ", " + role + "): expected " + hex(want + el, eb) + ", seen " + hex(got, eb),
           hex(want + el, eb), hex(got, eb));
  }
}

}  // namespace

volatile int crash_phase = -1;
std::atomic<long> heartbeat{0};

Outcome run_program(const Program& p, int last_phase) {
  Runner R(p);
  for (const GroupSpec& g : p.groups) {
    ARMCI_Group grp;
    std::memset(&grp, 0, sizeof grp);  // a non-member's stays as the library leaves it
    std::vector<int> m = g.members;
    ARMCI_Group_create(static_cast<int>(m.size()), m.data(), &grp);
    R.groups.push_back(grp);
  }
  ARMCI_Create_mutexes(p.cfg.nmutex);
  {
    std::vector<void*> ptrs(static_cast<std::size_t>(R.np));
    ARMCI_Malloc(ptrs.data(), sizeof(int));
    for (void* q : ptrs) R.flags.push_back(static_cast<char*>(q));
    ARMCI_Access_begin(R.flags[static_cast<std::size_t>(R.me)]);
    std::memset(R.flags[static_cast<std::size_t>(R.me)], 0, sizeof(int));
    ARMCI_Access_end(R.flags[static_cast<std::size_t>(R.me)]);
  }
  std::vector<std::unique_ptr<ThreadRun>> previous;  // the last phase's threads, their buffers still held
  int ph = 0;
  for (; ph <= last_phase && ph < static_cast<int>(p.phases.size()); ++ph) {
    crash_phase = ph;
    R.phase_start(ph);
    R.received = false;
    heartbeat.fetch_add(1);
    std::vector<std::vector<Expect>> ex = simulate_phase(p, ph, R.shadow, R.me);
    std::vector<std::unique_ptr<ThreadRun>> runs;
    const auto& mine = p.phases[static_cast<std::size_t>(ph)].ops[static_cast<std::size_t>(R.me)];
    for (int t = 0; t < p.cfg.nthreads; ++t)
      runs.push_back(std::make_unique<ThreadRun>(R, ph, t, mine[static_cast<std::size_t>(t)], ex[static_cast<std::size_t>(t)]));
    if (p.cfg.nthreads == 1) {
      runs[0]->execute();
    } else {
      std::vector<std::thread> th;
      for (int t = 1; t < p.cfg.nthreads; ++t) th.emplace_back([&runs, t] { runs[static_cast<std::size_t>(t)]->execute(); });
      runs[0]->execute();
      for (auto& x : th) x.join();
    }
    R.phase_end(ph, runs);
    for (auto& r : previous) r->check_done();  // (ThreadRun::check_done reads only the program's ops)
    previous = std::move(runs);
    int mine_failed = R.out.failed ? ph : 1 << 30, first = 0;
    MPI_Allreduce(&mine_failed, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first != 1 << 30) {
      R.out.phase = first;
      R.out.failed = true;
      ++ph;
      break;
    }
  }
  // Tear down: every slot still live, the groups (those not freed by the program), the mutexes.
  ARMCI_WaitAll();
  ARMCI_AllFence();
  ARMCI_Barrier();
  for (auto& r : previous) r->check_done();
  for (std::size_t s = p.slots.size(); s-- > 0;) {
    const Slot& sl = p.slots[s];
    if (sl.alloc_phase < ph && sl.free_phase >= ph) R.release(static_cast<int>(s));
  }
  ARMCI_Free(R.flags[static_cast<std::size_t>(R.me)]);
  ARMCI_Destroy_mutexes();
  for (std::size_t g = 0; g < R.groups.size(); ++g) {
    bool freed = false;
    for (int q = 0; q < ph; ++q)
      for (int x : p.phases[static_cast<std::size_t>(q)].group_frees) freed |= x == static_cast<int>(g);
    const auto& m = p.groups[g].members;
    if (!freed && std::count(m.begin(), m.end(), R.me)) ARMCI_Group_free(&R.groups[g]);  // members free it
  }
  ARMCI_Barrier();
  return R.out;
}

}  // namespace model
