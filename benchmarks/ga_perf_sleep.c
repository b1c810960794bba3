/* A sleep() that sleeps GA_PERF_SLEEP times as long (a fraction, e.g. 0.1; unset: as asked), for
 * benchmarks/ga_perf_ports.sh.  GA's performance programs (global/testing/perf.F, perfmod.F, mir_perf2.F,
 * perf2.c; armci/testing/perf.c) keep every rank but 0 in sleep(1..3) while rank 0 times its transfers, one
 * sleep per message size and operation: 1.5 to 3 minutes of sleeping per run.  Loaded with LD_PRELOAD into the
 * ranks only (not the launcher), it shortens those waits and nothing else: the ranks still sleep (they do not
 * spin on the shared cores) while rank 0 measures, as in the programs.  gfortran's SLEEP calls libc's sleep(),
 * so it covers the Fortran programs too.
 *
 *   cc -O2 -shared -fPIC -o ga_perf_sleep.so benchmarks/ga_perf_sleep.c
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

unsigned int sleep(unsigned int seconds)
{
  const char *f = getenv("GA_PERF_SLEEP");
  double s = seconds * (f && *f ? atof(f) : 1.0);
  struct timespec t, rem;
  if (s <= 0) return 0;
  t.tv_sec = (time_t)s;
  t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
  while (nanosleep(&t, &rem) != 0 && errno == EINTR) t = rem;
  return 0;
}
