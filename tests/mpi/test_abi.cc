// ABI of the public types and the run-time behaviour that code compiled against ARMCI-MPI 0.3.1 (Debian's
// Global Arrays among it) relies on: type sizes, field offsets and enum values as in ARMCI-MPI's headers,
// handles that stay inside their 8 bytes, ARMCI_Group fields that GA reads directly, and ARMCI_x entry
// points that are aliases of PARMCI_x (the profiling interface).  tests/abi/check_symbols.sh compares the
// same layouts and every prototype against the installed ARMCI-MPI headers; this program checks the facts
// themselves, as the compiler and the running library see them.
#include <armci.h>
#include <armcix.h>
#include <message.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "test_util.h"

using namespace armcix_test;

namespace {

constexpr std::size_t round_up(std::size_t n, std::size_t a) {
  return (n + a - 1) / a * a;
}

}  // namespace

// ---- layouts (ARMCI-MPI 0.3.1 facts) -----------------------------------------------------------------------

TEST(Layout, HandleIsTwoInts) {
  static_assert(std::is_standard_layout<armci_hdl_t>::value, "armci_hdl_t must be a C struct");
  EXPECT_EQ(sizeof(armci_hdl_t), 8u);
  EXPECT_EQ(alignof(armci_hdl_t), alignof(int));
  EXPECT_EQ(offsetof(armci_hdl_t, target), 0u);
  EXPECT_EQ(offsetof(armci_hdl_t, aggregate), 4u);
  EXPECT_TRUE((std::is_same<decltype(armci_hdl_t::target), int>::value));
  EXPECT_TRUE((std::is_same<decltype(armci_hdl_t::aggregate), int>::value));
}

TEST(Layout, Group) {
  static_assert(std::is_standard_layout<ARMCI_Group>::value, "ARMCI_Group must be a C struct");
  EXPECT_TRUE((std::is_same<decltype(ARMCI_Group::comm), MPI_Comm>::value));
  EXPECT_TRUE((std::is_same<decltype(ARMCI_Group::noncoll_pgroup_comm), MPI_Comm>::value));
  EXPECT_TRUE((std::is_same<decltype(ARMCI_Group::grp_to_abs), int*>::value));
  EXPECT_TRUE((std::is_same<decltype(ARMCI_Group::abs_to_grp), int*>::value));
  EXPECT_TRUE((std::is_same<decltype(ARMCI_Group::rank), int>::value));
  EXPECT_TRUE((std::is_same<decltype(ARMCI_Group::size), int>::value));
  const std::size_t tables = round_up(2 * sizeof(MPI_Comm), alignof(int*));
  EXPECT_EQ(offsetof(ARMCI_Group, comm), 0u);
  EXPECT_EQ(offsetof(ARMCI_Group, noncoll_pgroup_comm), sizeof(MPI_Comm));
  EXPECT_EQ(offsetof(ARMCI_Group, grp_to_abs), tables);
  EXPECT_EQ(offsetof(ARMCI_Group, abs_to_grp), tables + sizeof(int*));
  EXPECT_EQ(offsetof(ARMCI_Group, rank), tables + 2 * sizeof(int*));
  EXPECT_EQ(offsetof(ARMCI_Group, size), tables + 2 * sizeof(int*) + sizeof(int));
  if (sizeof(MPI_Comm) == 4) {  // MPICH (the MPI armci-x and Debian's GA are built with): 32 bytes
    EXPECT_EQ(sizeof(ARMCI_Group), 32u);
    EXPECT_EQ(offsetof(ARMCI_Group, noncoll_pgroup_comm), 4u);
    EXPECT_EQ(offsetof(ARMCI_Group, grp_to_abs), 8u);
    EXPECT_EQ(offsetof(ARMCI_Group, abs_to_grp), 16u);
    EXPECT_EQ(offsetof(ARMCI_Group, rank), 24u);
    EXPECT_EQ(offsetof(ARMCI_Group, size), 28u);
  }
}

TEST(Layout, IoVectorDescriptor) {
  static_assert(std::is_standard_layout<armci_giov_t>::value, "armci_giov_t must be a C struct");
  EXPECT_TRUE((std::is_same<decltype(armci_giov_t::src_ptr_array), void**>::value));
  EXPECT_TRUE((std::is_same<decltype(armci_giov_t::dst_ptr_array), void**>::value));
  EXPECT_TRUE((std::is_same<decltype(armci_giov_t::bytes), int>::value));
  EXPECT_TRUE((std::is_same<decltype(armci_giov_t::ptr_array_len), int>::value));
  EXPECT_EQ(sizeof(armci_giov_t), 24u);
  EXPECT_EQ(offsetof(armci_giov_t, src_ptr_array), 0u);
  EXPECT_EQ(offsetof(armci_giov_t, dst_ptr_array), 8u);
  EXPECT_EQ(offsetof(armci_giov_t, bytes), 16u);
  EXPECT_EQ(offsetof(armci_giov_t, ptr_array_len), 20u);
}

