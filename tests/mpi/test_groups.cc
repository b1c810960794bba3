// Processor groups, direct local access (ARMCI_Access_begin/end) and origin buffers that lie in global
// memory (ARMCI_SHR_BUF_METHOD).
//
// Groups are created the way the configuration requires: collectively (every process of the parent calls
// ARMCI_Group_create / _create_child; non-members get a handle with comm == MPI_COMM_NULL) or, with
// ARMCI_NONCOLLECTIVE_GROUPS=1 in the environment, by the members only.  The tests read the same variable
// and pick the matching calling pattern, so one program covers both modes (see tests/manifest.txt).
// Expected group ranks and absolute ids are computed here from the rank lists, never read back from the
// library's own tables.
//
// Every rank runs every test and makes the same world-collective calls in the same order; group-collective
// calls are made by exactly the members.  Failures are EXPECTs, never early returns.
#include <message.h>
#include <strings.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "base/window.h"  // window_failure_hint, mpi_is_open_mpi
#include "test_util.h"

using namespace armcix_test;

namespace {

bool env_true(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return false;
  for (const char* w : {"1", "y", "yes", "true", "on"})
    if (strcasecmp(v, w) == 0) return true;
  return false;
}

bool noncollective() {
  return env_true("ARMCI_NONCOLLECTIVE_GROUPS");
}

char* op(const char* o) {
  return const_cast<char*>(o);
}

std::vector<int> iota_ranks(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

int index_of(const std::vector<int>& v, int x) {
  auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// What a process holds for a group it never took part in creating.
void blank(ARMCI_Group* g) {
  std::memset(g, 0, sizeof *g);
  g->comm = MPI_COMM_NULL;
  g->noncoll_pgroup_comm = MPI_COMM_NULL;
  g->rank = -1;
}

struct Handle {
  ARMCI_Group g;
  bool held = false;     // this process made the creation call (and frees the handle)
  bool member = false;   // this process is in the group
  std::vector<int> abs;  // expected absolute rank of each group rank
};

// Creates the group of `list` (ranks relative to `parent`, or to the current default group when parent
// is NULL).  `parent_abs` is the expected absolute rank of each parent rank.  Processes outside the parent
// never call; outside the new group they call only in collective mode.
Handle make(const std::vector<int>& list, const std::vector<int>& parent_abs, ARMCI_Group* parent = nullptr) {
  Handle h;
  blank(&h.g);
  for (int x : list) h.abs.push_back(x >= 0 && x < static_cast<int>(parent_abs.size()) ? parent_abs[x] : -1);
  const int my_parent_rank = index_of(parent_abs, me());
  if (my_parent_rank < 0) return h;
  h.member = index_of(list, my_parent_rank) >= 0;
  if (noncollective() && !h.member) return h;
  int* l = const_cast<int*>(list.data());
  const int size = static_cast<int>(list.size());
  if (parent)
    ARMCI_Group_create_child(size, l, &h.g, parent);
  else
    ARMCI_Group_create(size, l, &h.g);
  h.held = true;
  return h;
}

void release(Handle* h) {
  if (h->held) ARMCI_Group_free(&h->g);
  h->held = false;
}

// Everything a process can observe about a group whose group rank i is absolute rank abs[i].  The
// communicator is exercised directly (GA reads .comm and calls MPI on it).
void expect_group(ARMCI_Group* g, const std::vector<int>& abs) {
  const int my = index_of(abs, me());
  const int size = static_cast<int>(abs.size());
  if (my < 0) {
    EXPECT_EQ(g->comm, MPI_COMM_NULL) << "a non-member's handle must have comm == MPI_COMM_NULL";
    int r = 12345;
    ARMCI_Group_rank(g, &r);
    EXPECT_EQ(r, -1) << "ARMCI_Group_rank of a non-member";
    return;
  }
  ASSERT_NE(g->comm, MPI_COMM_NULL);
  int r = -7, s = -7;
  EXPECT_EQ(ARMCI_Group_rank(g, &r), 0);
  ARMCI_Group_size(g, &s);
  EXPECT_EQ(r, my);
  EXPECT_EQ(s, size);
  EXPECT_EQ(g->rank, my);
  EXPECT_EQ(g->size, size);
  int cr = -1, cs = -1;
  MPI_Comm_rank(g->comm, &cr);
  MPI_Comm_size(g->comm, &cs);
  EXPECT_EQ(cr, my);
  EXPECT_EQ(cs, size);
  for (int i = 0; i < size; ++i) {
    EXPECT_EQ(ARMCI_Absolute_id(g, i), abs[i]) << "group rank " << i;
    ASSERT_NE(g->grp_to_abs, nullptr);
    EXPECT_EQ(g->grp_to_abs[i], abs[i]) << "grp_to_abs[" << i << "]";
    ASSERT_NE(g->abs_to_grp, nullptr);
    EXPECT_EQ(g->abs_to_grp[abs[i]], i) << "abs_to_grp[" << abs[i] << "]";
  }
  // The communicator's rank order is the group's: gather the world ranks over it.
  std::vector<int> gathered(size, -1);
  int mine = me();
  MPI_Allgather(&mine, 1, MPI_INT, gathered.data(), 1, MPI_INT, g->comm);
  EXPECT_EQ(gathered, abs);
}

// Group allocation and RMA among the members (members only): every member puts a tagged value into its
// slot of every member's slice, accumulates into a sum and fetch-and-adds a counter, addressing each
// target by ARMCI_Absolute_id.  Slices have different sizes (by group rank).
void exercise_rma(ARMCI_Group* g, const std::vector<int>& abs) {
  const int gs = static_cast<int>(abs.size()), gr = index_of(abs, me());
  ASSERT_GE(gr, 0);
  const int words = gs + 2;  // [0, gs): put slots, gs: acc sum, gs + 1: Rmw counter
  std::vector<void*> ptrs(gs, nullptr);
  EXPECT_EQ(ARMCI_Malloc_group(ptrs.data(), static_cast<armci_size_t>((words + gr) * sizeof(long)), g), 0);
  long* mine = static_cast<long*>(ptrs[gr]);
  ARMCI_Access_begin(mine);
  for (int i = 0; i < words + gr; ++i) mine[i] = i < gs ? -1 : 0;
  ARMCI_Access_end(mine);
  armci_msg_group_barrier(g);
  std::vector<long> olds;
  for (int k = 0; k < gs; ++k) {
    const int t = (gr + k) % gs;
    const int p = ARMCI_Absolute_id(g, t);
    EXPECT_EQ(p, abs[t]);
    long* base = static_cast<long*>(ptrs[t]);
    long v = 1000L * me() + t;
    ARMCI_Put(&v, base + gr, sizeof v, p);
    long inc = me() + 1, one = 1;
    ARMCI_Acc(ARMCI_ACC_LNG, &one, &inc, base + gs, sizeof inc, p);
    long old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, base + gs + 1, 1, p);
    EXPECT_GE(old, 0);
    EXPECT_LT(old, gs);
  }
  ARMCI_AllFence();
  armci_msg_group_barrier(g);
  long sum = 0;
  for (int a : abs) sum += a + 1;
  for (int t = 0; t < gs; ++t) {
    std::vector<long> got(words, -99);
    ARMCI_Get(ptrs[t], got.data(), words * sizeof(long), abs[t]);
    for (int s = 0; s < gs; ++s) EXPECT_EQ(got[s], 1000L * abs[s] + t) << "slot " << s << " of group rank " << t;
    EXPECT_EQ(got[gs], sum) << "acc sum at group rank " << t;
    EXPECT_EQ(got[gs + 1], gs) << "Rmw counter at group rank " << t;
  }
  ARMCI_Access_begin(mine);
  EXPECT_EQ(mine[gs], sum);
  ARMCI_Access_end(mine);
  armci_msg_group_barrier(g);
  ARMCI_Free_group(mine, g);
}

// Group collectives (members only).  Inputs are functions of the world rank; expected results are
// computed over `abs`.
void exercise_collectives(ARMCI_Group* g, const std::vector<int>& abs) {
  armci_msg_group_barrier(g);
  parmci_msg_group_barrier(g);
  const int r = me();
  long long sum = 0, prod = 1;
  int mx = abs[0], mn = abs[0];
  for (int a : abs) {
    sum += a;
    prod *= a + 1;
    mx = std::max(mx, a);
    mn = std::min(mn, a);
  }
  {
    int x[3] = {r, r, r};
    armci_msg_group_igop(x, 1, op("+"), g);
    armci_msg_group_igop(x + 1, 1, op("max"), g);
    armci_msg_group_igop(x + 2, 1, op("min"), g);
    EXPECT_EQ(x[0], sum);
    EXPECT_EQ(x[1], mx);
    EXPECT_EQ(x[2], mn);
  }
  {
    long x[2] = {r + 1L, -(r + 1L)};
    armci_msg_group_lgop(x, 1, op("*"), g);
    armci_msg_group_lgop(x + 1, 1, op("absmax"), g);
    EXPECT_EQ(x[0], prod);
    EXPECT_EQ(x[1], mx + 1);
  }
  {
    long long x[2] = {1LL << 40 | r, r};
    armci_msg_group_llgop(x, 2, op("+"), g);
    EXPECT_EQ(x[0], static_cast<long long>(abs.size()) * (1LL << 40) + sum);
    EXPECT_EQ(x[1], sum);
  }
  {
    float x[2] = {r + 0.5f, r + 0.25f};
    armci_msg_group_fgop(x, 2, op("max"), g);
    EXPECT_EQ(x[0], mx + 0.5f);
    EXPECT_EQ(x[1], mx + 0.25f);
  }
  {
    double x[2] = {r + 0.5, -(r + 1.5)};
    armci_msg_group_dgop(x, 1, op("+"), g);
    armci_msg_group_dgop(x + 1, 1, op("absmin"), g);
    EXPECT_EQ(x[0], sum + 0.5 * abs.size());
    EXPECT_EQ(x[1], mn + 1.5);
  }
  // Broadcast from every member; the root is its ABSOLUTE rank.
  for (int root : abs) {
    long v[2] = {-1, -1};
    if (r == root) v[0] = 7000 + root, v[1] = -root;
    armci_msg_group_bcast_scope(SCOPE_ALL, v, sizeof v, root, g);
    EXPECT_EQ(v[0], 7000 + root) << "absolute root " << root;
    EXPECT_EQ(v[1], -root) << "absolute root " << root;
  }
  // Scoped reductions: the whole group, and the members in my domain.  SCOPE_NODE means the node as
  // armci_domain_* reports it (doc/design.md, "Topology"): under round-robin placement (cliques) every rank is
  // its own domain, and Global Arrays sums a mirrored array's dot product over SCOPE_NODE, one copy per domain.
  std::vector<int> node_members;
  for (int a : abs)
    if (armci_domain_same_id(ARMCI_DOMAIN_SMP, a)) node_members.push_back(a);
  long long node_sum = 0;
  for (int a : node_members) node_sum += a;
  int xa = r, xn = r;
  armci_msg_group_gop_scope(SCOPE_ALL, &xa, 1, op("+"), ARMCI_INT, g);
  armci_msg_group_gop_scope(SCOPE_NODE, &xn, 1, op("+"), ARMCI_INT, g);
  EXPECT_EQ(xa, sum);
  EXPECT_EQ(xn, node_sum);
  for (int root : node_members) {
    int v = r == root ? 300 + root : -1;
    armci_msg_group_bcast_scope(SCOPE_NODE, &v, sizeof v, root, g);
    EXPECT_EQ(v, 300 + root) << "SCOPE_NODE, absolute root " << root;
  }
  armci_msg_group_barrier(g);
}

}  // namespace

// ---- groups ----------------------------------------------------------------------------------------------

TEST(Groups, WorldAndDefault) {
  const std::vector<int> all = iota_ranks(nproc());
  ARMCI_Group w, d;
  ARMCI_Group_get_world(&w);
  ARMCI_Group_get_default(&d);
  expect_group(&w, all);
  expect_group(&d, all);
  EXPECT_EQ(d.comm, w.comm) << "the default group starts as the world group";
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(w.comm, MPI_COMM_WORLD, &cmp);
  EXPECT_TRUE(cmp == MPI_IDENT || cmp == MPI_CONGRUENT) << cmp;
  exercise_collectives(&w, all);
  exercise_rma(&w, all);
}

// The even and the odd world ranks as two groups, both created on every process (in collective mode the
// non-members call too).
struct ParityGroups {
  Handle even, odd;
  Handle& mine() { return me() % 2 ? odd : even; }
};
ParityGroups make_parity_groups() {
  const int n = nproc();
  const std::vector<int> all = iota_ranks(n);
  std::vector<int> even, odd;
  for (int p = 0; p < n; ++p) (p % 2 ? odd : even).push_back(p);
  ParityGroups pg;
  pg.even = make(even, all);
  pg.odd = make(odd, all);
  return pg;
}

TEST(Groups, OddEvenSubgroups) {
  ParityGroups pg = make_parity_groups();
  Handle& he = pg.even;
  Handle& ho = pg.odd;
  Handle& mine = me() % 2 ? ho : he;
  Handle& other = me() % 2 ? he : ho;
  EXPECT_TRUE(mine.member);
  EXPECT_FALSE(other.member);
  EXPECT_EQ(other.held, !noncollective());
  expect_group(&mine.g, mine.abs);
  if (other.held) expect_group(&other.g, other.abs);
  exercise_rma(&mine.g, mine.abs);
  exercise_collectives(&mine.g, mine.abs);
  release(&he);
  release(&ho);
}

// One call in which each process passes its own parity class: the lists differ between processes but are
// disjoint, which MPI_Comm_create allows and GA does (a group per node); the collective check accepts it.
TEST(Groups, DisjointListsInOneCall) {
  const int n = nproc(), r = me();
  std::vector<int> mine;
  for (int p = r % 2; p < n; p += 2) mine.push_back(p);
  ARMCI_Group g;
  ARMCI_Group_create(static_cast<int>(mine.size()), mine.data(), &g);
  int size = -1, rank = -1;
  ARMCI_Group_size(&g, &size);
  ARMCI_Group_rank(&g, &rank);
  EXPECT_EQ(size, static_cast<int>(mine.size()));
  EXPECT_EQ(rank, r / 2);
  EXPECT_EQ(ARMCI_Absolute_id(&g, rank), r);
  ARMCI_Group_free(&g);
  ARMCI_Barrier();
}

// A window that MPI cannot create says why when the reason is known: Debian's Open MPI has no one-sided
// component for windows between nodes over TCP, and its bare "MPI_ERR_WIN: invalid window" names no setting.
TEST(WindowFailure, HintOnlyForOpenMpiWindowErrors) {
  const std::string hint = armcix::window_failure_hint(MPI_ERR_WIN);
  if (armcix::mpi_is_open_mpi()) {
    EXPECT_NE(hint.find("OMPI_MCA_pml=ucx OMPI_MCA_osc=^pt2pt"), std::string::npos) << hint;
  } else {
    EXPECT_EQ(hint, "");
  }
  EXPECT_STREQ(armcix::window_failure_hint(MPI_ERR_OTHER), "");
  EXPECT_STREQ(armcix::window_failure_hint(MPI_ERR_NO_MEM), "");
}

// Two disjoint groups allocate and free at the same time, many times over: on Open MPI 4.1 their
// communicators share a context id, and osc/rdma named both windows' shared-memory files alike (issue
// 7393; src/base/window.h), which failed window creation or corrupted data in 2 of 10 runs of GA's group
// test before window creation was gated.  Each allocation is checked by a put to the next member.
TEST(Groups, DisjointGroupsAllocateAtTheSameTime) {
  const int cycles = nproc() <= 2 ? 20 : 40;
  ParityGroups pg = make_parity_groups();
  Handle& he = pg.even;
  Handle& ho = pg.odd;
  Handle& mine = pg.mine();
  const int gs = static_cast<int>(mine.abs.size()), gr = index_of(mine.abs, me());
  ASSERT_GE(gr, 0);
  int bad = 0;
  for (int c = 0; c < cycles; ++c) {
    std::vector<void*> ptrs(gs, nullptr);
    ASSERT_EQ(ARMCI_Malloc_group(ptrs.data(), static_cast<armci_size_t>((1 + c % 3) * sizeof(long)), &mine.g), 0);
    const int t = (gr + 1) % gs;
    long v = 1000L * c + me();
    ARMCI_Put(&v, ptrs[t], sizeof v, mine.abs[t]);
    ARMCI_Fence(mine.abs[t]);
    armci_msg_group_barrier(&mine.g);
    ARMCI_Access_begin(ptrs[gr]);
    const long got = *static_cast<long*>(ptrs[gr]);
    ARMCI_Access_end(ptrs[gr]);
    if (got != 1000L * c + mine.abs[(gr + gs - 1) % gs]) ++bad;
    armci_msg_group_barrier(&mine.g);
    ARMCI_Free_group(ptrs[gr], &mine.g);
  }
  EXPECT_EQ(bad, 0) << "allocations whose put did not arrive";
  release(&he);
  release(&ho);
}

// Group rank i is the i-th entry of the list, whatever its order.
TEST(Groups, ListOrderDefinesGroupRanks) {
  const int n = nproc();
  const std::vector<int> all = iota_ranks(n);
  std::vector<int> rev(all.rbegin(), all.rend());
  std::vector<int> ends = {n - 1, 0};
  // Three members out of order (an odd size: one member waits a level in noncollective creation).
  std::vector<int> three = {n - 1, 0, n - 2};
  if (n < 3) three = {n - 1};
  Handle hr = make(rev, all);
  Handle hx = make(ends, all);
  Handle h3 = make(three, all);
  expect_group(&hr.g, hr.abs);
  exercise_collectives(&hr.g, hr.abs);
  for (Handle* h : {&hx, &h3}) {
    if (h->held) expect_group(&h->g, h->abs);
    if (h->member) {
      exercise_rma(&h->g, h->abs);
      exercise_collectives(&h->g, h->abs);
    }
  }
  release(&h3);
  release(&hx);
  release(&hr);
}

TEST(Groups, GroupsOfOne) {
  const int n = nproc(), r = me();
  const std::vector<int> all = iota_ranks(n);
  std::vector<Handle> hs;
  for (int p = 0; p < n; ++p) hs.push_back(make({p}, all));
  for (int p = 0; p < n; ++p) {
    EXPECT_EQ(hs[p].member, p == r);
    if (hs[p].held) expect_group(&hs[p].g, hs[p].abs);
  }
  Handle& self = hs[r];
  exercise_rma(&self.g, {r});
  exercise_collectives(&self.g, {r});
  // A child of a group of one.
  Handle child = make({0}, {r}, &self.g);
  EXPECT_TRUE(child.member);
  expect_group(&child.g, {r});
  exercise_rma(&child.g, {r});
  release(&child);
  for (auto& h : hs) release(&h);
}

// Two groups sharing a process: A = {0..n/2}, B = {n/2..n-1}.  Allocations on both are alive at once.
TEST(Groups, OverlappingGroups) {
  const int n = nproc(), r = me(), mid = n / 2;
  const std::vector<int> all = iota_ranks(n);
  std::vector<int> la, lb;
  for (int p = 0; p <= mid; ++p) la.push_back(p);
  for (int p = mid; p < n; ++p) lb.push_back(p);
  Handle a = make(la, all);
  Handle b = make(lb, all);
  EXPECT_EQ(a.member, r <= mid);
  EXPECT_EQ(b.member, r >= mid);
  for (Handle* h : {&a, &b}) {
    if (h->held) expect_group(&h->g, h->abs);
    if (h->member) {
      exercise_collectives(&h->g, h->abs);
      exercise_rma(&h->g, h->abs);
    }
  }
  // Both allocations alive; the shared process targets both.
  std::vector<void*> pa(la.size(), nullptr), pb(lb.size(), nullptr);
  if (a.member) ARMCI_Malloc_group(pa.data(), sizeof(long), &a.g);
  if (b.member) ARMCI_Malloc_group(pb.data(), sizeof(long), &b.g);
  for (Handle* h : {&a, &b}) {
    if (!h->member) continue;
    long* mine = static_cast<long*>((h == &a ? pa : pb)[h->g.rank]);
    ARMCI_Access_begin(mine);
    *mine = 0;
    ARMCI_Access_end(mine);
  }
  ARMCI_Barrier();
  for (Handle* h : {&a, &b}) {
    if (!h->member) continue;
    std::vector<void*>& p = h == &a ? pa : pb;
    long scale = h == &a ? 1 : 100;
    for (int t = 0; t < h->g.size; ++t) {
      long inc = (r + 1) * scale, one = 1;
      ARMCI_Acc(ARMCI_ACC_LNG, &one, &inc, p[t], sizeof inc, ARMCI_Absolute_id(&h->g, t));
    }
  }
  ARMCI_Barrier();
  for (Handle* h : {&a, &b}) {
    if (!h->member) continue;
    std::vector<void*>& p = h == &a ? pa : pb;
    long want = 0;
    for (int x : h->abs) want += (x + 1) * (h == &a ? 1 : 100);
    for (int t = 0; t < h->g.size; ++t) {
      long got = -1;
      ARMCI_Get(p[t], &got, sizeof got, h->abs[t]);
      EXPECT_EQ(got, want) << (h == &a ? "A" : "B") << " group rank " << t;
    }
  }
  ARMCI_Barrier();
  if (a.member) ARMCI_Free_group(pa[a.g.rank], &a.g);
  if (b.member) ARMCI_Free_group(pb[b.g.rank], &b.g);
  release(&a);
  release(&b);
}

// Children of children: ranks of each create_child call are relative to its parent.
TEST(Groups, ChildrenOfChildren) {
  const int n = nproc(), r = me();
  const std::vector<int> all = iota_ranks(n);
  const std::vector<int> rev(all.rbegin(), all.rend());
  Handle p = make(rev, all);  // parent: world reversed
  // Child: the parent's even ranks, in reverse order.
  std::vector<int> clist;
  for (int i = 0; i < n; i += 2) clist.insert(clist.begin(), i);
  Handle c = make(clist, p.abs, &p.g);
  // Grandchild: the child's last rank.
  std::vector<int> glist = {static_cast<int>(clist.size()) - 1};
  Handle gc = make(glist, c.abs, &c.g);
  EXPECT_TRUE(p.member);
  expect_group(&p.g, p.abs);
  if (c.held) expect_group(&c.g, c.abs);
  if (gc.held) expect_group(&gc.g, gc.abs);
  // The expectations composed by hand for the parent's known layout.
  for (std::size_t i = 0; i < clist.size(); ++i) EXPECT_EQ(c.abs[i], n - 1 - clist[i]);
  EXPECT_EQ(gc.abs[0], n - 1 - clist.back());
  if (c.member) {
    exercise_rma(&c.g, c.abs);
    exercise_collectives(&c.g, c.abs);
  }
  if (gc.member) exercise_rma(&gc.g, gc.abs);
  // A process outside the child may not create children of it.
  if (c.held && !c.member) {
    ARMCI_Group out;
    int zero = 0;
    EXPECT_ARMCI_ERROR(ARMCI_Group_create_child(1, &zero, &out, &c.g), "ARMCI_Group_create_child", "not a member");
  }
  // Freeing a parent leaves its children working.
  release(&p);
  if (c.member) exercise_collectives(&c.g, c.abs);
  release(&gc);
  release(&c);
  (void)r;
}

// After ARMCI_Group_set_default, ARMCI_Group_create takes ranks relative to the new default.
TEST(Groups, SetDefaultChangesCreateBase) {
  const int n = nproc();
  const std::vector<int> all = iota_ranks(n);
  std::vector<int> dlist;  // every rank but 0, reversed (a group of one at 2 ranks)
  for (int p = n - 1; p >= 1; --p) dlist.push_back(p);
  Handle d = make(dlist, all);
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  if (d.member) {
    ARMCI_Group_set_default(&d.g);
    ARMCI_Group cur;
    ARMCI_Group_get_default(&cur);
    EXPECT_EQ(cur.comm, d.g.comm);
    expect_group(&cur, d.abs);
    std::vector<int> sub = {0};
    if (dlist.size() > 1) sub = {static_cast<int>(dlist.size()) - 1, 0};
    Handle s = make(sub, d.abs);  // parent: the default group, i.e. d
    for (std::size_t i = 0; i < sub.size(); ++i) EXPECT_EQ(s.abs[i], dlist[sub[i]]);
    if (s.held) expect_group(&s.g, s.abs);
    if (s.member) {
      exercise_rma(&s.g, s.abs);
      exercise_collectives(&s.g, s.abs);
    }
    release(&s);
    // ARMCI_Malloc and ARMCI_Barrier stay on the world group (below); restore the world default.
    ARMCI_Group_set_default(&world);
  }
  ARMCI_Barrier();
  {
    ARMCI_Group cur;
    ARMCI_Group_get_default(&cur);
    EXPECT_EQ(cur.comm, world.comm);
    expect_group(&cur, all);
  }
  // Relative to the world again.
  Handle t = make({n - 1}, all);
  EXPECT_EQ(t.abs[0], n - 1);
  if (t.held) expect_group(&t.g, t.abs);
  release(&t);
  // Freeing the group that is the default falls back to the world group.
  Handle e = make(std::vector<int>(all.rbegin(), all.rend()), all);
  ARMCI_Group_set_default(&e.g);
  release(&e);
  ARMCI_Group cur;
  ARMCI_Group_get_default(&cur);
  EXPECT_EQ(cur.comm, world.comm);
  expect_group(&cur, all);
  release(&d);
}

TEST(Groups, SplitAndDup) {
  const int n = nproc(), r = me();
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  // Same parity, ordered by key = -rank: descending world ranks.
  std::vector<int> want;
  for (int p = n - 1; p >= 0; --p)
    if (p % 2 == r % 2) want.push_back(p);
  ARMCI_Group s, d;
  EXPECT_EQ(ARMCIX_Group_split(&world, r % 2, -r, &s), 0);
  expect_group(&s, want);
  EXPECT_EQ(ARMCIX_Group_dup(&s, &d), 0);
  expect_group(&d, want);
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(d.comm, s.comm, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);
  exercise_rma(&d, want);
  exercise_collectives(&s, want);
  // Children of a split group.
  Handle c = make({0}, want, &s);
  if (c.held) expect_group(&c.g, c.abs);
  release(&c);
  // Split with MPI_UNDEFINED: group rank 0 of s gets no group.  (What freeing that handle does is not
  // defined: ARMCI-MPI 0.3.1 frees the uninitialised table pointers of it.)
  ARMCI_Group u;
  EXPECT_EQ(ARMCIX_Group_split(&s, s.rank == 0 ? MPI_UNDEFINED : 1, 0, &u), 0);
  if (s.rank == 0) {
    EXPECT_EQ(u.comm, MPI_COMM_NULL);
    EXPECT_EQ(u.rank, -1);
  } else {
    const std::vector<int> rest(want.begin() + 1, want.end());
    expect_group(&u, rest);
    exercise_collectives(&u, rest);
    ARMCI_Group_free(&u);
  }
  ARMCI_Group_free(&d);
  ARMCI_Group_free(&s);
}

// GA copies ARMCI_Group structs and uses the copies; it reads .comm and calls MPI on it.
TEST(Groups, CopiesOfTheStructWork) {
  const int n = nproc(), r = me();
  const std::vector<int> all = iota_ranks(n);
  std::vector<int> list;
  for (int p = 0; p < n; ++p) list.push_back((p + 1) % n);  // rotated: group rank != world rank
  Handle h = make(list, all);
  ARMCI_Group copy = h.g;
  expect_group(&copy, h.abs);
  int sum = r;
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, copy.comm);
  EXPECT_EQ(sum, n * (n - 1) / 2);
  std::vector<void*> ptrs(n, nullptr);
  ARMCI_Malloc_group(ptrs.data(), 2 * sizeof(int), &copy);
  int* mine = static_cast<int*>(ptrs[copy.rank]);
  ARMCI_Access_begin(mine);
  mine[0] = mine[1] = 0;
  ARMCI_Access_end(mine);
  ARMCI_Barrier();
  const int next = (copy.rank + 1) % n;
  int v = 10 + r;
  ARMCI_Put(&v, ptrs[next], sizeof v, ARMCI_Absolute_id(&copy, next));
  ARMCI_Barrier();
  ARMCI_Access_begin(mine);
  const int prev_abs = h.abs[(copy.rank + n - 1) % n];
  EXPECT_EQ(mine[0], 10 + prev_abs);
  ARMCI_Access_end(mine);
  ARMCI_Free_group(mine, &h.g);  // allocated with the copy, freed with the original
  release(&h);
}

