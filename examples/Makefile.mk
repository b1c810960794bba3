# The README's main job: a Global Arrays program (Debian's prebuilt GA) running on armci-x.
if HAVE_GA
noinst_PROGRAMS += examples/ga_demo
examples_ga_demo_SOURCES = examples/ga_demo.c
# Plain libarmci, without the opt-in wrapper library: what a GA user links by default (the test programs
# link libarmcix-mpiwrap too, for the features that need it; tests/Makefile.mk).
examples_ga_demo_LDADD = $(GA_LIB) $(PLAIN_TEST_LIB) $(SCALAPACK_LIB) -llapack -lblas -lgfortran -lm
examples_ga_demo_LINK = $(CXXLINK)
endif