TEST(Layout, MutexHandle) {
  EXPECT_EQ(offsetof(armcix_mutex_hdl_s, my_count), 0u);
  EXPECT_EQ(offsetof(armcix_mutex_hdl_s, max_count), 4u);
  EXPECT_EQ(offsetof(armcix_mutex_hdl_s, grp), 8u);
  EXPECT_EQ(offsetof(armcix_mutex_hdl_s, windows), round_up(8 + sizeof(ARMCI_Group), alignof(MPI_Win*)));
  EXPECT_EQ(offsetof(armcix_mutex_hdl_s, bases), offsetof(armcix_mutex_hdl_s, windows) + sizeof(MPI_Win*));
  EXPECT_TRUE((std::is_same<decltype(armcix_mutex_hdl_s::bases), uint8_t**>::value));
  EXPECT_TRUE((std::is_same<armcix_mutex_hdl_t, armcix_mutex_hdl_s*>::value));
}

TEST(Layout, ScalarTypes) {
  EXPECT_TRUE((std::is_same<armci_size_t, long>::value));
  EXPECT_TRUE((std::is_same<armci_domain_t, int>::value));
  int size = 0;
  MPI_Type_size(ARMCII_MPI_SIZE_T, &size);
  EXPECT_EQ(size, static_cast<int>(sizeof(armci_size_t)));
  EXPECT_EQ(ARMCII_MPI_SIZE_T, MPI_LONG);
  EXPECT_EQ(ARMCI_MPI, 3);
}

TEST(Layout, EnumValues) {
  EXPECT_EQ(ARMCI_ACC_INT, 0);
  EXPECT_EQ(ARMCI_ACC_LNG, 1);
  EXPECT_EQ(ARMCI_ACC_FLT, 2);
  EXPECT_EQ(ARMCI_ACC_DBL, 3);
  EXPECT_EQ(ARMCI_ACC_CPL, 4);
  EXPECT_EQ(ARMCI_ACC_DCP, 5);
  EXPECT_EQ(ARMCI_FETCH_AND_ADD, 0);
  EXPECT_EQ(ARMCI_FETCH_AND_ADD_LONG, 1);
  EXPECT_EQ(ARMCI_SWAP, 2);
  EXPECT_EQ(ARMCI_SWAP_LONG, 3);
  EXPECT_EQ(SCOPE_ALL, 0);
  EXPECT_EQ(SCOPE_NODE, 1);
  EXPECT_EQ(SCOPE_MASTERS, 2);
  EXPECT_EQ(ARMCI_INT, 0);
  EXPECT_EQ(ARMCI_LONG, 1);
  EXPECT_EQ(ARMCI_LONG_LONG, 2);
  EXPECT_EQ(ARMCI_FLOAT, 3);
  EXPECT_EQ(ARMCI_DOUBLE, 4);
  EXPECT_EQ(ARMCI_DOMAIN_SMP, 0);
  // C code stores these in ints; the enums must be int-sized.
  EXPECT_EQ(sizeof(ARMCI_Acc_e), sizeof(int));
  EXPECT_EQ(sizeof(ARMCI_Rmw_e), sizeof(int));
  EXPECT_EQ(sizeof(armci_scope_e), sizeof(int));
  EXPECT_EQ(sizeof(armci_type_e), sizeof(int));
}

// Prototypes of entry points GA calls through pointers or with C types (a C++ declaration mismatch would
// mangle differently or not convert, so this also checks C linkage).
TEST(Layout, Prototypes) {
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_Malloc), int (*)(void**, armci_size_t)>::value));
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_Malloc_local), void* (*)(armci_size_t)>::value));
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_Put), int (*)(void*, void*, int, int)>::value));
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_Acc), int (*)(int, void*, void*, void*, int, int)>::value));
  EXPECT_TRUE(
      (std::is_same<decltype(&ARMCI_NbPutS), int (*)(void*, int*, void*, int*, int*, int, int, armci_hdl_t*)>::value));
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_Rmw), int (*)(int, void*, void*, int, int)>::value));
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_GetValueLong), long (*)(void*, int)>::value));
  EXPECT_TRUE((std::is_same<decltype(&ARMCI_Malloc_group), int (*)(void**, armci_size_t, ARMCI_Group*)>::value));
  EXPECT_TRUE((std::is_same<decltype(&armci_msg_gop_scope), void (*)(int, void*, int, char*, int)>::value));
  EXPECT_TRUE((std::is_same<decltype(&armci_domain_glob_proc_id), int (*)(armci_domain_t, int, int)>::value));
}