// Group allocations where some members (or all) ask for 0 bytes: their pointer is NULL everywhere and
// they free with NULL.
TEST(Groups, GroupAllocationWithEmptySlices) {
  const int n = nproc();
  const std::vector<int> all = iota_ranks(n);
  Handle h = make(std::vector<int>(all.rbegin(), all.rend()), all);  // group rank 0 is world rank n-1
  const int gr = h.g.rank;
  std::vector<void*> ptrs(n, reinterpret_cast<void*>(0x1));
  ARMCI_Malloc_group(ptrs.data(), gr == 0 ? 0 : static_cast<armci_size_t>(sizeof(long)), &h.g);
  EXPECT_EQ(ptrs[0], nullptr) << "the empty slice";
  for (int t = 1; t < n; ++t) EXPECT_NE(ptrs[t], nullptr) << "group rank " << t;
  if (gr != 0) {
    ARMCI_Access_begin(ptrs[gr]);
    *static_cast<long*>(ptrs[gr]) = 0;
    ARMCI_Access_end(ptrs[gr]);
  }
  ARMCI_Barrier();
  for (int t = 1; t < n; ++t) {
    long one = 1, inc = gr + 1;
    ARMCI_Acc(ARMCI_ACC_LNG, &one, &inc, ptrs[t], sizeof inc, ARMCI_Absolute_id(&h.g, t));
  }
  ARMCI_Barrier();
  for (int t = 1; t < n; ++t) {
    long got = -1;
    ARMCI_Get(ptrs[t], &got, sizeof got, h.abs[t]);
    EXPECT_EQ(got, static_cast<long>(n) * (n + 1) / 2) << "group rank " << t;
  }
  ARMCI_Barrier();
  ARMCI_Free_group(ptrs[gr], &h.g);  // NULL on group rank 0
  // Nothing at all: every pointer NULL, freeing NULL is a no-op.
  std::vector<void*> none(n, reinterpret_cast<void*>(0x1));
  ARMCI_Malloc_group(none.data(), 0, &h.g);
  EXPECT_EQ(none, std::vector<void*>(n, nullptr));
  ARMCI_Free_group(none[gr], &h.g);
  release(&h);
}

