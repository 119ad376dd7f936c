/* context.c: start-up and shut-down of a run, collective failure with fixed
 * exit codes, the --timeout watchdog, memory checks and rank-0 printing. */
#include "fabricbench.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

/* MPICH's ranks wait for messages by polling without giving up their core
 * (Debian's MPICH 4.0, ch4:ucx; MPIR_CVAR_POLLS_BEFORE_YIELD changed
 * nothing), so ranks that share cores wait out each other's time slices:
 * on 2 cores, md on the LAMMPS test cases at 3-4 ranks took 25-100 s a
 * case under MPICH against 1-2 s under Open MPI, whose ranks yield when
 * oversubscribed (December 2026; docs/building.md). */
#if defined(MPICH_VERSION)
#define OVERSUBSCRIBED_MPI_NOTE                                                                    \
  "; MPICH's ranks poll without yielding, so ranks sharing a core can run tens of times slower"
#else
#define OVERSUBSCRIBED_MPI_NOTE ""
#endif

typedef struct {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int stop;
  double timeout_s;
  struct timespec deadline; /* CLOCK_REALTIME */
  FbContext *ctx;
} FbWatchdog;

/* SIGINT/SIGTERM: one line naming the rank and the phase, then exit 128 + the
 * signal, so every launcher reports the job as interrupted. Only
 * async-signal-safe calls; the context is published for the handler. */
static FbContext *signal_ctx;
/* Set once the run has decided how it ends: a signal then (the launcher
 * taking the job down after another rank's exit) ends it quietly with that
 * status rather than as an interruption. */
static volatile sig_atomic_t finishing_status = -1;

static size_t put_text(char *buf, size_t at, size_t cap, const char *s) {
  while (*s && at + 1 < cap) buf[at++] = *s++;
  return at;
}

static size_t put_int(char *buf, size_t at, size_t cap, int v) {
  char digits[16];
  int n = 0;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  do digits[n++] = (char)('0' + u % 10);
  while ((u /= 10) && n < 15);
  if (v < 0 && at + 1 < cap) buf[at++] = '-';
  while (n > 0 && at + 1 < cap) buf[at++] = digits[--n];
  return at;
}

const char *fb_phase_now(const FbContext *ctx) {
  int phase = ctx->timers.current;
  if (phase >= 0 && phase < ctx->timers.count) return ctx->timers.names[phase];
  return ctx->stage ? ctx->stage : "setup";
}

void fb_set_stage(FbContext *ctx, const char *stage) { ctx->stage = stage; }

/* How long a signalled rank without temporary files waits before exiting
 * (on_signal), so that the rank that writes (rank 0, usually) removes its
 * own first. One CI run under MPICH found a file left after SIGTERM to an
 * md run writing a trajectory and a dump (tests/reliability.sh; 30 tries
 * here did not repeat it): hydra kills the other ranks once one has
 * exited, so a writer that had not yet run its handler would leave its
 * temporary file. 0.2 s is far beyond an unlink. */
#define FB_SIGNAL_GRACE_NS 200000000L

static void on_signal(int sig) {
  if (finishing_status >= 0) _exit(finishing_status);
  char line[256];
  size_t n = 0;
  const FbContext *ctx = signal_ctx;
  if (ctx) {
    n = put_text(line, n, sizeof line, ctx->program);
    n = put_text(line, n, sizeof line, ": error: rank ");
    n = put_int(line, n, sizeof line, ctx->rank);
    n = put_text(line, n, sizeof line, ": interrupted by signal ");
    n = put_int(line, n, sizeof line, sig);
    n = put_text(line, n, sizeof line, " in phase '");
    n = put_text(line, n, sizeof line, fb_phase_now(ctx));
    n = put_text(line, n, sizeof line, "'\n");
    ssize_t ignored = write(STDERR_FILENO, line, n);
    (void)ignored;
  }
  /* A rank with no temporary file of its own waits before it exits: a
   * launcher that kills the job as soon as one rank has exited (MPICH's
   * hydra) must not kill a rank that is still removing its files. */
  if (!fb_temp_cleanup()) {
    struct timespec grace = {0, FB_SIGNAL_GRACE_NS};
    nanosleep(&grace, NULL);
  }
  _exit(128 + sig);
}