// ---- run-time behaviour GA depends on ------------------------------------------------------------------

// GA keeps handles inside its own structures and arrays: no operation may touch memory outside the 8
// bytes of the handle.
TEST(Runtime, HandlesStayInsideTheirEightBytes) {
  const int np = nproc(), r = me();
  const int t = (r + 1) % np;
  std::vector<void*> ptrs(np);
  ASSERT_EQ(ARMCI_Malloc(ptrs.data(), 1024), 0);
  struct Guarded {
    uint64_t before;
    armci_hdl_t h[3];
    uint64_t after;
  } g;
  const uint64_t kCanary = 0xdeadbeefcafef00dULL;
  g.before = g.after = kCanary;
  std::memset(g.h, 0xa5, sizeof g.h);
  for (auto& h : g.h) ARMCI_INIT_HANDLE(&h);
  char buf[256];
  std::memset(buf, r, sizeof buf);
  int one = 1;
  ARMCI_NbPut(buf, ptrs[t], 256, t, &g.h[0]);
  ARMCI_NbGet(ptrs[t], buf, 256, t, &g.h[1]);
  ARMCI_SET_AGGREGATE_HANDLE(&g.h[2]);
  ARMCI_NbAcc(ARMCI_ACC_INT, &one, buf, static_cast<char*>(ptrs[t]) + 512, 256, t, &g.h[2]);
  ARMCI_NbAcc(ARMCI_ACC_INT, &one, buf, static_cast<char*>(ptrs[t]) + 768, 256, t, &g.h[2]);
  ARMCI_Wait(&g.h[0]);
  ARMCI_Test(&g.h[1]);
  ARMCI_Wait(&g.h[1]);
  ARMCI_UNSET_AGGREGATE_HANDLE(&g.h[2]);
  ARMCI_Wait(&g.h[2]);
  EXPECT_EQ(g.before, kCanary);
  EXPECT_EQ(g.after, kCanary);
  // A handle is plain data: copying it by value (as C code does) keeps the 8 bytes and nothing else.
  armci_hdl_t copy;
  ARMCI_INIT_HANDLE(&copy);
  armci_hdl_t moved = copy;
  EXPECT_EQ(std::memcmp(&moved, &copy, sizeof copy), 0);
  EXPECT_EQ(ARMCI_Wait(&moved), 0);  // waiting on an initialised, unused handle is fine
  ARMCI_Barrier();
  ARMCI_Free(ptrs[r]);
}

// GA reads ARMCI_Group fields directly and passes .comm to MPI.
TEST(Runtime, WorldGroupFieldsAreUsable) {
  const int np = nproc(), r = me();
  ARMCI_Group world;
  std::memset(&world, 0xff, sizeof world);
  ARMCI_Group_get_world(&world);
  EXPECT_EQ(world.rank, r);
  EXPECT_EQ(world.size, np);
  ASSERT_NE(world.comm, MPI_COMM_NULL);
  int cmp = MPI_UNEQUAL;
  MPI_Comm_compare(world.comm, MPI_COMM_WORLD, &cmp);
  EXPECT_TRUE(cmp == MPI_IDENT || cmp == MPI_CONGRUENT) << "MPI_Comm_compare = " << cmp;
  int crank = -1, csize = -1;
  MPI_Comm_rank(world.comm, &crank);
  MPI_Comm_size(world.comm, &csize);
  EXPECT_EQ(crank, r);
  EXPECT_EQ(csize, np);
  ASSERT_NE(world.grp_to_abs, nullptr);
  for (int i = 0; i < np; ++i) EXPECT_EQ(world.grp_to_abs[i], i);
  if (world.abs_to_grp) {
    for (int i = 0; i < np; ++i) EXPECT_EQ(world.abs_to_grp[i], i);
  }
  int sum = 0, mine = r + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, world.comm);  // GA does collectives on .comm
  EXPECT_EQ(sum, np * (np + 1) / 2);
  ARMCI_Group dflt;
  ARMCI_Group_get_default(&dflt);
  MPI_Comm_compare(dflt.comm, world.comm, &cmp);
  EXPECT_EQ(cmp, MPI_IDENT) << "the default group starts as the world group";
}