// ---- bad input ---------------------------------------------------------------------------------------------

TEST(GroupsBadInput, CreationArguments) {
  const int n = nproc();
  ARMCI_Group out;
  blank(&out);
  int dup[2] = {0, 0};
  EXPECT_ARMCI_ERROR(ARMCI_Group_create(2, dup, &out), "ARMCI_Group_create", "'pid_list'", "twice");
  int high[2] = {0, n};
  EXPECT_ARMCI_ERROR(ARMCI_Group_create(2, high, &out), "ARMCI_Group_create", "'pid_list[1]'", "out of range");
  int low[1] = {-1};
  EXPECT_ARMCI_ERROR(ARMCI_Group_create(1, low, &out), "ARMCI_Group_create", "'pid_list[0]'", "out of range");
  int ok[1] = {0};
  EXPECT_ARMCI_ERROR(ARMCI_Group_create(-1, ok, &out), "ARMCI_Group_create", "'grp_size'");
  EXPECT_ARMCI_ERROR(ARMCI_Group_create(1, nullptr, &out), "ARMCI_Group_create", "'pid_list'");
  EXPECT_ARMCI_ERROR(ARMCI_Group_create(1, ok, nullptr), "ARMCI_Group_create", "'group_out'");
  EXPECT_ARMCI_ERROR(ARMCI_Group_create_child(1, ok, &out, nullptr), "ARMCI_Group_create_child", "'group'");
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  // Ranks of a child list are checked against the parent's size, not the world's.
  Handle small = make({0}, iota_ranks(n));
  if (small.member) {
    int one[1] = {1};
    EXPECT_ARMCI_ERROR(ARMCI_Group_create_child(1, one, &out, &small.g), "ARMCI_Group_create_child", "'pid_list[0]'",
                       "out of range");
  }
  release(&small);
  EXPECT_ARMCI_ERROR(ARMCI_Group_get_world(nullptr), "ARMCI_Group_get_world", "'group_out'");
  EXPECT_ARMCI_ERROR(ARMCI_Group_get_default(nullptr), "ARMCI_Group_get_default", "'group_out'");
  EXPECT_ARMCI_ERROR(ARMCI_Group_rank(&world, nullptr), "ARMCI_Group_rank", "'rank'");
  EXPECT_ARMCI_ERROR(ARMCI_Group_size(&world, nullptr), "ARMCI_Group_size", "'size'");
  int r;
  EXPECT_ARMCI_ERROR(ARMCI_Group_rank(nullptr, &r), "ARMCI_Group_rank", "'group'");
  EXPECT_ARMCI_ERROR(ARMCIX_Group_split(&world, 0, 0, nullptr), "ARMCIX_Group_split", "'new_group'");
  EXPECT_ARMCI_ERROR(ARMCIX_Group_dup(&world, nullptr), "ARMCIX_Group_dup", "'new_group'");
  // A struct that was never created.
  ARMCI_Group junk;
  blank(&junk);
  EXPECT_ARMCI_ERROR(ARMCI_Group_size(&junk, &r), "ARMCI_Group_size", "'group'");
  // The world group still works after all that.
  expect_group(&world, iota_ranks(n));
}