/* Ranks on this node as the launcher announces them before MPI starts
 * (Open MPI, MPICH's hydra); 0 when it does not say. */
static int launcher_local_ranks(void) {
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    if (v && *v && !*end && n > 0 && n < 1L << 20) return (int)n;
  }
  return 0;
}

/* OpenMP threads per rank when OMP_NUM_THREADS is not set. The OpenMP
 * runtime would start one per CPU of the rank's binding, and Open MPI binds
 * to a socket when there are more than two ranks: `mpirun -np 56 bmt` on a
 * 2 x 28-core node would start 28 threads in each of 56 ranks. Like LAMMPS
 * and GROMACS, share the node's cores out instead: cores / ranks on the
 * node, at least 1 and at most the CPUs the rank is bound to. */
static int shared_threads(int bound, int local_ranks, long cores) {
  long share = local_ranks > 0 && cores > 0 ? cores / local_ranks : bound;
  if (share < 1) share = 1;
  return share < bound ? (int)share : bound;
}

/* The ranks that share this node's memory. It lives here, not in nodes.c,
 * so that the context depends on nothing in nodes.c (which builds on the
 * context's agreement calls). */
MPI_Comm fb_node_comm(const FbContext *ctx) {
  MPI_Comm node;
  MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node);
  return node;
}

/* The cores this job may use on this node: the union of the CPU sets of
 * the node's ranks (their bindings, or all the CPUs the job is allowed when
 * unbound); also the number of ranks on the node. */
long fb_node_cores(const FbContext *ctx, int *local_ranks) {
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  MPI_Comm node = fb_node_comm(ctx);
  MPI_Comm_size(node, local_ranks);
  MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_UNSIGNED_CHAR, MPI_BOR, node);
  MPI_Comm_free(&node);
  return CPU_COUNT(&all);
}

static int omp_threads_set_by_user(void) {
  const char *v = getenv("OMP_NUM_THREADS");
  return v && *v;
}