TEST(Runtime, SubgroupFieldsAreUsable) {
  const int np = nproc(), r = me();
  std::vector<int> evens;
  for (int p = 0; p < np; p += 2) evens.push_back(p);
  ARMCI_Group g;
  ARMCI_Group_create(static_cast<int>(evens.size()), evens.data(), &g);
  if (r % 2 == 0) {
    EXPECT_EQ(g.size, static_cast<int>(evens.size()));
    EXPECT_EQ(g.rank, r / 2);
    ASSERT_NE(g.comm, MPI_COMM_NULL);
    int crank = -1, csize = -1;
    MPI_Comm_rank(g.comm, &crank);
    MPI_Comm_size(g.comm, &csize);
    EXPECT_EQ(crank, g.rank);
    EXPECT_EQ(csize, g.size);
    ASSERT_NE(g.grp_to_abs, nullptr);
    for (int i = 0; i < g.size; ++i) {
      EXPECT_EQ(g.grp_to_abs[i], evens[i]);
      EXPECT_EQ(ARMCI_Absolute_id(&g, i), evens[i]);
    }
    int sum = 0, mine = r;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, g.comm);
    int want = 0;
    for (int p : evens) want += p;
    EXPECT_EQ(sum, want);
  } else {
    EXPECT_EQ(g.comm, MPI_COMM_NULL) << "a non-member's handle has no communicator";
  }
  ARMCI_Group_free(&g);
  ARMCI_Barrier();
}

// ARMCI_x is an alias of PARMCI_x (ARMCI-MPI's profiling interface): unless a tool overrides ARMCI_x,
// both names are the same function.
TEST(Runtime, ArmciEntryPointsAliasTheProfilingOnes) {
#define ARMCIX_SAME(name) \
  EXPECT_EQ(reinterpret_cast<void*>(&ARMCI_##name), reinterpret_cast<void*>(&PARMCI_##name)) << #name
  ARMCIX_SAME(Init);
  ARMCIX_SAME(Init_args);
  ARMCIX_SAME(Init_thread);
  ARMCIX_SAME(Init_thread_comm);
  ARMCIX_SAME(Initialized);
  ARMCIX_SAME(Finalize);
  ARMCIX_SAME(Malloc);
  ARMCIX_SAME(Free);
  ARMCIX_SAME(Malloc_local);
  ARMCIX_SAME(Free_local);
  ARMCIX_SAME(Malloc_memdev);
  ARMCIX_SAME(Malloc_group_memdev);
  ARMCIX_SAME(Free_memdev);
  ARMCIX_SAME(Barrier);
  ARMCIX_SAME(Fence);
  ARMCIX_SAME(AllFence);
  ARMCIX_SAME(Access_begin);
  ARMCIX_SAME(Access_end);
  ARMCIX_SAME(Get);
  ARMCIX_SAME(Put);
  ARMCIX_SAME(Acc);
  ARMCIX_SAME(PutS);
  ARMCIX_SAME(GetS);
  ARMCIX_SAME(AccS);
  ARMCIX_SAME(Put_flag);
  ARMCIX_SAME(PutS_flag);
  ARMCIX_SAME(PutV);
  ARMCIX_SAME(GetV);
  ARMCIX_SAME(AccV);
  ARMCIX_SAME(Wait);
  ARMCIX_SAME(Test);
  ARMCIX_SAME(WaitProc);
  ARMCIX_SAME(WaitAll);
  ARMCIX_SAME(NbPut);
  ARMCIX_SAME(NbGet);
  ARMCIX_SAME(NbAcc);
  ARMCIX_SAME(NbPutS);
  ARMCIX_SAME(NbGetS);
  ARMCIX_SAME(NbAccS);
  ARMCIX_SAME(NbPutV);
  ARMCIX_SAME(NbGetV);
  ARMCIX_SAME(NbAccV);
  ARMCIX_SAME(PutValueInt);
  ARMCIX_SAME(PutValueLong);
  ARMCIX_SAME(PutValueFloat);
  ARMCIX_SAME(PutValueDouble);
  ARMCIX_SAME(NbPutValueInt);
  ARMCIX_SAME(NbPutValueLong);
  ARMCIX_SAME(NbPutValueFloat);
  ARMCIX_SAME(NbPutValueDouble);
  ARMCIX_SAME(GetValueInt);
  ARMCIX_SAME(GetValueLong);
  ARMCIX_SAME(GetValueFloat);
  ARMCIX_SAME(GetValueDouble);
  ARMCIX_SAME(Create_mutexes);
  ARMCIX_SAME(Destroy_mutexes);
  ARMCIX_SAME(Lock);
  ARMCIX_SAME(Unlock);
  ARMCIX_SAME(Rmw);
#undef ARMCIX_SAME
  EXPECT_EQ(reinterpret_cast<void*>(&armci_msg_barrier), reinterpret_cast<void*>(&parmci_msg_barrier));
  EXPECT_EQ(reinterpret_cast<void*>(&armci_msg_group_barrier), reinterpret_cast<void*>(&parmci_msg_group_barrier));
}

TEST(Runtime, VersionString) {
  const char* v = ARMCIX_Version();
  ASSERT_NE(v, nullptr);
  EXPECT_GT(std::strlen(v), 0u);
  EXPECT_NE(std::strchr(v, '.'), nullptr) << v;
}