TEST(GroupsBadInput, AbsoluteIdOutOfRange) {
  const int n = nproc();
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  EXPECT_ARMCI_ERROR(ARMCI_Absolute_id(&world, -1), "ARMCI_Absolute_id", "'group_rank' = -1");
  EXPECT_ARMCI_ERROR(ARMCI_Absolute_id(&world, n), "ARMCI_Absolute_id", "'group_rank'");
  EXPECT_ARMCI_ERROR(ARMCI_Absolute_id(nullptr, 0), "ARMCI_Absolute_id", "'group'");
  Handle h = make({n - 1}, iota_ranks(n));
  if (h.member) {
    EXPECT_EQ(ARMCI_Absolute_id(&h.g, 0), n - 1);
    EXPECT_ARMCI_ERROR(ARMCI_Absolute_id(&h.g, 1), "ARMCI_Absolute_id", "'group_rank' = 1");
  }
  release(&h);
}

TEST(GroupsBadInput, FreedGroup) {
  const int n = nproc();
  Handle h = make(iota_ranks(n), iota_ranks(n));
  ARMCI_Group copy = h.g;  // a copy taken before the free goes stale with it
  release(&h);
  int r = 0;
  std::vector<void*> ptrs(n, nullptr);
  for (ARMCI_Group* g : {&h.g, &copy}) {
    SCOPED_TRACE(g == &h.g ? "the freed struct" : "a copy of the freed struct");
    EXPECT_ARMCI_ERROR(ARMCI_Group_rank(g, &r), "ARMCI_Group_rank", "not a live group");
    EXPECT_ARMCI_ERROR(ARMCI_Group_size(g, &r), "ARMCI_Group_size", "not a live group");
    EXPECT_ARMCI_ERROR(ARMCI_Absolute_id(g, 0), "ARMCI_Absolute_id", "not a live group");
    EXPECT_ARMCI_ERROR(ARMCI_Malloc_group(ptrs.data(), 64, g), "ARMCI_Malloc_group", "not a live group");
    EXPECT_ARMCI_ERROR(ARMCI_Group_free(g), "ARMCI_Group_free", "not a live group");
    EXPECT_ARMCI_ERROR(ARMCI_Group_set_default(g), "ARMCI_Group_set_default", "not a live group");
    EXPECT_ARMCI_ERROR(armci_msg_group_barrier(g), "armci_msg_group_barrier", "not a live group");
    int zero = 0;
    ARMCI_Group out;
    EXPECT_ARMCI_ERROR(ARMCI_Group_create_child(1, &zero, &out, g), "ARMCI_Group_create_child", "not a live group");
  }
}