void fb_init(FbContext *ctx, int *argc, char ***argv, const char *app) {
  memset(ctx, 0, sizeof *ctx);
  const int user_threads = omp_threads_set_by_user();
  const int bound = omp_get_max_threads();
  int threads = user_threads
                    ? bound
                    : shared_threads(bound, launcher_local_ranks(), sysconf(_SC_NPROCESSORS_ONLN));
  /* Hybrid runs need MPI_THREAD_FUNNELED (only the master thread calls MPI).
   * With one OpenMP thread ask for MPI_THREAD_SINGLE: Open MPI 4.1 adds about
   * 70 ns to every small message under FUNNELED (0.20 -> 0.27 us one-way over
   * shared memory here), which a latency benchmark must not carry. */
  int provided = 0;
  int wanted = threads > 1 ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
  MPI_Init_thread(argc, argv, wanted, &provided);
  ctx->comm = MPI_COMM_WORLD;
  MPI_Comm_rank(ctx->comm, &ctx->rank);
  MPI_Comm_size(ctx->comm, &ctx->size);
  ctx->app = app;
  const char *slash = strrchr((*argv)[0], '/');
  ctx->program = slash ? slash + 1 : (*argv)[0];
  int local_ranks = 1;
  long cores = fb_node_cores(ctx, &local_ranks);
  if (!user_threads) threads = shared_threads(bound, local_ranks, cores);
  if (provided < MPI_THREAD_FUNNELED) threads = 1;
  omp_set_num_threads(threads);
  ctx->threads = threads;
  if (ctx->rank == 0 && cores > 0 && (long)threads * local_ranks > cores)
    fprintf(stderr,
            "%s: warning: %d ranks x %d threads on a node with %ld cores oversubscribe it "
            "(OMP_NUM_THREADS%s)%s\n",
            ctx->program, local_ranks, threads, cores, user_threads ? " is set" : " unset",
            local_ranks > cores ? OVERSUBSCRIBED_MPI_NOTE : "");
  ctx->common.repeat = 1;
  ctx->timers.current = -1;
  ctx->stage = "setup";
  /* One start time for every rank, from rank 0. */
  time_t now = time(NULL);
  long long now_ll = (long long)now;
  MPI_Bcast(&now_ll, 1, MPI_LONG_LONG, 0, ctx->comm);
  now = (time_t)now_ll;
  struct tm tm_utc;
  gmtime_r(&now, &tm_utc);
  strftime(ctx->started_utc, sizeof ctx->started_utc, "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
  ctx->started_wall = MPI_Wtime();
  ctx->stall_rank = fb_test_hook("stall") ? ctx->size - 1 : -1;
  signal_ctx = ctx;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  ctx->env_start = fb_env_snapshot();
}

static void watchdog_stop(FbContext *ctx) {
  FbWatchdog *w = ctx->watchdog;
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  w->stop = 1;
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  free(w);
  ctx->watchdog = NULL;
}

void fb_finalize(FbContext *ctx, int status) {
  finishing_status = status;
  watchdog_stop(ctx);
  fflush(stdout);
  fflush(stderr);
  fb_env_free(ctx->env_start);
  MPI_Finalize();
  exit(status);
}

/* Time a firing watchdog waits before leaving (0.5 s). */
#define FB_WATCHDOG_GRACE_NS 500000000L

/* t + seconds. */
static struct timespec time_plus(struct timespec t, double seconds) {
  double whole = 0.0;
  double frac = modf(seconds, &whole);
  t.tv_sec += (time_t)whole;
  t.tv_nsec += (long)(frac * 1e9);
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec += 1;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

static void *watchdog_main(void *arg) {
  FbWatchdog *w = arg;
  pthread_mutex_lock(&w->lock);
  int rc = 0;
  while (!w->stop && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->cond, &w->lock, &w->deadline);
  int fire = !w->stop;
  pthread_mutex_unlock(&w->lock);
  if (fire) {
    FbContext *ctx = w->ctx;
    const char *name = fb_phase_now(ctx);
    fb_temp_cleanup();
    fprintf(stderr, "%s: error: rank %d: --timeout %g s exceeded in phase '%s'\n", ctx->program,
            ctx->rank, w->timeout_s, name);
    fflush(stderr);
    /* The launcher takes the job down when the first rank exits, and a rank
     * it kills ends by SIGKILL: MPICH's hydra then reports 9, not 3 (seen on
     * CI, 2 ranks of stream, when each rank's deadline was read on its own
     * thread). So every rank leaves at nearly the same instant, the grace
     * after the deadline they share (rank 0's, see fb_watchdog_start),
     * having named its phase first. */
    struct timespec leave = time_plus(w->deadline, FB_WATCHDOG_GRACE_NS * 1e-9);
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &leave, NULL) == EINTR) {}
    /* MPI may not be called from this thread (MPI_THREAD_FUNNELED): leave the
     * process with exit code 3; the launcher then takes the whole job down. */
    _exit(FB_EXIT_RUNTIME);
  }
  return NULL;
}

void fb_watchdog_start(FbContext *ctx, double timeout_s) {
  if (timeout_s <= 0.0) return;
  FbWatchdog *w = calloc(1, sizeof *w);
  if (!w) fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory starting the watchdog");
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->cond, NULL);
  w->timeout_s = timeout_s;
  w->ctx = ctx;
  /* one deadline for all ranks, rank 0's (every rank calls this right after
   * the options' collective check, the same timeout on each) */
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  long long when[2] = {(long long)now.tv_sec, (long long)now.tv_nsec};
  MPI_Bcast(when, 2, MPI_LONG_LONG, 0, ctx->comm);
  now.tv_sec = (time_t)when[0];
  now.tv_nsec = (long)when[1];
  w->deadline = time_plus(now, timeout_s);
  if (pthread_create(&w->thread, NULL, watchdog_main, w) != 0) {
    free(w);
    fb_abort(ctx, FB_EXIT_RUNTIME, "cannot start the watchdog thread");
  }
  ctx->watchdog = w;
}

