# The library.
lib_LTLIBRARIES += src/libarmci.la
include_HEADERS += include/armci.h include/armcix.h include/message.h include/mp3.h
nodist_include_HEADERS += include/armciconf.h
src_libarmci_la_LDFLAGS = -version-info 0:0:0 $(LIBARMCI_BIND_FLAGS) $(SAN_FLAGS)
# Folders lowest first (doc/design.md, "Layers"; tools/check-layering.sh).
src_libarmci_la_SOURCES = \
	src/base/config.cc src/base/config.h src/base/error.cc src/base/error.h \
	src/base/state.cc src/base/state.h src/base/machine_count.h src/base/thread_lock.h \
	src/base/window.cc src/base/window.h src/base/mpi_library.cc src/base/mpi_library.h src/base/fnv1a.h \
	src/base/alloc_stats.h src/completion/path_tuning.h \
	src/topo/machine.cc src/topo/machine.h src/topo/node_keys.cc src/topo/node_keys.h src/topo/nodes.cc src/topo/nodes.h \
	src/wait/backoff.h src/wait/call_stats.cc src/wait/call_stats.h src/wait/handoff.cc src/wait/handoff.h \
	src/wait/mpi_yield.cc src/wait/mpi_yield.h \
	src/wait/wait.cc src/wait/wait.h src/wait/yield_timer.cc src/wait/yield_timer.h \
	src/shm/segment.cc src/shm/segment.h src/shm/segment_cache.cc src/shm/segment_cache.h src/shm/node_sync.cc \
	src/shm/node_sync.h src/shm/access.cc src/shm/access.h \
	src/checks/collective_check.cc src/checks/collective_check.h src/checks/watchdog.cc src/checks/watchdog.h \
	src/progress/progress_ranks.cc src/progress/progress_ranks.h src/progress/progress_ranks_internal.h \
	src/progress/server.cc src/progress/wake_channels.cc src/progress/proxy_segments.cc src/progress/progress_roles.cc \
	src/progress/progress_roles.h src/progress/protocol.h src/progress/thread.cc src/progress/thread.h \
	src/runtime/runtime.cc src/runtime/runtime.h src/runtime/runtime_internal.h src/runtime/resolve.cc \
	src/runtime/modules.cc src/runtime/modules.h \
	src/runtime/mpi_hooks.cc src/runtime/mpi_hooks.h \
	src/api/armci_api.cc src/api/armci_api_transfers.cc src/api/api_internal.h \
	src/groups/group.cc src/groups/group.h \
	src/gmr/gmr.cc src/gmr/gmr.h src/gmr/gmr_internal.h src/gmr/members_busy.h src/gmr/local_access.cc \
	src/gmr/node_slices.cc src/gmr/pool.cc src/gmr/region_plan.cc src/gmr/region_plan.h \
	src/acc/acc_types.cc src/acc/acc_types.h \
	src/completion/pending.h src/completion/ordering.cc src/completion/ordering.h \
	src/transfer/staging.cc src/transfer/staging.h \
	src/transfer/contig.cc src/transfer/rma.h src/transfer/rma_by_accumulate.h src/transfer/paths.h \
	src/transfer/strided.cc src/transfer/strided_shape.h src/transfer/iov.cc src/transfer/rmw.cc \
	src/transfer/node_local.cc src/transfer/node_local.h \
	src/transfer/mpi_backend.h src/transfer/mpi_backend.cc src/transfer/mpi_strided.cc src/transfer/mpi_iov.cc \
	src/transfer/mpi_rmw.cc \
	src/transfer/engine_choice.cc src/transfer/engine_choice.h \
	src/transfer/datatypes.cc src/transfer/datatypes.h \
	src/transfer/conflict_tree.cc src/transfer/conflict_tree.h \
	src/nb/request.cc src/nb/request.h \
	src/sync/fence.cc src/sync/fence.h \
	src/profile/profiler.cc src/profile/profiler.h \
	src/sync/mutex.cc src/sync/mutex.h \
	src/sync/mutex_impl.h src/sync/mutex_mcs.cc src/sync/mutex_queue.cc src/sync/mutex_shm.cc \
	src/sync/notify.cc
src_libarmci_la_SOURCES += src/msg/message.cc src/msg/msg_internal.h src/msg/operations.cc src/msg/reduce_ops.h \
	src/msg/scopes.cc