// A process holding a non-member handle cannot allocate or communicate on it.  Non-members may call
// creation in both modes (with ARMCI_NONCOLLECTIVE_GROUPS=1 the members alone create the group and a
// non-member's call just returns its handle, as in ARMCI-MPI: GA's pgroup_create calls on every process).
TEST(GroupsBadInput, NonMemberHandle) {
  Handle h;
  blank(&h.g);
  int zero = 0;
  ARMCI_Group_create(1, &zero, &h.g);
  h.held = true;
  h.member = me() == 0;
  if (!h.member) {
    std::vector<void*> ptrs(1, nullptr);
    EXPECT_ARMCI_ERROR(ARMCI_Malloc_group(ptrs.data(), 64, &h.g), "ARMCI_Malloc_group", "not a member");
    EXPECT_ARMCI_ERROR(ARMCI_Absolute_id(&h.g, 0), "ARMCI_Absolute_id", "not a member");
    EXPECT_ARMCI_ERROR(ARMCI_Group_set_default(&h.g), "ARMCI_Group_set_default", "not a member");
    EXPECT_ARMCI_ERROR(armci_msg_group_barrier(&h.g), "armci_msg_group_barrier", "not a member");
    int x = 1;
    EXPECT_ARMCI_ERROR(armci_msg_group_igop(&x, 1, op("+"), &h.g), "armci_msg_group_igop", "not a member");
    int zero = 0;
    ARMCI_Group out;
    EXPECT_ARMCI_ERROR(ARMCI_Group_create_child(1, &zero, &out, &h.g), "ARMCI_Group_create_child", "not a member");
  }
  release(&h);
}

TEST(GroupsBadInput, WorldGroupCannotBeFreed) {
  const int n = nproc();
  ARMCI_Group world, def;
  ARMCI_Group_get_world(&world);
  ARMCI_Group_get_default(&def);
  EXPECT_ARMCI_ERROR(ARMCI_Group_free(&world), "ARMCI_Group_free", "world group");
  EXPECT_ARMCI_ERROR(ARMCI_Group_free(&def), "ARMCI_Group_free", "world group");
  ARMCI_Group again;
  ARMCI_Group_get_world(&again);
  expect_group(&again, iota_ranks(n));
}

TEST(GroupsBadInput, FreeGroupWithAnotherGroup) {
  const int n = nproc();
  const std::vector<int> all = iota_ranks(n);
  Handle rev = make(std::vector<int>(all.rbegin(), all.rend()), all);
  std::vector<void*> ptrs(n, nullptr);
  ARMCI_Malloc_group(ptrs.data(), 64, &rev.g);
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  EXPECT_ARMCI_ERROR(ARMCI_Free_group(ptrs[rev.g.rank], &world), "ARMCI_Free_group", "different group");
  ARMCI_Free_group(ptrs[rev.g.rank], &rev.g);
  release(&rev);
}

// ---- direct local access -------------------------------------------------------------------------------

// The owner reads its slice inside Access_begin/end while every other rank accumulates into it.  Each
// increment is K (a torn 8-byte update leaves a value that is not a multiple of K) or 0.5 (doubles), so
// every observed value must be a whole number of increments, never more than the total and never less
// than what the owner saw before.  The owner's stores inside the bracket are seen by the others' gets.
TEST(DirectAccess, ConsistentUnderConcurrentAccumulates) {
  const int n = nproc(), r = me();
  const int elems = 32, reps = n > 2 ? 8 : 20, others = n - 1;
  const long K = 0x0001000100010001L;
  // Slice: [0, elems) longs accumulated, [elems, 2 elems) doubles accumulated, [2 elems, 3 elems) longs
  // stored by the owner.
  const std::size_t bytes = 3 * elems * 8;
  std::vector<void*> p(n, nullptr);
  ARMCI_Malloc(p.data(), bytes);
  long* acc_l = static_cast<long*>(p[r]);
  double* acc_d = reinterpret_cast<double*>(acc_l + elems);
  long* stored = acc_l + 2 * elems;
  ARMCI_Access_begin(acc_l);
  std::fill(acc_l, acc_l + elems, 0L);
  std::fill(acc_d, acc_d + elems, 0.0);
  std::fill(stored, stored + elems, -1L);
  ARMCI_Access_end(acc_l);
  ARMCI_Barrier();
  std::vector<long> inc_l(elems, K);
  std::vector<double> inc_d(elems, 0.5);
  long one = 1;
  double oned = 1.0;
  std::vector<long> last(elems, 0);
  long torn = 0, backwards = 0, too_big = 0, bad_double = 0;
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 1; k < n; ++k) {
      const int t = (r + k) % n;
      char* base = static_cast<char*>(p[t]);
      ARMCI_Acc(ARMCI_ACC_LNG, &one, inc_l.data(), base, elems * 8, t);
      ARMCI_Acc(ARMCI_ACC_DBL, &oned, inc_d.data(), base + elems * 8, elems * 8, t);
    }
    ARMCI_Access_begin(acc_l);
    for (int i = 0; i < elems; ++i) {
      const long v = acc_l[i];
      if (v % K != 0) {
        ++torn;
        continue;
      }
      const long c = v / K;
      if (c < last[i]) ++backwards;
      if (c > static_cast<long>(reps) * others) ++too_big;
      last[i] = c;
      const double d = acc_d[i];
      if (d < 0 || d > 0.5 * reps * others || 2 * d != static_cast<double>(static_cast<long>(2 * d))) ++bad_double;
      stored[i] = 1000L * r + rep;
    }
    ARMCI_Access_end(acc_l);
  }
  EXPECT_EQ(torn, 0) << "values that are not whole increments";
  EXPECT_EQ(backwards, 0) << "values that went back";
  EXPECT_EQ(too_big, 0) << "values beyond the total";
  EXPECT_EQ(bad_double, 0) << "double values that are not whole increments";
  ARMCI_Barrier();
  ARMCI_Access_begin(acc_l);
  long wrong = 0;
  for (int i = 0; i < elems; ++i) {
    wrong += acc_l[i] != K * reps * others;
    wrong += acc_d[i] != 0.5 * reps * others;
  }
  ARMCI_Access_end(acc_l);
  EXPECT_EQ(wrong, 0) << "final values after the barrier";
  for (int k = 0; k < n; ++k) {
    const int t = (r + k) % n;
    std::vector<long> got(elems, -5);
    ARMCI_Get(static_cast<long*>(p[t]) + 2 * elems, got.data(), elems * 8, t);
    EXPECT_EQ(got, std::vector<long>(elems, 1000L * t + reps - 1)) << "stores of rank " << t << " inside the bracket";
  }
  ARMCI_Barrier();
  ARMCI_Free(p[r]);
}

