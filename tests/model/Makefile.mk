# The model tester (tests/model/main.cc): random seeded ARMCI programs checked against a reference model,
# run by the lines of tests/model/manifest.txt in every layout.  Compiled with optimisation (unlike the
# GoogleTest programs): its own model work is on every checked operation.
EXTRA_DIST += tests/model/manifest.txt tests/model/self_test.sh tests/model/cli_errors.sh tests/model/soak.sh tests/model/run-against-armci-mpi.sh
check_PROGRAMS += tests/model/model_tester
tests_model_model_tester_SOURCES = tests/model/main.cc tests/model/program.cc tests/model/program.h \
	tests/model/run.cc tests/model/run.h tests/model/emit.cc tests/model/emit.h tests/model/armci_c.h
tests_model_model_tester_LDADD = $(TEST_LIB) -lpthread
tests/model/%.$(OBJEXT): TEST_OPTFLAGS = -O2
