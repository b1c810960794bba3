# Tests.  `make check` builds everything below and runs tests/check.sh, which reads tests/manifest.txt
# (rank counts, timeouts, environment per run).
EXTRA_DIST += tests/check.sh tests/manifest.txt tests/valgrind.supp tests/env.sh.in tests/abi tests/errors/run_abort_cases.sh tests/errors/progress_thread_off.sh tests/errors/ignored_settings.sh tests/errors/progress_roles.sh tests/errors/no_wrappers.sh tests/errors/shm_hazards.sh tests/link

GTEST_LIBS = -lgtest -lpthread
# The C++ test programs compile without optimisation (TEST_OPTFLAGS; e.g. make TEST_OPTFLAGS=-O2): GoogleTest's
# macros under -g -O2 cost 27 s of CPU for tests/mpi/test_core.cc and 5 s under -g -O0, and these files were
# most of every build's time (CI makes five builds).  Only the test code is affected: the library they test,
# the benchmarks and the examples keep the configured CXXFLAGS (-g -O2 by default).  A GNU make
# pattern-specific value, like the rest of this tree's make rules.
TEST_OPTFLAGS = -O0
tests/%.$(OBJEXT): CXXFLAGS := $(filter-out -O%,$(CXXFLAGS)) $(TEST_OPTFLAGS)
# Test programs link armci-x's MPI wrappers ahead of libarmci, as a program that uses progress ranks, yielding
# waits, the yield timer or the progress thread with MPI_Init does (doc/user-guide.md, "Using armci-x with MPI
# tools"); tests/errors/abort_case_nowrap and tests/link/ check libarmci without them.
TEST_LIB = src/libarmcix-mpiwrap.la src/libarmci.la
PLAIN_TEST_LIB = src/libarmci.la

if HAVE_GTEST
# Unit tests without MPI (they still link MPI's compiler wrapper, harmlessly).
check_PROGRAMS += tests/unit/unit_tests
tests_unit_unit_tests_SOURCES = \
	tests/unit/test_conflict_tree.cc \
	tests/unit/test_config.cc \
	tests/unit/test_acc_types.cc \
	tests/unit/test_reduce_ops.cc \
	tests/unit/test_engine_choice.cc \
	tests/unit/test_ordering.cc \
	tests/unit/test_shm_slice_class.cc \
	tests/unit/test_region_plan.cc \
	tests/unit/test_machine.cc \
	tests/unit/test_node_keys.cc \
	tests/unit/test_call_stats.cc \
	tests/unit/test_yield_timer.cc \
	tests/unit/test_mpi_library.cc \
	tests/unit/test_error_output.cc
tests_unit_unit_tests_CPPFLAGS = $(AM_CPPFLAGS) -DARMCIX_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_unit_tests_LDADD = $(TEST_LIB) -lgtest_main $(GTEST_LIBS)

MPI_TEST_MAIN = tests/mpi/mpi_test_main.cc tests/mpi/test_util.h
MPI_TEST_LDADD = $(TEST_LIB) $(GTEST_LIBS)

check_PROGRAMS += tests/mpi/test_core
tests_mpi_test_core_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_core.cc
tests_mpi_test_core_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_shm
tests_mpi_test_shm_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_shm.cc
tests_mpi_test_shm_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_msg
tests_mpi_test_msg_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_msg.cc
tests_mpi_test_msg_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_threads
tests_mpi_test_threads_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_threads.cc
tests_mpi_test_threads_CPPFLAGS = $(AM_CPPFLAGS) -DARMCIX_TEST_THREAD_MULTIPLE
tests_mpi_test_threads_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_thread_groups
tests_mpi_test_thread_groups_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_thread_groups.cc
tests_mpi_test_thread_groups_CPPFLAGS = $(AM_CPPFLAGS) -DARMCIX_TEST_THREAD_MULTIPLE
tests_mpi_test_thread_groups_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_sync
tests_mpi_test_sync_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_sync.cc
tests_mpi_test_sync_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_strided
tests_mpi_test_strided_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_strided.cc
tests_mpi_test_strided_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_nb
tests_mpi_test_nb_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_nb.cc
tests_mpi_test_nb_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_shared_window
tests_mpi_test_shared_window_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_shared_window.cc
tests_mpi_test_shared_window_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_groups
tests_mpi_test_groups_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_groups.cc
tests_mpi_test_groups_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_progress_ranks
tests_mpi_test_progress_ranks_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_progress_ranks.cc
tests_mpi_test_progress_ranks_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_mpi_yield
tests_mpi_test_mpi_yield_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_mpi_yield.cc
tests_mpi_test_mpi_yield_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_rma_rules
tests_mpi_test_rma_rules_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_rma_rules.cc
tests_mpi_test_rma_rules_LDADD = $(MPI_TEST_LDADD)

check_PROGRAMS += tests/mpi/test_abi
tests_mpi_test_abi_SOURCES = $(MPI_TEST_MAIN) tests/mpi/test_abi.cc
tests_mpi_test_abi_LDADD = $(MPI_TEST_LDADD)
endif