TEST(DirectAccess, NestingAndSeveralAllocations) {
  const int n = nproc(), r = me();
  std::vector<void*> pa(n), pb(n);
  ARMCI_Malloc(pa.data(), 64);
  ARMCI_Malloc(pb.data(), 64);
  long* a = static_cast<long*>(pa[r]);
  long* b = static_cast<long*>(pb[r]);
  ARMCI_Access_begin(a);
  ARMCI_Access_begin(a + 4);  // nested, interior pointer of the same allocation
  a[0] = r;
  ARMCI_Access_end(a + 4);
  a[1] = r + 100;  // still inside the outer bracket
  ARMCI_Access_end(a);
  EXPECT_ARMCI_ERROR(ARMCI_Access_end(a), "ARMCI_Access_end", "'ptr'", "no ARMCI_Access_begin is open");
  // Brackets on two allocations may interleave.
  ARMCI_Access_begin(a);
  ARMCI_Access_begin(b);
  b[0] = 2L * r;
  ARMCI_Access_end(a);
  b[1] = 3L * r;
  ARMCI_Access_end(b);
  // An open bracket on b does not count for a.
  ARMCI_Access_begin(b);
  EXPECT_ARMCI_ERROR(ARMCI_Access_end(a), "ARMCI_Access_end", "no ARMCI_Access_begin is open");
  ARMCI_Access_end(b);
  ARMCI_Barrier();
  const int t = (r + 1) % n;
  long got[2] = {-1, -1};
  ARMCI_Get(pa[t], got, sizeof got, t);
  EXPECT_EQ(got[0], t);
  EXPECT_EQ(got[1], t + 100);
  ARMCI_Get(pb[t], got, sizeof got, t);
  EXPECT_EQ(got[0], 2L * t);
  EXPECT_EQ(got[1], 3L * t);
  ARMCI_Barrier();
  // Freeing an allocation with a bracket open is refused (every rank has one open: same error everywhere).
  ARMCI_Access_begin(b);
  EXPECT_ARMCI_ERROR(ARMCI_Free(b), "ARMCI_Free", "ARMCI_Access_begin");
  ARMCI_Access_end(b);
  ARMCI_Free(b);
  ARMCI_Free(a);
}

TEST(DirectAccess, RejectsMemoryOutsideArmci) {
  const int n = nproc(), r = me();
  long on_stack = 0;
  std::vector<long> heap(8);
  void* local = ARMCI_Malloc_local(64);
  std::vector<void*> p(n);
  ARMCI_Malloc(p.data(), 64);
  for (void* bad : {static_cast<void*>(&on_stack), static_cast<void*>(heap.data()), local,
                    static_cast<void*>(static_cast<char*>(p[r]) + 64)}) {
    SCOPED_TRACE(bad);
    EXPECT_ARMCI_ERROR(ARMCI_Access_begin(bad), "ARMCI_Access_begin", "'ptr'", "not in this process's ARMCI_Malloc");
    EXPECT_ARMCI_ERROR(ARMCI_Access_end(bad), "ARMCI_Access_end", "'ptr'");
  }
  EXPECT_ARMCI_ERROR(ARMCI_Access_begin(nullptr), "ARMCI_Access_begin", "'ptr'");
  EXPECT_ARMCI_ERROR(ARMCI_Access_end(nullptr), "ARMCI_Access_end", "'ptr'");
  // My slice of a group allocation is ARMCI memory.
  ARMCI_Group world;
  ARMCI_Group_get_world(&world);
  std::vector<void*> pg(n);
  ARMCI_Malloc_group(pg.data(), 32, &world);
  ARMCI_Access_begin(static_cast<char*>(pg[r]) + 31);
  ARMCI_Access_end(pg[r]);
  ARMCI_Free_group(pg[r], &world);
  ARMCI_Free(p[r]);
  ARMCI_Free_local(local);
}

// ---- origin buffers in global memory -------------------------------------------------------------------------
//
// Every local (origin or result) buffer below lies in the caller's own ARMCI_Malloc slice: in a second
// allocation B, or in the target allocation A itself.  With ARMCI_SHR_BUF_METHOD=COPY the library stages
// such buffers; with NOGUARD it gives them to MPI as they are.  The manifest runs this with both, with
// ARMCI_SHM=0 (every transfer through MPI) and with the node path.

namespace {

constexpr int kE = 48;                 // doubles per contiguous block
constexpr int kRows = 4, kCols = 6;    // strided: kRows rows of kCols doubles
constexpr int kLd = 8, kLocalLd = 10;  // remote and local leading dimensions (doubles)
constexpr int kSB = kRows * kLd;       // doubles per strided block
constexpr int kSeg = 8, kNSeg = 4;     // vector: kNSeg segments of kSeg doubles, gap kSeg
constexpr int kVB = 2 * kSeg * kNSeg;  // doubles per vector block

// Value written by `origin` for `target` in transfer `kind`, element i: exact in a double, distinct
// across origins, targets, kinds and elements.
double val(int origin, int target, int kind, int i) {
  return origin * 100000.0 + target * 1000.0 + kind * 100.0 + i;
}

struct LayoutA {  // the target allocation, in doubles
  int n;
  int put() const { return 0; }                  // n blocks of kE: block p from origin p
  int acc() const { return n * kE; }             // kE, everybody accumulates
  int sput() const { return acc() + kE; }        // n strided blocks
  int sacc() const { return sput() + n * kSB; }  // one strided block, accumulated
  int vput() const { return sacc() + kSB; }      // n vector blocks
  int vacc() const { return vput() + n * kVB; }  // one vector block, accumulated
  int rmw() const { return vacc() + kVB; }       // one long counter
  int src() const { return rmw() + 1; }          // local source / landing area of the owner
  int total() const { return src() + kRows * kLocalLd + kE; }
};

struct LayoutB {                                          // the origin scratch allocation, in doubles
  int put() const { return 0; }                           // kE
  int acc() const { return kE; }                          // kE
  int sput() const { return 2 * kE; }                     // kRows * kLocalLd
  int sacc() const { return sput() + kRows * kLocalLd; }  // kRows * kLocalLd
  int vput() const { return sacc() + kRows * kLocalLd; }  // kVB
  int vacc() const { return vput() + kVB; }               // kVB
  int rmw() const { return vacc() + kVB; }                // one long
  int total() const { return rmw() + 1; }
};

}  // namespace

