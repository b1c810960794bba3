# Re-creations of Global Arrays 5.8's own test programs (global/testing/), built against Debian's GA and
# armci-x: tests/gasuite/manifest.txt runs them (tests/check.sh --manifest tests/gasuite/manifest.txt).
# The Fortran one (testf.F, GA's test.F) is built by tests/gasuite/build-fortran.sh, called from its
# manifest line, so that configure needs no Fortran compiler.
EXTRA_DIST += tests/gasuite/manifest.txt tests/gasuite/testf.F tests/gasuite/testf.fh \
	tests/gasuite/build-fortran.sh tests/gasuite/run-against-armci-mpi.sh
if HAVE_GA
GASUITE_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/ga
check_PROGRAMS += tests/gasuite/ngatest tests/gasuite/ghosts tests/gasuite/mirror tests/gasuite/pgtest \
	tests/gasuite/nbtest tests/gasuite/patchmat
tests_gasuite_ngatest_SOURCES = tests/gasuite/ngatest.c tests/gasuite/gasuite.h
tests_gasuite_ngatest_CPPFLAGS = $(GASUITE_CPPFLAGS)
tests_gasuite_ngatest_LDADD = $(GA_PROG_LIBS)
tests_gasuite_ngatest_LINK = $(CXXLINK)
tests_gasuite_ghosts_SOURCES = tests/gasuite/ghosts.c tests/gasuite/gasuite.h
tests_gasuite_ghosts_CPPFLAGS = $(GASUITE_CPPFLAGS)
tests_gasuite_ghosts_LDADD = $(GA_PROG_LIBS)
tests_gasuite_ghosts_LINK = $(CXXLINK)
tests_gasuite_mirror_SOURCES = tests/gasuite/mirror.c tests/gasuite/gasuite.h
tests_gasuite_mirror_CPPFLAGS = $(GASUITE_CPPFLAGS)
tests_gasuite_mirror_LDADD = $(GA_PROG_LIBS)
tests_gasuite_mirror_LINK = $(CXXLINK)
tests_gasuite_pgtest_SOURCES = tests/gasuite/pgtest.c tests/gasuite/gasuite.h
tests_gasuite_pgtest_CPPFLAGS = $(GASUITE_CPPFLAGS)
tests_gasuite_pgtest_LDADD = $(GA_PROG_LIBS)
tests_gasuite_pgtest_LINK = $(CXXLINK)
tests_gasuite_nbtest_SOURCES = tests/gasuite/nbtest.c tests/gasuite/gasuite.h
tests_gasuite_nbtest_CPPFLAGS = $(GASUITE_CPPFLAGS)
tests_gasuite_nbtest_LDADD = $(GA_PROG_LIBS)
tests_gasuite_nbtest_LINK = $(CXXLINK)
tests_gasuite_patchmat_SOURCES = tests/gasuite/patchmat.c tests/gasuite/gasuite.h
tests_gasuite_patchmat_CPPFLAGS = $(GASUITE_CPPFLAGS)
tests_gasuite_patchmat_LDADD = $(GA_PROG_LIBS)
tests_gasuite_patchmat_LINK = $(CXXLINK)
endif