# Error paths that abort the job (the default ARMCI_Error behaviour), checked from outside.
check_PROGRAMS += tests/errors/abort_case
check_PROGRAMS += tests/errors/early_roles
check_PROGRAMS += tests/errors/shm_job
tests_errors_shm_job_SOURCES = tests/errors/shm_job.c
tests_errors_shm_job_LDADD = $(TEST_LIB)
tests_errors_shm_job_LINK = $(CXXLINK)
tests_errors_early_roles_SOURCES = tests/errors/early_roles.c
tests_errors_early_roles_LDADD = $(TEST_LIB)
tests_errors_early_roles_LINK = $(CXXLINK)
tests_errors_abort_case_SOURCES = tests/errors/abort_case.c
tests_errors_abort_case_LDADD = $(TEST_LIB)
tests_errors_abort_case_LINK = $(CXXLINK)
# The yield timer's signal beside the program's own handlers (tests/manifest.txt: yield-timer-signal-*).
check_PROGRAMS += tests/mpi/yield_timer_signal
tests_mpi_yield_timer_signal_SOURCES = tests/mpi/yield_timer_signal.c
tests_mpi_yield_timer_signal_LDADD = $(TEST_LIB)
tests_mpi_yield_timer_signal_LINK = $(CXXLINK)
# What ARMCI's collectives move per member: a PMPI shim of its own, so linked without the MPI wrapper library.
check_PROGRAMS += tests/mpi/collective_traffic
tests_mpi_collective_traffic_SOURCES = tests/mpi/collective_traffic.c
tests_mpi_collective_traffic_LDADD = $(PLAIN_TEST_LIB)
tests_mpi_collective_traffic_LINK = $(CXXLINK)
# The same program without the MPI wrapper library (tests/errors/no_wrappers.sh).
check_PROGRAMS += tests/errors/abort_case_nowrap
tests_errors_abort_case_nowrap_SOURCES = tests/errors/abort_case.c
tests_errors_abort_case_nowrap_LDADD = $(PLAIN_TEST_LIB)
tests_errors_abort_case_nowrap_LINK = $(CXXLINK)

# Global Arrays integration tests: Debian's libga-mpich.a (compiled against ARMCI-MPI's armci.h) linked
# against our library.  Linked by the C++ driver because libarmci is C++.
GA_PROG_LIBS = $(GA_LIB) $(TEST_LIB) $(SCALAPACK_LIB) -llapack -lblas -lgfortran -lm
if HAVE_GA
GA_TESTS = ga_core ga_patches ga_sync ga_nb ga_groups
check_PROGRAMS += tests/ga/ga_core tests/ga/ga_patches tests/ga/ga_sync tests/ga/ga_nb tests/ga/ga_groups
tests_ga_ga_core_SOURCES = tests/ga/ga_core.c tests/ga/gatest.h
tests_ga_ga_core_LDADD = $(GA_PROG_LIBS)
tests_ga_ga_core_LINK = $(CXXLINK)
tests_ga_ga_patches_SOURCES = tests/ga/ga_patches.c tests/ga/gatest.h
tests_ga_ga_patches_LDADD = $(GA_PROG_LIBS)
tests_ga_ga_patches_LINK = $(CXXLINK)
tests_ga_ga_sync_SOURCES = tests/ga/ga_sync.c tests/ga/gatest.h
tests_ga_ga_sync_LDADD = $(GA_PROG_LIBS)
tests_ga_ga_sync_LINK = $(CXXLINK)
tests_ga_ga_nb_SOURCES = tests/ga/ga_nb.c tests/ga/gatest.h
tests_ga_ga_nb_LDADD = $(GA_PROG_LIBS)
tests_ga_ga_nb_LINK = $(CXXLINK)
tests_ga_ga_groups_SOURCES = tests/ga/ga_groups.c tests/ga/gatest.h
tests_ga_ga_groups_LDADD = $(GA_PROG_LIBS)
tests_ga_ga_groups_LINK = $(CXXLINK)
endif
EXTRA_DIST += tests/ga/build.sh tests/ga/run.sh

# PARMCI interface: one C program that overrides ARMCI_Put, linked against libarmci.so (normal LDADD) and
# against libarmci.a (-static in its LDFLAGS: libtool then links uninstalled libtool libraries statically).
# The static one spells out its link command: a program's own _LINK does not pick up its _LDFLAGS.
check_PROGRAMS += tests/parmci/parmci_override tests/parmci/parmci_override_static
tests_parmci_parmci_override_SOURCES = tests/parmci/parmci_override.c
tests_parmci_parmci_override_LDADD = $(TEST_LIB)
tests_parmci_parmci_override_LINK = $(CXXLINK)
tests_parmci_parmci_override_static_SOURCES = tests/parmci/parmci_override.c
tests_parmci_parmci_override_static_LDADD = $(TEST_LIB)
tests_parmci_parmci_override_static_LDFLAGS = -static $(AM_LDFLAGS)
tests_parmci_parmci_override_static_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) \
	--mode=link $(CXXLD) $(AM_CXXFLAGS) $(CXXFLAGS) $(tests_parmci_parmci_override_static_LDFLAGS) $(LDFLAGS) -o $@

# Profiler: a program with a known set of calls, checked from outside by run_profile.sh.
check_PROGRAMS += tests/profile/profile_ops
tests_profile_profile_ops_SOURCES = tests/profile/profile_ops.c
tests_profile_profile_ops_LDADD = $(TEST_LIB)
tests_profile_profile_ops_LINK = $(CXXLINK)
EXTRA_DIST += tests/profile/run_profile.sh

# The scale benchmark's data checks (issue 30), run by tests/manifest.txt at 16 ranks (--check-only).
check_PROGRAMS += benchmarks/scale
benchmarks_scale_SOURCES = benchmarks/scale.c benchmarks/bench_common.h benchmarks/memory_reading.h
benchmarks_scale_LDADD = $(TEST_LIB)
benchmarks_scale_LINK = $(CXXLINK)

check-programs: $(check_PROGRAMS)
check-local: $(check_PROGRAMS)
	$(top_srcdir)/tests/check.sh $(CHECK_ARGS)