TEST(SharedOrigin, AllTransferKindsWithLocalBuffersInGlobalMemory) {
  const int n = nproc(), r = me();
  const LayoutA la{n};
  const LayoutB lb;
  std::vector<void*> pa(n), pb(n);
  ARMCI_Malloc(pa.data(), la.total() * sizeof(double));
  ARMCI_Malloc(pb.data(), lb.total() * sizeof(double));
  double* A = static_cast<double*>(pa[r]);
  double* B = static_cast<double*>(pb[r]);
  auto remote = [&](int t, int off) { return static_cast<double*>(pa[t]) + off; };
  ARMCI_Access_begin(A);
  std::fill(A, A + la.total(), -1.0);
  std::fill(A + la.acc(), A + la.acc() + kE, 0.0);
  std::fill(A + la.sacc(), A + la.sacc() + kSB, 0.0);
  std::fill(A + la.vacc(), A + la.vacc() + kVB, 0.0);
  *reinterpret_cast<long*>(A + la.rmw()) = 0;
  ARMCI_Access_end(A);
  ARMCI_Barrier();

  int lstride[1] = {kLocalLd * 8}, rstride[1] = {kLd * 8}, count[2] = {kCols * 8, kRows};
  const double one = 1.0, two = 2.0;
  std::vector<double> heap(kSeg);
  long bad_rmw = 0;
  // Phase 1: puts and accumulates to every target (myself included).
  for (int k = 0; k < n; ++k) {
    const int t = (r + k) % n;
    ARMCI_Access_begin(B);
    ARMCI_Access_begin(A);
    for (int i = 0; i < kE; ++i) B[lb.put() + i] = val(r, t, 0, i);
    for (int i = 0; i < kE; ++i) B[lb.acc() + i] = (r + 1) * (i + 1);
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kCols; ++j) {
        A[la.src() + i * kLocalLd + j] = val(r, t, 1, i * kCols + j);  // PutS from the target allocation
        B[lb.sacc() + i * kLocalLd + j] = (r + 1) * (i * kCols + j + 1);
      }
    for (int s = 0; s < kNSeg; ++s)
      for (int i = 0; i < kSeg; ++i) {
        B[lb.vput() + 2 * s * kSeg + i] = val(r, t, 2, s * kSeg + i);
        B[lb.vacc() + 2 * s * kSeg + i] = (r + 1) * (s * kSeg + i + 1);
      }
    ARMCI_Access_end(A);
    ARMCI_Access_end(B);
    ARMCI_Put(B + lb.put(), remote(t, la.put() + r * kE), kE * 8, t);
    ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&one), B + lb.acc(), remote(t, la.acc()), kE * 8, t);
    ARMCI_Acc(ARMCI_ACC_DBL, const_cast<double*>(&two), B + lb.acc(), remote(t, la.acc()), kE * 8, t);
    ARMCI_PutS(A + la.src(), lstride, remote(t, la.sput() + r * kSB), rstride, count, 1, t);
    ARMCI_AccS(ARMCI_ACC_DBL, const_cast<double*>(&one), B + lb.sacc(), lstride, remote(t, la.sacc()), rstride, count,
               1, t);
    // Vector put: segments from B, except segment 1 from the heap (mixed staged and unstaged buffers).
    std::vector<void*> vs(kNSeg), vd(kNSeg), as(kNSeg), ad(kNSeg);
    for (int i = 0; i < kSeg; ++i) heap[i] = val(r, t, 2, kSeg + i);
    for (int s = 0; s < kNSeg; ++s) {
      vs[s] = s == 1 ? static_cast<void*>(heap.data()) : static_cast<void*>(B + lb.vput() + 2 * s * kSeg);
      vd[s] = remote(t, la.vput() + r * kVB + 2 * s * kSeg);
      as[s] = B + lb.vacc() + 2 * s * kSeg;
      ad[s] = remote(t, la.vacc() + 2 * s * kSeg);
    }
    armci_giov_t pv{vs.data(), vd.data(), kSeg * 8, kNSeg};
    armci_giov_t av{as.data(), ad.data(), kSeg * 8, kNSeg};
    ARMCI_PutV(&pv, 1, t);
    ARMCI_AccV(ARMCI_ACC_DBL, const_cast<double*>(&one), &av, 1, t);
    long* ploc = reinterpret_cast<long*>(B + lb.rmw());
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, ploc, remote(t, la.rmw()), 1, t);
    ARMCI_Access_begin(B);
    bad_rmw += *ploc < 0 || *ploc >= n;
    ARMCI_Access_end(B);
  }
  EXPECT_EQ(bad_rmw, 0) << "values fetched by ARMCI_Rmw into global memory";
  ARMCI_Barrier();

  // Check my slice.
  const double origins = n * (n + 1) / 2.0;  // sum of (p + 1)
  ARMCI_Access_begin(A);
  for (int p = 0; p < n; ++p) {
    for (int i = 0; i < kE; ++i) EXPECT_EQ(A[la.put() + p * kE + i], val(p, r, 0, i)) << "Put from " << p << " @" << i;
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kLd; ++j)
        EXPECT_EQ(A[la.sput() + p * kSB + i * kLd + j], j < kCols ? val(p, r, 1, i * kCols + j) : -1.0)
            << "PutS from " << p << " row " << i << " col " << j;
    for (int s = 0; s < kNSeg; ++s)
      for (int i = 0; i < 2 * kSeg; ++i)
        EXPECT_EQ(A[la.vput() + p * kVB + 2 * s * kSeg + i], i < kSeg ? val(p, r, 2, s * kSeg + i) : -1.0)
            << "PutV from " << p << " segment " << s << " @" << i;
  }
  for (int i = 0; i < kE; ++i) EXPECT_EQ(A[la.acc() + i], 3 * origins * (i + 1)) << "Acc @" << i;
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kLd; ++j)
      EXPECT_EQ(A[la.sacc() + i * kLd + j], j < kCols ? origins * (i * kCols + j + 1) : 0.0)
          << "AccS " << i << "," << j;
  for (int s = 0; s < kNSeg; ++s)
    for (int i = 0; i < 2 * kSeg; ++i)
      EXPECT_EQ(A[la.vacc() + 2 * s * kSeg + i], i < kSeg ? origins * (s * kSeg + i + 1) : 0.0)
          << "AccV " << s << "," << i;
  EXPECT_EQ(*reinterpret_cast<long*>(A + la.rmw()), n);
  ARMCI_Access_end(A);
  ARMCI_Barrier();

  // Phase 2: gets into global memory (B, and the landing area of A), blocking and non-blocking.
  for (int k = 0; k < n; ++k) {
    const int t = (r + k) % n, q = (r + 1) % n;  // read what origin q wrote at target t
    ARMCI_Access_begin(B);
    std::fill(B, B + lb.total(), -2.0);
    ARMCI_Access_end(B);
    ARMCI_Get(remote(t, la.put() + q * kE), B + lb.put(), kE * 8, t);
    int gcount[2] = {kCols * 8, kRows};
    ARMCI_GetS(remote(t, la.sput() + q * kSB), rstride, B + lb.sput(), lstride, gcount, 1, t);
    std::vector<void*> vs(kNSeg), vd(kNSeg);
    for (int s = 0; s < kNSeg; ++s) {
      vs[s] = remote(t, la.vput() + q * kVB + 2 * s * kSeg);
      vd[s] = s == 2 ? static_cast<void*>(A + la.src() + s * kSeg) : static_cast<void*>(B + lb.vput() + 2 * s * kSeg);
    }
    armci_giov_t gv{vs.data(), vd.data(), kSeg * 8, kNSeg};
    ARMCI_GetV(&gv, 1, t);
    ARMCI_Access_begin(B);
    ARMCI_Access_begin(A);
    long wrong = 0;
    for (int i = 0; i < kE; ++i) wrong += B[lb.put() + i] != val(q, t, 0, i);
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kLocalLd; ++j)
        wrong += B[lb.sput() + i * kLocalLd + j] != (j < kCols ? val(q, t, 1, i * kCols + j) : -2.0);
    for (int s = 0; s < kNSeg; ++s)
      for (int i = 0; i < kSeg; ++i) {
        double got = s == 2 ? A[la.src() + s * kSeg + i] : B[lb.vput() + 2 * s * kSeg + i];
        wrong += got != val(q, t, 2, s * kSeg + i);
        if (s != 2) wrong += B[lb.vput() + 2 * s * kSeg + kSeg + i] != -2.0;  // gaps untouched
      }
    ARMCI_Access_end(A);
    ARMCI_Access_end(B);
    EXPECT_EQ(wrong, 0) << "blocking gets from target " << t;

    // Non-blocking: the results land in global memory when the handle completes.
    ARMCI_Access_begin(B);
    std::fill(B, B + lb.total(), -3.0);
    ARMCI_Access_end(B);
    armci_hdl_t h1, h2, h3;
    ARMCI_INIT_HANDLE(&h1);
    ARMCI_INIT_HANDLE(&h2);
    ARMCI_INIT_HANDLE(&h3);
    ARMCI_NbGet(remote(t, la.acc()), B + lb.acc(), kE * 8, t, &h1);
    ARMCI_NbGetS(remote(t, la.sacc()), rstride, B + lb.sacc(), lstride, gcount, 1, t, &h2);
    std::vector<void*> ws(kNSeg), wd(kNSeg);
    for (int s = 0; s < kNSeg; ++s) {
      ws[s] = remote(t, la.vacc() + 2 * s * kSeg);
      wd[s] = B + lb.vacc() + 2 * s * kSeg;
    }
    armci_giov_t wv{ws.data(), wd.data(), kSeg * 8, kNSeg};
    ARMCI_NbGetV(&wv, 1, t, &h3);
    ARMCI_Wait(&h1);
    ARMCI_Wait(&h2);
    ARMCI_Wait(&h3);
    ARMCI_Access_begin(B);
    wrong = 0;
    for (int i = 0; i < kE; ++i) wrong += B[lb.acc() + i] != 3 * origins * (i + 1);
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kLocalLd; ++j)
        wrong += B[lb.sacc() + i * kLocalLd + j] != (j < kCols ? origins * (i * kCols + j + 1) : -3.0);
    for (int s = 0; s < kNSeg; ++s)
      for (int i = 0; i < kSeg; ++i) wrong += B[lb.vacc() + 2 * s * kSeg + i] != origins * (s * kSeg + i + 1);
    ARMCI_Access_end(B);
    EXPECT_EQ(wrong, 0) << "non-blocking gets from target " << t;

    // Implicit handles, completed by ARMCI_WaitProc / ARMCI_WaitAll, and an explicit one by ARMCI_Test.
    ARMCI_Access_begin(B);
    std::fill(B, B + lb.total(), -4.0);
    ARMCI_Access_end(B);
    ARMCI_NbGet(remote(t, la.put() + q * kE), B + lb.put(), kE * 8, t, nullptr);
    ARMCI_WaitProc(t);
    ARMCI_NbGetS(remote(t, la.sput() + q * kSB), rstride, B + lb.sput(), lstride, gcount, 1, t, nullptr);
    ARMCI_NbGetV(&wv, 1, t, nullptr);
    ARMCI_WaitAll();
    armci_hdl_t h4;
    ARMCI_INIT_HANDLE(&h4);
    ARMCI_NbGet(remote(t, la.acc()), B + lb.acc(), kE * 8, t, &h4);
    while (ARMCI_Test(&h4) != 0) {  // 0: completed
    }
    ARMCI_Access_begin(B);
    wrong = 0;
    for (int i = 0; i < kE; ++i) wrong += B[lb.put() + i] != val(q, t, 0, i);
    for (int i = 0; i < kE; ++i) wrong += B[lb.acc() + i] != 3 * origins * (i + 1);
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kLocalLd; ++j)
        wrong += B[lb.sput() + i * kLocalLd + j] != (j < kCols ? val(q, t, 1, i * kCols + j) : -4.0);
    for (int s = 0; s < kNSeg; ++s)
      for (int i = 0; i < kSeg; ++i) wrong += B[lb.vacc() + 2 * s * kSeg + i] != origins * (s * kSeg + i + 1);
    ARMCI_Access_end(B);
    EXPECT_EQ(wrong, 0) << "gets completed by WaitProc / WaitAll / Test, from target " << t;
  }
  ARMCI_Barrier();
  ARMCI_Free(B);
  ARMCI_Free(A);
}

