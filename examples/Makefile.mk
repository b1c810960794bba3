# The README's main job: a Global Arrays program (Debian's prebuilt GA) running on armci-x.
if HAVE_GA
noinst_PROGRAMS += examples/ga_demo
examples_ga_demo_SOURCES = examples/ga_demo.c
examples_ga_demo_LDADD = $(GA_PROG_LIBS)
examples_ga_demo_LINK = $(CXXLINK)
endif
