// The profiler's statistics of MPI calls and waits (wait/call_stats.h): registration by kind and name,
// counting only while enabled, pauses per timed scope, and the snapshot.
#include <gtest/gtest.h>

#include <string>

#include "wait/call_stats.h"

namespace {

const armcix::CallStat* find(const std::vector<armcix::CallStat>& all, armcix::CallKind kind, const std::string& name) {
  for (const armcix::CallStat& c : all)
    if (c.kind == kind && c.name == name) return &c;
  return nullptr;
}

TEST(CallStats, SlotsAreKeyedByKindAndName) {
  const int a = armcix::call_stats_slot(armcix::CallKind::Mpi, "MPI_Test_slot_a");
  const int b = armcix::call_stats_slot(armcix::CallKind::Wait, "MPI_Test_slot_a");
  const int c = armcix::call_stats_slot(armcix::CallKind::Mpi, "MPI_Test_slot_c");
  EXPECT_GE(a, 0);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(armcix::call_stats_slot(armcix::CallKind::Mpi, "MPI_Test_slot_a"), a);
  // A name built at run time finds the same slot as the literal.
  const std::string built = std::string("MPI_Test_") + "slot_a";
  EXPECT_EQ(armcix::call_stats_slot(armcix::CallKind::Mpi, built.c_str()), a);
}

TEST(CallStats, CountsOnlyWhileEnabled) {
  armcix::call_stats_enable(false);
  const int slot = armcix::call_stats_slot(armcix::CallKind::Wait, "test_counts_only_while_enabled");
  { armcix::ScopeTimer t(slot, 8); }
  EXPECT_EQ(armcix::call_stats_slot_if_on(armcix::CallKind::Wait, "test_counts_only_while_enabled"), -1);
  armcix::call_stats_enable(true);
  EXPECT_EQ(find(armcix::call_stats_snapshot(), armcix::CallKind::Wait, "test_counts_only_while_enabled"), nullptr)
      << "calls made while off must not count";
  for (int i = 0; i < 3; ++i) {
    armcix::ScopeTimer t(slot, 8);
    armcix::call_stats_count_pause();
    armcix::call_stats_count_pause();
  }
  {
    armcix::ScopeTimer t(-1);  // no slot: not counted anywhere, no crash
    armcix::call_stats_count_pause();
  }
  EXPECT_EQ(armcix::call_stats_slot_if_on(armcix::CallKind::Wait, "test_counts_only_while_enabled"), slot);
  std::vector<armcix::CallStat> all = armcix::call_stats_snapshot();
  const armcix::CallStat* s = find(all, armcix::CallKind::Wait, "test_counts_only_while_enabled");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->calls, 3u);
  EXPECT_EQ(s->pauses, 6u) << "pauses taken inside the timed scopes only";
  EXPECT_EQ(s->bytes, 24u);
  EXPECT_GE(s->seconds, 0.0);
  // Enabling again starts from zero.
  armcix::call_stats_enable(true);
  EXPECT_EQ(find(armcix::call_stats_snapshot(), armcix::CallKind::Wait, "test_counts_only_while_enabled"), nullptr);
  armcix::call_stats_enable(false);
  { armcix::ScopeTimer t(slot); }
  EXPECT_EQ(find(armcix::call_stats_snapshot(), armcix::CallKind::Wait, "test_counts_only_while_enabled"), nullptr);
}

TEST(CallStats, KindNames) {
  EXPECT_STREQ(armcix::call_kind_name(armcix::CallKind::Mpi), "mpi");
  EXPECT_STREQ(armcix::call_kind_name(armcix::CallKind::Wait), "wait");
}

}  // namespace
