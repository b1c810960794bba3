#include "wait/call_stats.h"

#include <array>
#include <chrono>
#include <cstring>
#include <mutex>

namespace armcix {

std::atomic<bool> g_call_stats_on{false};

namespace {

struct Slot {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> pauses{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> nanoseconds{0};
};

std::mutex g_names_mutex;  // guards g_names and g_used
struct SlotName {
  CallKind kind;
  std::string name;
};
std::vector<SlotName> g_names;
std::array<Slot, kMaxCallSlots> g_slots;

thread_local uint64_t t_pauses = 0;

}  // namespace

const char* call_kind_name(CallKind k) {
  return k == CallKind::Mpi ? "mpi" : "wait";
}

int call_stats_slot(CallKind kind, const char* name) {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  for (std::size_t i = 0; i < g_names.size(); ++i)
    if (g_names[i].kind == kind && g_names[i].name == name) return static_cast<int>(i);
  if (g_names.size() >= static_cast<std::size_t>(kMaxCallSlots)) return -1;
  g_names.push_back({kind, name});
  return static_cast<int>(g_names.size() - 1);
}

int call_stats_slot_if_on(CallKind kind, const char* name) {
  return g_call_stats_on.load(std::memory_order_relaxed) ? call_stats_slot(kind, name) : -1;
}

void call_stats_add(int slot, double seconds, uint64_t pauses, uint64_t bytes) {
  if (slot < 0 || slot >= kMaxCallSlots) return;
  Slot& s = g_slots[static_cast<std::size_t>(slot)];
  s.calls.fetch_add(1, std::memory_order_relaxed);
  s.pauses.fetch_add(pauses, std::memory_order_relaxed);
  s.bytes.fetch_add(bytes, std::memory_order_relaxed);
  s.nanoseconds.fetch_add(static_cast<uint64_t>(seconds > 0 ? seconds * 1e9 : 0), std::memory_order_relaxed);
}

uint64_t call_stats_pauses() {
  return t_pauses;
}

void call_stats_count_pause() {
  ++t_pauses;
}

std::vector<CallStat> call_stats_snapshot() {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  std::vector<CallStat> out;
  for (std::size_t i = 0; i < g_names.size(); ++i) {
    const Slot& s = g_slots[i];
    const uint64_t calls = s.calls.load(std::memory_order_relaxed);
    if (calls == 0) continue;
    out.push_back({g_names[i].kind, g_names[i].name, calls, s.pauses.load(std::memory_order_relaxed),
                   s.bytes.load(std::memory_order_relaxed),
                   1e-9 * static_cast<double>(s.nanoseconds.load(std::memory_order_relaxed))});
  }
  return out;
}

void call_stats_enable(bool on) {
  if (on) {
    for (Slot& s : g_slots) {
      s.calls.store(0, std::memory_order_relaxed);
      s.pauses.store(0, std::memory_order_relaxed);
      s.bytes.store(0, std::memory_order_relaxed);
      s.nanoseconds.store(0, std::memory_order_relaxed);
    }
  }
  g_call_stats_on.store(on, std::memory_order_release);
}

double call_stats_now() {
  return 1e-9 * static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace armcix