# The MPI wrappers: an opt-in library beside libarmci (doc/user-guide.md, "Using armci-x with MPI tools"),
# one object per MPI function so that a PMPI tool's archive linked ahead of it keeps its own definitions.
# It needs libarmci (-larmcix-mpiwrap -larmci); libarmci defines no MPI_* symbol.
lib_LTLIBRARIES += src/libarmcix-mpiwrap.la
src_libarmcix_mpiwrap_la_LDFLAGS = -version-info 0:0:0 $(SAN_FLAGS)
src_libarmcix_mpiwrap_la_LIBADD = src/libarmci.la -ldl
src_libarmcix_mpiwrap_la_SOURCES = src/mpiwrap/wrap.h src/mpiwrap/shapes.h src/mpiwrap/common.cc \
	src/mpiwrap/comm_templates.cc \
	src/mpiwrap/calls/mpi_init.cc src/mpiwrap/calls/mpi_init_thread.cc src/mpiwrap/calls/mpi_finalize.cc \
	src/mpiwrap/calls/mpi_comm_create.cc src/mpiwrap/calls/mpi_comm_split.cc \
	src/mpiwrap/calls/mpi_probe.cc src/mpiwrap/calls/mpi_recv.cc src/mpiwrap/calls/mpi_sendrecv.cc \
	src/mpiwrap/calls/mpi_wait.cc src/mpiwrap/calls/mpi_waitall.cc src/mpiwrap/calls/mpi_waitany.cc \
	src/mpiwrap/calls/mpi_waitsome.cc
# The wrappers of the regular shapes: one line of src/mpiwrap/calls.def each, made into a source of its own
# in the build tree by gen-call.sh, which checks that this list and the lines agree.
mpiwrap_generated = \
	src/mpiwrap/gen/mpi_comm_size.cc src/mpiwrap/gen/mpi_comm_rank.cc src/mpiwrap/gen/mpi_comm_group.cc \
	src/mpiwrap/gen/mpi_comm_compare.cc src/mpiwrap/gen/mpi_comm_set_errhandler.cc \
	src/mpiwrap/gen/mpi_iallreduce.cc src/mpiwrap/gen/mpi_ibarrier.cc src/mpiwrap/gen/mpi_ibcast.cc \
	src/mpiwrap/gen/mpi_iprobe.cc src/mpiwrap/gen/mpi_irecv.cc src/mpiwrap/gen/mpi_isend.cc \
	src/mpiwrap/gen/mpi_comm_create_group.cc src/mpiwrap/gen/mpi_win_free.cc \
	src/mpiwrap/gen/mpi_allgather.cc src/mpiwrap/gen/mpi_allgatherv.cc src/mpiwrap/gen/mpi_allreduce.cc \
	src/mpiwrap/gen/mpi_alltoall.cc src/mpiwrap/gen/mpi_alltoallv.cc src/mpiwrap/gen/mpi_barrier.cc \
	src/mpiwrap/gen/mpi_bcast.cc src/mpiwrap/gen/mpi_exscan.cc src/mpiwrap/gen/mpi_gather.cc \
	src/mpiwrap/gen/mpi_gatherv.cc src/mpiwrap/gen/mpi_reduce.cc src/mpiwrap/gen/mpi_reduce_scatter.cc \
	src/mpiwrap/gen/mpi_reduce_scatter_block.cc src/mpiwrap/gen/mpi_scan.cc src/mpiwrap/gen/mpi_scatter.cc \
	src/mpiwrap/gen/mpi_scatterv.cc src/mpiwrap/gen/mpi_comm_dup.cc \
	src/mpiwrap/gen/mpi_send.cc src/mpiwrap/gen/mpi_rsend.cc src/mpiwrap/gen/mpi_ssend.cc \
	src/mpiwrap/gen/mpi_comm_split_type.cc src/mpiwrap/gen/mpi_win_allocate.cc \
	src/mpiwrap/gen/mpi_win_allocate_shared.cc src/mpiwrap/gen/mpi_win_create.cc \
	src/mpiwrap/gen/mpi_win_create_dynamic.cc
nodist_src_libarmcix_mpiwrap_la_SOURCES = $(mpiwrap_generated)
CLEANFILES += $(mpiwrap_generated)
EXTRA_DIST += src/mpiwrap/calls.def src/mpiwrap/gen-call.sh
$(mpiwrap_generated): src/mpiwrap/gen/%.cc: $(srcdir)/src/mpiwrap/calls.def $(srcdir)/src/mpiwrap/gen-call.sh
	$(AM_V_GEN)$(MKDIR_P) $(@D) && \
	  $(SHELL) $(srcdir)/src/mpiwrap/gen-call.sh $(srcdir)/src/mpiwrap/calls.def $@ $(mpiwrap_generated) > $@.tmp && \
	  mv $@.tmp $@
