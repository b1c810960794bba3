#include "nb/request.h"

#include <sched.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/mpi_library.h"
#include "base/state.h"
#include "base/thread_lock.h"
#include "completion/ordering.h"
#include "runtime/modules.h"
#include "wait/wait.h"

namespace armcix {

namespace {

// Handle encoding (armci_hdl_t is {int target; int aggregate;} and must stay 8 bytes):
//   target    >= 0: slot index of a live request;  kNoRequest: initialised, nothing attached;
//             kWaited: its request was completed by ARMCI_Wait;  kTested: completed by ARMCI_Test.
//   aggregate bit 0: aggregate mode; bits 1..30: the slot's generation when the request was attached, so
//             a handle whose request completed -- and whose slot may serve another request now -- is
//             recognised.
// ARMCI, as ARMCI-MPI, does not require a handle to be waited: WaitAll, WaitProc, fences, barriers and the
// bound on live handles below complete its request, and without threads free its slot at once.  A handle
// naming a completed request therefore counts as complete (Wait and Test return 0 and touch nothing, a
// further operation under it starts a new request) -- unless its request was completed through ARMCI_Wait
// or ARMCI_Test on another copy of it and no later request of the slot was (Request::waited_generation):
// that copy is an error, as is a handle this table never issued.
//   target == kDoneAtIssue: every operation under it completed at issue (node-local loads and stores), so no
//             slot was ever taken (see g_fresh); bits 1..30 of aggregate still hold a generation of its own,
//             so that a copy of it waited after it is recognised (g_waited_done).
constexpr int kNoRequest = -2;
constexpr int kWaited = -3;
constexpr int kTested = -4;
constexpr int kDoneAtIssue = -5;
constexpr uint32_t kGenerationMask = 0x3fffffff;

std::vector<std::unique_ptr<Request>> g_slots;
std::vector<int> g_free_slots;
std::vector<Request*> g_implicit;  // by absolute target
uint32_t g_next_generation = 1;
long g_live_explicit = 0;  // explicit requests in use: at most ARMCI_MAX_OUTSTANDING without threads

// The request of an operation under a handle that names none yet (most of them: GA waits every handle right
// away), while the operation is issued.  Only if it holds something afterwards does it move into a slot
// (settle_fresh); an operation that completed at issue -- node-local, GA's commonest -- leaves the handle
// kDoneAtIssue, and its ARMCI_Wait touches no table: a slot taken and given back cost a node-local
// ARMCI_NbGetS + ARMCI_Wait 40% more instructions than ARMCI_GetS (benchmarks/local_get_ir.c).  Not with
// threads (tolerate_shared_handles): there every request completes within its call.
Request g_fresh;
// The generations of kDoneAtIssue handles completed through ARMCI_Wait / ARMCI_Test, by their low bits: a copy
// of one waited later finds its generation here (an error, as for a slot's handle) unless 1,024 later such
// handles were waited since.  An entry is cleared when its generation is issued again (after 2^30).
constexpr uint32_t kWaitedDoneEntries = 1024;
uint32_t g_waited_done[kWaitedDoneEntries];
// g_next_generation at the last bulk completion (WaitAll, WaitProc: fences, barriers).  A kDoneAtIssue
// handle issued before it counts as completed by it, as a slot's handle whose slot it freed: waiting on it or
// on a copy of it later returns 0.
uint32_t g_bulk_mark = 0;

// Flow control: operations issued and not yet locally completed, per target and in total, and the
// (region, window rank) pairs they went to.
std::vector<int> g_unflushed_ops;
std::vector<std::vector<std::pair<Gmr*, int>>> g_unflushed_pairs;
long g_unflushed_total = 0;
// MPI requests held by requests (request_add_mpi), in total: bounded like the operations above.
long g_mpi_in_flight = 0;
long g_mpi_in_flight_bound = 0;  // ARMCI_MAX_OUTSTANDING, or MPI's own bound if lower (requests_initialize)
// Batches being completed, over all requests (wait_until_all_idle): touched under the API lock only.
int g_busy_batches = 0;

void add_pair(std::vector<std::pair<Gmr*, int>>& v, Gmr* g, int wr) {
  for (auto it = v.rbegin(); it != v.rend(); ++it)
    if (it->first == g && it->second == wr) return;
  v.emplace_back(g, wr);
}

int slot_of(const Request* req) {
  return req->slot;
}

// Puts a completed explicit request's slot back on the free list, once: two threads that completed one
// request (a handle shared between threads, as GA's handle pool does) both come here.  `by_handle`: through
// ARMCI_Wait / ARMCI_Test on its handle, which marks that handle, not its copies.
void release_slot(Request* req, bool by_handle = false) {
  if (!req->in_use) return;
  req->in_use = false;
  if (by_handle) req->waited_generation = req->generation;
  if (!req->implicit) --g_live_explicit;
  req->pairs.clear();
  req->finishers.clear();
  req->buffers.clear();
  req->mpi_reqs.clear();
  req->mpi_targets.clear();
  req->settled.clear();
  if (!req->implicit) g_free_slots.push_back(slot_of(req));
}

bool tolerate_shared_handles();
void complete_and_reclaim_all();
bool holds_work(const Request* req);

uint32_t next_generation() {
  uint32_t generation = g_next_generation++ & kGenerationMask;
  if (generation == 0) generation = g_next_generation++ & kGenerationMask;
  return generation;
}

Request* new_request() {
  // A program that never waits its handles (WaitAll at the end, or handles initialised again over live
  // ones) must not grow the table without bound: past ARMCI_MAX_OUTSTANDING live requests all are completed,
  // which ARMCI allows.  With threads, explicit requests never outlive their call (request_issued).
  if (!tolerate_shared_handles() && g_live_explicit >= rt().config.max_outstanding) complete_and_reclaim_all();
  int idx;
  if (!g_free_slots.empty()) {
    idx = g_free_slots.back();
    g_free_slots.pop_back();
  } else {
    idx = static_cast<int>(g_slots.size());
    g_slots.push_back(std::make_unique<Request>());
    g_slots.back()->slot = idx;
  }
  Request* r = g_slots[idx].get();
  r->in_use = true;
  r->implicit = false;
  ++g_live_explicit;
  r->generation = next_generation();
  return r;
}

uint32_t generation_of(const armci_hdl_t* hdl) {
  return static_cast<uint32_t>(hdl->aggregate) >> 1;
}
// Makes the handle name `target` (a slot, or kDoneAtIssue) of `generation`, keeping its aggregate bit.
void name_in_handle(armci_hdl_t* hdl, int target, uint32_t generation) {
  hdl->target = target;
  hdl->aggregate = static_cast<int>((generation << 1) | (static_cast<uint32_t>(hdl->aggregate) & 1u));
}

// A kDoneAtIssue handle: whether a copy of it was completed through ARMCI_Wait / ARMCI_Test already
// (g_waited_done), and marking it so.
bool done_before_bulk(const armci_hdl_t* hdl) {
  const uint32_t age = (g_bulk_mark - generation_of(hdl)) & kGenerationMask;  // modulo the generations' wrap
  return age != 0 && age <= (kGenerationMask >> 1);
}
bool waited_done(const armci_hdl_t* hdl) {
  const uint32_t generation = generation_of(hdl);
  return generation != 0 && !done_before_bulk(hdl) && g_waited_done[generation % kWaitedDoneEntries] == generation;
}
void require_done_not_waited(const char* call, const armci_hdl_t* hdl) {
  ARMCIX_REQUIRE(tolerate_shared_handles() || !waited_done(hdl), call,
                 "argument 'handle' is a copy of a handle already completed by ARMCI_Wait or ARMCI_Test");
}
void mark_done_waited(const armci_hdl_t* hdl) {
  if (done_before_bulk(hdl)) return;
  const uint32_t generation = generation_of(hdl);
  g_waited_done[generation % kWaitedDoneEntries] = generation;
}

// After the operation of a call under a new handle: the handle becomes kDoneAtIssue if it completed at issue
// (returns true: nothing was added to what is in flight), else g_fresh's contents move into a slot the handle
// names.
bool settle_fresh() {
  armci_hdl_t* hdl = g_fresh.handle;
  g_fresh.handle = nullptr;
  if (!holds_work(&g_fresh)) {
    const uint32_t generation = next_generation();
    uint32_t& waited = g_waited_done[generation % kWaitedDoneEntries];
    if (waited == generation) waited = 0;  // an earlier handle of this generation, 2^30 ago
    name_in_handle(hdl, kDoneAtIssue, generation);
    return true;
  }
  Request* r = new_request();
  r->pairs.swap(g_fresh.pairs);
  r->mpi_reqs.swap(g_fresh.mpi_reqs);
  r->mpi_targets.swap(g_fresh.mpi_targets);
  r->settled.swap(g_fresh.settled);
  r->buffers.swap(g_fresh.buffers);
  r->finishers.swap(g_fresh.finishers);
  name_in_handle(hdl, slot_of(r), r->generation);
  return false;
}

// What a request holds at one moment, taken out of it as a whole: the operations, the MPI requests of those
// that complete by their own, the copy-outs that must follow them and the buffers they use.  A batch is
// complete in itself (every operation of a call is in the request before the lock can be released: see
// request_add_mpi), so the thread that took it can complete it without the request, while other threads add
// to the request or complete what was added since.
struct Batch {
  std::vector<std::pair<Gmr*, int>> pairs;
  std::vector<MPI_Request> mpi_reqs;
  std::vector<MpiOpTarget> mpi_targets;
  std::vector<std::function<void()>> finishers;
  std::vector<std::unique_ptr<char[]>> buffers;
};

bool holds_work(const Request* req) {
  return !req->pairs.empty() || !req->mpi_reqs.empty() || !req->finishers.empty() || !req->buffers.empty();
}

Batch take_batch(Request* req) {
  Batch b;
  b.pairs.swap(req->pairs);
  b.mpi_reqs.swap(req->mpi_reqs);
  b.mpi_targets.swap(req->mpi_targets);
  req->settled.clear();  // their copy-outs go with the batch's finishers
  b.finishers.swap(req->finishers);
  b.buffers.swap(req->buffers);
  g_mpi_in_flight -= static_cast<long>(b.mpi_reqs.size());
  return b;
}

// Completes a batch: flushes its pairs, waits for its MPI requests -- with the API lock released, so that
// other threads keep running (base/thread_lock.h) -- then runs its copy-outs and frees its buffers.  The
// request it came from counts it as busy meanwhile (wait_until_idle).
void complete_batch(Request* req, Batch& b) {
  ++req->busy;
  ++g_busy_batches;
  for (auto& [g, wr] : b.pairs) {
    flush_local_pair(g, wr);
    note_locally_complete(g, wr);
  }
  if (!b.mpi_reqs.empty()) {
    // Progress ranks of this MPI node that serve a target may be asleep: one wake-up each before the wait
    // (a wake-up it misses costs its sleep, not correctness).
    for (const MpiOpTarget& t : b.mpi_targets) wake_server(t.g, t.wr);
    wait_all_for("ARMCI_Wait", static_cast<int>(b.mpi_reqs.size()), b.mpi_reqs.data());
    for (const MpiOpTarget& t : b.mpi_targets)
      if (t.get) note_request_get_done(t.g, t.wr, t.epoch);
  }
  for (auto& fn : b.finishers) fn();
  b.finishers.clear();
  b.buffers.clear();
  --req->busy;
  --g_busy_batches;
}

// Waits (the API lock released) until no thread completes a batch taken from `req`: only then are all of
// its operations complete, the copy-outs of its gets included.  Without threads nothing else holds a batch.
void wait_until_idle(const Request* req) {
  while (req->busy > 0 && calls_serialized()) {
    ApiUnlocked unlocked;
    sched_yield();
  }
}

// Waits until no request at all has a batch in completion (WaitAll, WaitProc, a region being freed): a
// batch is no longer in its request, so its targets and regions are not known from the request.
void wait_until_all_idle() {
  while (g_busy_batches > 0 && calls_serialized()) {
    ApiUnlocked unlocked;
    sched_yield();
  }
}

// Flow control of MPI requests in the middle of an operation (request_add_mpi): waits for the requests' MPI
// requests without releasing the API lock, so that no other thread sees a request that holds part of a call
// (an accumulate's first pieces without its origin buffer, a get without its copy-out).  Waiting for remote
// memory operations needs no other thread of this process.
void complete_mpi_holding_lock(Request* req) {
  if (req->mpi_reqs.empty()) return;
  for (const MpiOpTarget& t : req->mpi_targets) wake_server(t.g, t.wr);
  if (calls_serialized())
    ARMCIX_MPI(MPI_Waitall(static_cast<int>(req->mpi_reqs.size()), req->mpi_reqs.data(), MPI_STATUSES_IGNORE));
  else  // no lock to hold: the wait with back-off
    wait_all_for("ARMCI_Wait", static_cast<int>(req->mpi_reqs.size()), req->mpi_reqs.data());
  g_mpi_in_flight -= static_cast<long>(req->mpi_reqs.size());
  for (const MpiOpTarget& t : req->mpi_targets) {
    if (!t.get) continue;
    note_request_get_done(t.g, t.wr, t.epoch);
    // The copy-outs of these gets stay among the finishers (this call's own may not be there yet): the
    // target is remembered so that WaitProc / Fence to it still select the request (touches).
    const int proc = t.g->abs_rank_of(t.wr);
    if (std::find(req->settled.begin(), req->settled.end(), proc) == req->settled.end()) req->settled.push_back(proc);
  }
  req->mpi_reqs.clear();
  req->mpi_targets.clear();
}

// Locally completes everything issued to `proc` (all requests' operations to it).
void flush_target(int proc) {
  for (auto& [g, wr] : g_unflushed_pairs[proc]) {
    flush_local_pair(g, wr);
    note_locally_complete(g, wr);
  }
  g_unflushed_pairs[proc].clear();
  g_unflushed_total -= g_unflushed_ops[proc];
  g_unflushed_ops[proc] = 0;
  if (g_implicit[proc] && g_implicit[proc]->in_use) request_complete(g_implicit[proc]);
}

// The live request a handle names, or nullptr (stale, copied or garbage).
Request* find_live(const armci_hdl_t* hdl) {
  int t = hdl->target;
  uint32_t gen = generation_of(hdl);
  if (t >= 0 && t < static_cast<int>(g_slots.size()) && g_slots[t]->in_use && !g_slots[t]->implicit &&
      g_slots[t]->generation == gen)
    return g_slots[t].get();
  return nullptr;
}

Request* lookup(const char* call, armci_hdl_t* hdl) {
  ARMCIX_REQUIRE(find_live(hdl) != nullptr, call,
                 "argument 'handle' (target=%d, aggregate=%d) was never initialised with ARMCI_INIT_HANDLE, "
                 "or is a copy of a handle already completed by ARMCI_Wait or ARMCI_Test",
                 hdl->target, hdl->aggregate);
  return g_slots[hdl->target].get();
}

// Threads (calls_serialized()): Global Arrays 5.8's threads share its pool of ARMCI handles without a lock
// (doc/design.md, "Threads"), so with threads every explicit-handle operation completes locally before it
// returns (request_issued), and a handle this table once issued (a slot that exists, not implicit, a
// generation other than 0) that names no live request counts as complete, even a copy of a waited one.
// Other handles are still errors.
bool tolerate_shared_handles() {
  return calls_serialized();
}
bool once_issued(const armci_hdl_t* hdl) {
  const int t = hdl->target;
  const uint32_t gen = generation_of(hdl);
  return t >= 0 && t < static_cast<int>(g_slots.size()) && !g_slots[t]->implicit && gen != 0;
}

// A handle whose request was completed other than through ARMCI_Wait / ARMCI_Test on another copy of it
// (see the handle encoding above): it counts as complete.
bool completed_earlier(const armci_hdl_t* hdl) {
  if (find_live(hdl) || !once_issued(hdl)) return false;
  const uint32_t gen = generation_of(hdl);
  return tolerate_shared_handles() || g_slots[hdl->target]->waited_generation != gen;
}

// Completes a request and, without threads, frees its slot: its handle then counts as complete.  With
// threads another thread may be issuing into an explicit request right now (the completion releases the
// lock), so there only ARMCI_Wait / ARMCI_Test and request_issued free slots.
void complete_and_reclaim(Request* r) {
  const uint32_t generation = r->generation;
  request_complete(r);
  if (!r->implicit && !tolerate_shared_handles() && r->generation == generation) release_slot(r);
}

void complete_and_reclaim_all() {
  for (std::size_t i = 0; i < g_slots.size(); ++i)
    if (g_slots[i]->in_use && !g_slots[i]->implicit) complete_and_reclaim(g_slots[i].get());
}

}  // namespace

void request_track(Request* req, Gmr* g, int wr) {
  add_pair(req->pairs, g, wr);
  int proc = g->abs_rank_of(wr);
  add_pair(g_unflushed_pairs[proc], g, wr);
  ++g_unflushed_ops[proc];
  ++g_unflushed_total;
}

void request_keep(Request* req, std::unique_ptr<char[]> buffer) {
  req->buffers.push_back(std::move(buffer));
}

void request_on_complete(Request* req, std::function<void()> fn) {
  req->finishers.push_back(std::move(fn));
}

void request_add_mpi(Request* req, MPI_Request mreq, const MpiOpTarget& to) {
  req->mpi_reqs.push_back(mreq);
  req->mpi_targets.push_back(to);
  // Bounded like the flushed operations (request_issued), here rather than there so that the node-local
  // message rate pays nothing for it, and below what MPI itself can hold (Open MPI 5: base/mpi_library.h,
  // mpi_request_rma_bound).
  if (++g_mpi_in_flight > g_mpi_in_flight_bound) {
    for (auto& slot : g_slots)
      if (slot->in_use) complete_mpi_holding_lock(slot.get());
    complete_mpi_holding_lock(&g_fresh);
  }
}

void request_complete(Request* req) {
  // Operations added while a batch was completed (the wait releases the lock) form the next batch.
  while (holds_work(req)) {
    Batch b = take_batch(req);
    complete_batch(req, b);
  }
  wait_until_idle(req);  // batches other threads took from it
  if (req->implicit && !holds_work(req)) req->in_use = false;
}

Request* request_for_handle(const char* call, armci_hdl_t* hdl, int proc) {
  if (!hdl) {
    Request*& r = g_implicit[proc];
    if (!r) {
      g_slots.push_back(std::make_unique<Request>());
      r = g_slots.back().get();
      r->slot = static_cast<int>(g_slots.size()) - 1;
      r->implicit = true;
      r->target = proc;
    }
    r->in_use = true;
    return r;
  }
  if (hdl->target >= 0) {  // aggregate: more operations under one handle
    if (completed_earlier(hdl))
      hdl->target = kNoRequest;  // by WaitAll, WaitProc, a fence, the bound on live handles, another thread
    else
      return lookup(call, hdl);
  } else if (hdl->target == kDoneAtIssue) {
    require_done_not_waited(call, hdl);
  }
  ARMCIX_REQUIRE(
      hdl->target == kNoRequest || hdl->target == kWaited || hdl->target == kTested || hdl->target == kDoneAtIssue,
      call, "argument 'handle' (target=%d) was never initialised with ARMCI_INIT_HANDLE", hdl->target);
  if (!tolerate_shared_handles()) {
    if (g_fresh.handle) request_complete(&g_fresh);  // left by a call that failed half-way (tests)
    g_fresh.handle = hdl;
    return &g_fresh;
  }
  Request* r = new_request();
  name_in_handle(hdl, slot_of(r), r->generation);
  return r;
}

void request_issued(Request* req, int proc) {
  if (req == &g_fresh && settle_fresh()) return;
  if (req && !req->implicit && tolerate_shared_handles()) {
    // Complete at issue: the handle may be waited on by another thread, which then finds it stale (no slot
    // is left behind by a handle never waited on).  That thread may have completed and released it first.
    const uint32_t generation = req->generation;
    request_complete(req);
    if (req->generation == generation) release_slot(req);
    return;
  }
  const Config& c = rt().config;
  if (g_unflushed_ops[proc] > c.max_outstanding_per_target) flush_target(proc);
  if (g_unflushed_total > c.max_outstanding)
    for (int p = 0; p < rt().nproc; ++p)
      if (g_unflushed_ops[p]) flush_target(p);
}

void handle_init(armci_hdl_t* hdl) {
  if (!hdl) return;
  hdl->target = kNoRequest;
  hdl->aggregate = 0;
}

void handle_set_aggregate(const char* call, armci_hdl_t* hdl, bool on) {
  ARMCIX_REQUIRE(hdl != nullptr, call, "argument 'handle' is NULL");
  if (on)
    hdl->aggregate |= 1;
  else
    hdl->aggregate &= ~1;
}

int handle_wait(const char* call, armci_hdl_t* hdl) {
  require_initialized(call);
  ARMCIX_REQUIRE(hdl != nullptr, call, "argument 'handle' is NULL");
  if (Request* r = find_live(hdl)) {  // the common case first
    const uint32_t generation = r->generation;
    if (holds_work(r) || r->busy > 0) request_complete(r);
    if (r->generation == generation) release_slot(r, true);  // not released (and reused) by another thread
    hdl->target = kWaited;
    return 0;
  }
  if (hdl->target == kNoRequest || hdl->target == kTested) {
    hdl->target = kWaited;
    return 0;
  }
  if (hdl->target == kDoneAtIssue) {
    require_done_not_waited(call, hdl);
    mark_done_waited(hdl);
    hdl->target = kWaited;
    return 0;
  }
  if ((tolerate_shared_handles() && hdl->target == kWaited) || completed_earlier(hdl)) {
    hdl->target = kWaited;  // completed by WaitAll, WaitProc, a fence, the bound on live handles, at issue
    return 0;               // (threads), or waited on or re-used by another thread
  }
  ARMCIX_REQUIRE(hdl->target != kWaited, call,
                 "argument 'handle' was already waited on (a handle completes once; "
                 "initialise it again with ARMCI_INIT_HANDLE before reusing it)");
  lookup(call, hdl);  // not live: fails naming the handle
  return 0;
}

int handle_test(const char* call, armci_hdl_t* hdl) {
  require_initialized(call);
  ARMCIX_REQUIRE(hdl != nullptr, call, "argument 'handle' is NULL");
  if (hdl->target == kDoneAtIssue) {
    require_done_not_waited(call, hdl);
    mark_done_waited(hdl);
    hdl->target = kTested;
    return 0;
  }
  if (hdl->target < 0) {
    ARMCIX_REQUIRE(hdl->target == kNoRequest || hdl->target == kWaited || hdl->target == kTested, call,
                   "argument 'handle' (target=%d) was never initialised with ARMCI_INIT_HANDLE", hdl->target);
    return 0;
  }
  if (completed_earlier(hdl)) {
    hdl->target = kTested;  // see handle_wait
    return 0;
  }
  // MPI offers no test for a flush, so Test completes a request with flushes to do (local completion is
  // cheap: the data has been handed to MPI) and reports it done, as ARMCI allows.  A request whose
  // operations all complete by their own MPI requests is tested: not complete yet -> 1.
  Request* r = lookup(call, hdl);
  if (r->busy > 0) return 1;  // another thread completes part of it
  if (r->pairs.empty() && !r->mpi_reqs.empty()) {
    int done = 0;
    ARMCIX_MPI(MPI_Testall(static_cast<int>(r->mpi_reqs.size()), r->mpi_reqs.data(), &done, MPI_STATUSES_IGNORE));
    if (!done) return 1;
  }
  const uint32_t generation = r->generation;
  request_complete(r);
  if (r->generation == generation) release_slot(r, true);
  hdl->target = kTested;
  return 0;
}

bool touches(const Request* r, int proc) {
  return std::any_of(r->pairs.begin(), r->pairs.end(),
                     [proc](auto& p) { return p.first->abs_rank_of(p.second) == proc; }) ||
         std::any_of(r->mpi_targets.begin(), r->mpi_targets.end(),
                     [proc](const MpiOpTarget& t) { return t.g->abs_rank_of(t.wr) == proc; }) ||
         std::find(r->settled.begin(), r->settled.end(), proc) != r->settled.end();
}

void wait_proc(int proc) {
  g_bulk_mark = g_next_generation & kGenerationMask;  // every kDoneAtIssue handle: its operations were node-local
  if (g_implicit[proc] && g_implicit[proc]->in_use) request_complete(g_implicit[proc]);
  // Explicit requests with operations to proc: chosen before anything is completed (completing clears what
  // a request says of its targets), then completed as a whole, so that the copy-outs of their gets (a get
  // that landed in a staging buffer, or packed) have run when WaitProc returns.  Their operations to other
  // targets complete early, which ARMCI allows.  Requests that hold nothing (their operations completed at
  // issue, as within a node) are taken too, to free their slots.
  std::vector<Request*> to_proc;
  for (auto& slot : g_slots)
    if (slot->in_use && !slot->implicit && (touches(slot.get(), proc) || !holds_work(slot.get())))
      to_proc.push_back(slot.get());
  if (g_unflushed_ops[proc]) flush_target(proc);
  for (Request* r : to_proc) complete_and_reclaim(r);
  wait_until_all_idle();  // batches other threads are completing may hold operations to proc
}

void wait_all() {
  g_bulk_mark = g_next_generation & kGenerationMask;
  for (std::size_t i = 0; i < g_slots.size(); ++i)  // by index: completing lets other threads add slots
    if (g_slots[i]->in_use) complete_and_reclaim(g_slots[i].get());
  for (int p = 0; p < rt().nproc; ++p)
    if (g_unflushed_ops[p]) flush_target(p);
  wait_until_all_idle();
}

void requests_forget_region(Gmr* g) {
  for (std::size_t i = 0; i < g_slots.size(); ++i) {  // by index: see wait_all
    Request* r = g_slots[i].get();
    if (!r->in_use) continue;
    bool uses = std::any_of(r->pairs.begin(), r->pairs.end(), [g](auto& p) { return p.first == g; }) ||
                std::any_of(r->mpi_targets.begin(), r->mpi_targets.end(), [g](auto& t) { return t.g == g; });
    if (uses) complete_and_reclaim(r);
  }
  wait_until_all_idle();  // a batch in completion may still name g
  for (auto& v : g_unflushed_pairs)
    v.erase(std::remove_if(v.begin(), v.end(), [g](auto& p) { return p.first == g; }), v.end());
}

void requests_initialize() {
  gmr_on_release(&requests_forget_region);
  g_fresh = Request{};
  g_fresh.in_use = true;  // never in the slot table (slot -1): see g_fresh
  std::fill(std::begin(g_waited_done), std::end(g_waited_done), 0u);
  g_bulk_mark = g_next_generation & kGenerationMask;
  g_implicit.assign(rt().nproc, nullptr);
  g_unflushed_ops.assign(rt().nproc, 0);
  g_unflushed_pairs.assign(rt().nproc, {});
  g_unflushed_total = 0;
  g_mpi_in_flight = 0;
  g_mpi_in_flight_bound = rt().config.max_outstanding;
  if (const int mpi_bound = mpi_request_rma_bound(); mpi_bound > 0)
    g_mpi_in_flight_bound = std::min<long>(g_mpi_in_flight_bound, mpi_bound);
}

void requests_finalize() {
  wait_all();
  g_slots.clear();
  g_free_slots.clear();
  g_live_explicit = 0;
  g_implicit.clear();
  g_unflushed_ops.clear();
  g_unflushed_pairs.clear();
}

std::size_t requests_in_flight() {
  return static_cast<std::size_t>(
      std::count_if(g_slots.begin(), g_slots.end(), [](auto& r) { return r->in_use && !r->implicit; }));
}

}  // namespace armcix
