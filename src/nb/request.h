// Non-blocking requests.  An ARMCI handle is 8 bytes owned by the caller (Debian's GA embeds it), so the
// request state lives here, in a slot table indexed by the handle.  A request collects the (region,
// target) pairs its operations went to -- completing it is one MPI_Win_flush_local per pair -- and the
// MPI requests of operations that complete by their own (contiguous gets and accumulates to another node
// under an explicit handle: MPI_Rget / MPI_Raccumulate, completed by MPI_Waitall, because over the network
// a flush_local costs one more round trip after the data moved, transfer/mpi_backend.h), plus the staging
// buffers that must outlive the operations and the copy-outs to run after them.
#pragma once

#include <armci.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "gmr/gmr.h"

namespace armcix {

// What a request-completed operation went to: when it completes, a get stops counting as in flight there.
struct MpiOpTarget {
  Gmr* g;
  int wr;
  bool get;
  unsigned epoch;  // the pair's Pending::epoch at issue (gets)
};

struct Request {
  std::vector<std::pair<Gmr*, int>> pairs;       // (region, window rank) with ops in flight
  std::vector<MPI_Request> mpi_reqs;             // operations completed by their own request ...
  std::vector<MpiOpTarget> mpi_targets;          // ... and where each went (same index)
  std::vector<int> settled;                      // absolute targets of MPI requests completed early by flow
                                                 // control whose copy-outs are still among the finishers
  std::vector<std::unique_ptr<char[]>> buffers;  // staging buffers alive until completion
  std::vector<std::function<void()>> finishers;  // run after local completion (staged get copy-out)
  uint32_t generation = 0;
  uint32_t waited_generation = 0;  // the last of this slot's requests completed by ARMCI_Wait / ARMCI_Test
  bool in_use = false;
  bool implicit = false;          // NULL-handle request (completed by WaitProc/WaitAll)
  int target = -1;                // implicit requests: the absolute target rank
  int slot = -1;                  // index in the slot table
  int busy = 0;                   // threads completing a batch taken from this request (nb/request.cc)
  armci_hdl_t* handle = nullptr;  // the request of a call under a new handle: the handle (nb/request.cc, g_fresh)
};

// Called by the transfer layer for every operation issued under a request.
void request_track(Request* req, Gmr* g, int wr);
void request_keep(Request* req, std::unique_ptr<char[]> buffer);
void request_on_complete(Request* req, std::function<void()> fn);
// An operation issued under `req` that completes by its own MPI request `mreq` (not by a flush).
void request_add_mpi(Request* req, MPI_Request mreq, const MpiOpTarget& to);

// Locally completes a request's operations, runs its finishers and releases its buffers.
void request_complete(Request* req);

// The request an Nb call with `hdl` (NULL = implicit) to `proc` should use; validates the handle.  Every call
// that takes one hands it to request_issued once its operations are issued: only then does a new handle name
// what the request holds (nb/request.cc, g_fresh).
Request* request_for_handle(const char* call, armci_hdl_t* hdl, int proc);
// After issuing: applies flow control (bounds on operations in flight) and, for implicit requests, keeps
// the request open.
void request_issued(Request* req, int proc);

int handle_wait(const char* call, armci_hdl_t* hdl);
int handle_test(const char* call, armci_hdl_t* hdl);
void handle_init(armci_hdl_t* hdl);
void handle_set_aggregate(const char* call, armci_hdl_t* hdl, bool on);
void wait_proc(int proc);
void wait_all();

// A region is being freed: complete and forget requests' references to it.
void requests_forget_region(Gmr* g);
// requests_initialize() (also joins gmr_on_release) / requests_finalize(): runtime/modules.h.
std::size_t requests_in_flight();  // for tests: live explicit-handle request slots

}  // namespace armcix