// A put whose source and destination are both in the caller's own slice of one allocation (disjoint
// ranges), and a get back into the same slice: local copies through the RMA path.
TEST(SharedOrigin, SourceAndDestinationInTheSameSlice) {
  const int n = nproc(), r = me();
  const int elems = 64;
  std::vector<void*> p(n);
  ARMCI_Malloc(p.data(), 3 * elems * sizeof(int));
  int* mine = static_cast<int*>(p[r]);
  ARMCI_Access_begin(mine);
  for (int i = 0; i < 3 * elems; ++i) mine[i] = i < elems ? r * 1000 + i : -1;
  ARMCI_Access_end(mine);
  ARMCI_Put(mine, mine + elems, elems * sizeof(int), r);
  ARMCI_Fence(r);
  ARMCI_Get(mine + elems, mine + 2 * elems, elems * sizeof(int), r);
  ARMCI_Access_begin(mine);
  long wrong = 0;
  for (int i = 0; i < elems; ++i) wrong += mine[elems + i] != r * 1000 + i || mine[2 * elems + i] != r * 1000 + i;
  ARMCI_Access_end(mine);
  EXPECT_EQ(wrong, 0);
  ARMCI_Barrier();
  ARMCI_Free(mine);
}

// A region that outlives its group: ARMCI_Group_free comes before ARMCI_Free_group, which another live group
// with the same members (a second group from the same list, or the world group for a list in world order)
// then calls; and the usual order, freed through such a group too.  The last member's slice is empty: it
// passes NULL and learns the region from the others.  Small (a pool block) and large (a region of its own).
TEST(GroupLifetime, RegionOutlivesItsGroup) {
  const int n = nproc();
  std::vector<int> list(n);
  std::iota(list.begin(), list.end(), 0);
  for (int group_first = 0; group_first < 2; ++group_first)
    for (int by_world = 0; by_world < 2; ++by_world)
      for (int big = 0; big < 2; ++big) {
        ARMCI_Group g, other;
        ARMCI_Group_create(n, list.data(), &g);
        if (!by_world) ARMCI_Group_create(n, list.data(), &other);
        ARMCI_Group* freer = by_world ? nullptr : &other;
        const std::size_t words = big ? 64 * 1024 : 8;
        const bool empty = me() == n - 1 && n > 1;
        std::vector<void*> ptrs(n);
        ASSERT_EQ(0, ARMCI_Malloc_group(ptrs.data(), empty ? 0 : static_cast<armci_size_t>(words * sizeof(long)), &g));
        if (group_first) ARMCI_Group_free(&g);
        // Every member with a slice puts its rank into the next one's (the empty last member skipped).
        const int holders = n > 1 ? n - 1 : 1;
        if (!empty) {
          const int to = (me() + 1) % holders;
          std::vector<long> src(words, me() + 1);
          ASSERT_EQ(0, ARMCI_Put(src.data(), ptrs[to], static_cast<int>(words * sizeof(long)), to));
        }
        ARMCI_Barrier();
        if (!empty) {
          const long want = (me() + holders - 1) % holders + 1;
          ARMCI_Access_begin(ptrs[me()]);
          const long* mine = static_cast<const long*>(ptrs[me()]);
          EXPECT_EQ(want, mine[0]);
          EXPECT_EQ(want, mine[words - 1]);
          ARMCI_Access_end(ptrs[me()]);
        }
        ARMCI_Barrier();
        if (freer)
          EXPECT_EQ(0, ARMCI_Free_group(ptrs[me()], freer));
        else
          EXPECT_EQ(0, ARMCI_Free(ptrs[me()]));
        if (!group_first) ARMCI_Group_free(&g);
        if (freer) ARMCI_Group_free(freer);
        ARMCI_Barrier();
      }
}

// Regions whose group was freed and that the program never frees: ARMCI_Finalize releases them (at the
// end of this program, after every other test).
TEST(GroupLifetime, RegionOfAFreedGroupIsLeftToFinalize) {
  const int n = nproc();
  std::vector<int> list(n);
  std::iota(list.begin(), list.end(), 0);
  for (int big = 0; big < 2; ++big) {
    ARMCI_Group g;
    ARMCI_Group_create(n, list.data(), &g);
    std::vector<void*> ptrs(n);
    ASSERT_EQ(0, ARMCI_Malloc_group(ptrs.data(), big ? 512 * 1024 : 64, &g));
    ARMCI_Group_free(&g);
    std::vector<int> src(16, me());
    ASSERT_EQ(0, ARMCI_Put(src.data(), ptrs[(me() + 1) % n], sizeof(int) * 16, (me() + 1) % n));
  }
  ARMCI_Barrier();
}
