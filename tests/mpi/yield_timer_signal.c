/* The yield timer's signal (wait/yield_timer.h) and the program's own handlers.  Linked with the MPI
 * wrapper library, run with ARMCI_MPI_YIELD_TIMER_US=20 and ARMCI_MPI_YIELD=0 (the wrapped MPI_Barrier and
 * MPI_Comm_dup are then timed calls); one mode per run:
 *   foreign  after ARMCI_Init the program installs its own handler on the timer's signal: timed calls must
 *            not send it a single signal, the timer must say it stopped (ARMCI_VERBOSE=1) and MPI_Finalize
 *            must leave the program's handler in place;
 *   chosen   with ARMCI_MPI_YIELD_TIMER_SIGNAL set, the timer takes that signal, and gives it back (default
 *            action) after MPI_Finalize;
 *   taken    the program has a handler on the signal ARMCI_MPI_YIELD_TIMER_SIGNAL names before it starts
 *            MPI: the timer takes no signal (and says so under ARMCI_VERBOSE=1), the handler gets none;
 *   off      with ARMCI_MPI_YIELD_TIMER_US=0 no real-time signal gets a handler.
 * Standard error goes to a file while the program runs, so that it can look for the timer's message; the
 * file is copied to standard error at the end.  Exit status 0 on success. */
#include <armci.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_mine = 0;
static void my_handler(int s) {
  (void)s;
  g_mine = g_mine + 1;
}

static int failures = 0;
static int me = -1;
#define CHECK(cond, ...)                            \
  do {                                              \
    if (!(cond)) {                                  \
      char msg_[512];                               \
      snprintf(msg_, sizeof msg_, __VA_ARGS__);     \
      fprintf(stderr, "[%d] FAIL: %s\n", me, msg_); \
      ++failures;                                   \
    }                                               \
  } while (0)

/* The real-time signal with armci-x's handler on it (an SA_SIGINFO handler), or 0. */
static int timer_signal(void) {
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) {
    struct sigaction a;
    if (sigaction(s, NULL, &a) == 0 && (a.sa_flags & SA_SIGINFO)) return s;
  }
  return 0;
}

static int has_handler(int s) {
  struct sigaction a;
  return sigaction(s, NULL, &a) == 0 && ((a.sa_flags & SA_SIGINFO) || a.sa_handler != SIG_DFL);
}

/* Timed calls in which rank 0 waits a few ms for rank 1: long enough for the 20 us timer to fire. */
static void timed_calls(void) {
  for (int i = 0; i < 10; ++i) {
    if (me == 1) usleep(3000);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm dup;
    if (me == 0) usleep(3000);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
  }
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  char path[] = "/tmp/armcix-yield-timer-signal.XXXXXX";
  const int log = mkstemp(path);
  const int saved_stderr = dup(2);
  if (log < 0 || saved_stderr < 0) return 2;
  unlink(path);
  fflush(stderr);
  dup2(log, 2);

  const char* chosen = getenv("ARMCI_MPI_YIELD_TIMER_SIGNAL");
  struct sigaction mine;
  memset(&mine, 0, sizeof mine);
  mine.sa_handler = my_handler;
  mine.sa_flags = SA_RESTART;
  sigemptyset(&mine.sa_mask);
  if (strcmp(mode, "taken") == 0 && chosen) sigaction(atoi(chosen), &mine, NULL);

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  ARMCI_Init();
  int s = 0;
  if (strcmp(mode, "foreign") == 0) {
    s = timer_signal();
    CHECK(s != 0, "no real-time signal has the yield timer's handler");
    if (s) sigaction(s, &mine, NULL);
    timed_calls();
    CHECK(g_mine == 0, "the program's handler on signal %d was sent %d of the timer's signals", s, (int)g_mine);
  } else if (strcmp(mode, "chosen") == 0) {
    s = chosen ? atoi(chosen) : 0;
    CHECK(s > 0 && timer_signal() == s, "ARMCI_MPI_YIELD_TIMER_SIGNAL=%s: the timer's handler is on signal %d",
          chosen ? chosen : "(unset)", timer_signal());
    timed_calls();
  } else if (strcmp(mode, "taken") == 0) {
    s = chosen ? atoi(chosen) : 0;
    CHECK(s > 0 && timer_signal() == 0,
          "ARMCI_MPI_YIELD_TIMER_SIGNAL=%s has the program's handler, yet signal %d has "
          "the timer's",
          chosen ? chosen : "(unset)", timer_signal());
    timed_calls();
    CHECK(g_mine == 0, "the program's handler on signal %d was sent %d signals", s, (int)g_mine);
  } else if (strcmp(mode, "off") == 0) {
    CHECK(timer_signal() == 0, "ARMCI_MPI_YIELD_TIMER_US=0, yet signal %d has the timer's handler", timer_signal());
    timed_calls();
  } else {
    CHECK(0, "unknown mode '%s'", mode);
  }
  ARMCI_Finalize();
  MPI_Finalize();
  if ((strcmp(mode, "foreign") == 0 || strcmp(mode, "taken") == 0) && s) {
    struct sigaction now;
    sigaction(s, NULL, &now);
    CHECK(!(now.sa_flags & SA_SIGINFO) && now.sa_handler == my_handler,
          "after MPI_Finalize signal %d no longer has the program's handler", s);
  }
  if (strcmp(mode, "chosen") == 0 && s > 0)
    CHECK(!has_handler(s), "after MPI_Finalize signal %d still has a handler: the timer did not give it back", s);

  /* What went to standard error: the timer's message under ARMCI_VERBOSE (foreign mode). */
  fflush(stderr);
  dup2(saved_stderr, 2);
  char text[65536];
  const ssize_t n = pread(log, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = '\0';
  fputs(text, stderr);
  if (strcmp(mode, "foreign") == 0 && getenv("ARMCI_VERBOSE") && strcmp(getenv("ARMCI_VERBOSE"), "1") == 0)
    CHECK(strstr(text, "has another handler") && strstr(text, "the timer is off from now on"),
          "no message under ARMCI_VERBOSE saying that the timer stopped using signal %d", s);
  if (strcmp(mode, "taken") == 0 && getenv("ARMCI_VERBOSE") && strcmp(getenv("ARMCI_VERBOSE"), "1") == 0)
    CHECK(strstr(text, "has a handler; timer off"), "no message under ARMCI_VERBOSE saying that signal %d was taken",
          s);
  if (failures == 0) printf("[%d] PASS yield timer signal, mode %s\n", me, mode);
  return failures ? 1 : 0;
}