void fb_stall_if_asked(const FbContext *ctx) {
  if (ctx->rank != ctx->stall_rank) return;
  for (;;) sleep(1); /* a hung rank, for the --timeout tests */
}

/* One error line on stderr: "program: error: [rank R: ]message". */
static void print_error(const FbContext *ctx, int with_rank, const char *msg) {
  fflush(stdout);
  if (with_rank)
    fprintf(stderr, "%s: error: rank %d: %s\n", ctx->program, ctx->rank, msg);
  else
    fprintf(stderr, "%s: error: %s\n", ctx->program, msg);
  fflush(stderr);
}

void fb_fail(FbContext *ctx, int code, const char *fmt, ...) {
  if (ctx->rank == 0) {
    char msg[FB_MSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error(ctx, 0, msg);
  }
  fb_finalize(ctx, code);
  abort(); /* not reached */
}

void fb_agree(FbContext *ctx, int local_code, const char *local_msg) {
  /* the highest code, the lowest failing rank, and how many ranks failed */
  int in[3] = {local_code, -(local_code ? ctx->rank : ctx->size), local_code ? 1 : 0};
  int worst[2], failing = 0;
  MPI_Allreduce(in, worst, 2, MPI_INT, MPI_MAX, ctx->comm);
  MPI_Allreduce(&in[2], &failing, 1, MPI_INT, MPI_SUM, ctx->comm);
  int max_code = worst[0];
  int first_rank = -worst[1];
  if (max_code == 0) return;
  /* the rank is named when the failure is not every rank's */
  if (ctx->rank == first_rank)
    print_error(ctx, failing < ctx->size, local_msg ? local_msg : "failed");
  fb_finalize(ctx, max_code);
}

void fb_agree_root(FbContext *ctx, int root_code, const char *root_msg) {
  int code = root_code;
  MPI_Bcast(&code, 1, MPI_INT, 0, ctx->comm);
  if (code == 0) return;
  if (ctx->rank == 0) print_error(ctx, 0, root_msg ? root_msg : "failed");
  fb_finalize(ctx, code);
}

void fb_abort(FbContext *ctx, int code, const char *fmt, ...) {
  char msg[FB_MSG_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  print_error(ctx, 1, msg);
  fb_temp_cleanup();
  MPI_Abort(ctx->comm, code);
  exit(code);
}

/* Large arrays are aligned to 2 MiB and marked for transparent huge pages:
 * fewer TLB misses for streaming kernels (STREAM Triad on 2 ranks here: about
 * 35 GB/s with 4 KiB pages, 40-42 GB/s with huge pages). */
void *fb_alloc(size_t bytes) { return fb_alloc_pages(bytes, 1); }

void *fb_alloc_pages(size_t bytes, int huge) {
  void *p = NULL;
  if (bytes == 0) bytes = 1;
  /* huge: from a huge page up, its whole huge pages marked; not huge: from a
   * base page up, whole base pages of its own, every one refused */
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t align = bytes >= FB_HUGE_PAGE ? FB_HUGE_PAGE : !huge && bytes >= page ? page : 64;
  size_t marked = huge ? bytes / FB_HUGE_PAGE * FB_HUGE_PAGE : (bytes + page - 1) / page * page;
  if (posix_memalign(&p, align, huge ? bytes : marked) != 0) return NULL;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  if (align > 64) madvise(p, marked, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
  return p;
}

void fb_print(const FbContext *ctx, const char *fmt, ...) {
  if (ctx->rank != 0 || ctx->common.quiet) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

int fb_test_hook(const char *name) {
  const char *hook = getenv("FABRICBENCH_TEST_HOOK");
  return hook && strcmp(hook, name) == 0;
}
