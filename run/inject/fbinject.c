/* fbinject.c: an MPI-level fabric injector (PMPI interposition, loaded with
 * LD_PRELOAD). Ranks are grouped into virtual nodes (FB_INJECT_RANKS_PER_NODE
 * consecutive world ranks each); every message that crosses virtual nodes is
 * delivered alpha + bytes / beta after it is sent, and each virtual node's
 * link carries one message at a time (bytes / beta each), so messages queue as
 * on a real link. Collectives over communicators that span virtual nodes cost
 * a log2(nodes)-step model on every rank. Needs no privilege and works over
 * shared memory too.
 *
 *   FB_INJECT_ALPHA_US       latency per message (microseconds)
 *   FB_INJECT_BETA_MBS       link bandwidth (MB/s, 1e6 bytes/s)
 *   FB_INJECT_RANKS_PER_NODE ranks per virtual node (default: half the job)
 * A value that is not a number (at least 0; a whole number of at least 1
 * for the ranks) ends the job: exit 2, one line naming the variable.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int on;
  double alpha_ns, ns_per_byte;
  int world_rank, world_size, rpn, my_node, nodes;
  uint64_t *link; /* shared by the ranks of my virtual node: when it frees */
  char shm_name[96];
  int keyval;
} Injector;

static Injector inj = {0, 0, 0, 0, 0, 1, 0, 1, NULL, "", MPI_KEYVAL_INVALID};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spin_until(uint64_t t) {
  while (now_ns() < t) {}
}

/* The link is busy bytes/beta per message; the message arrives alpha later. */
static void transmit(size_t bytes) {
  uint64_t occupy = (uint64_t)((double)bytes * inj.ns_per_byte);
  uint64_t old = __atomic_load_n(inj.link, __ATOMIC_ACQUIRE), start, now = now_ns();
  do {
    start = old > now ? old : now;
  } while (!__atomic_compare_exchange_n(inj.link, &old, start + occupy, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE));
  spin_until(start + occupy + (uint64_t)inj.alpha_ns);
}

static int del_map(MPI_Comm c, int k, void *attr, void *extra) {
  (void)c, (void)k, (void)extra;
  free(attr);
  return MPI_SUCCESS;
}

/* World ranks of a communicator's members, cached on it. */
static const int *world_ranks(MPI_Comm comm) {
  int *map, flag, size;
  if (comm == MPI_COMM_WORLD) return NULL;
  PMPI_Comm_get_attr(comm, inj.keyval, &map, &flag);
  if (flag) return map;
  PMPI_Comm_size(comm, &size);
  map = malloc(sizeof(int) * 2 * (size_t)size);
  int *local = map + size;
  MPI_Group g, wg;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < size; i++) local[i] = i;
  PMPI_Group_translate_ranks(g, size, local, wg, map);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  PMPI_Comm_set_attr(comm, inj.keyval, map);
  return map;
}

static int node_of(MPI_Comm comm, int rank) {
  const int *map = world_ranks(comm);
  int w = map ? map[rank] : rank;
  return w / inj.rpn;
}

static int crosses(MPI_Comm comm, int dest) {
  if (!inj.on || dest < 0 || dest == MPI_PROC_NULL) return 0;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return !inter && node_of(comm, dest) != inj.my_node;
}

static size_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return (size_t)count * (size_t)size;
}

static void before_send(int count, MPI_Datatype type, int dest, MPI_Comm comm) {
  if (crosses(comm, dest)) transmit(bytes_of(count, type));
}

/* Virtual nodes spanned by a communicator. */
static int nodes_in(MPI_Comm comm) {
  int size, n = 0, last = -1, inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return 1;
  PMPI_Comm_size(comm, &size);
  int seen[1024] = {0};
  for (int r = 0; r < size; r++) {
    int nd = node_of(comm, r);
    if (nd < 1024 && !seen[nd])
      seen[nd] = 1, n++;
    else if (nd >= 1024 && nd != last)
      n++;
    last = nd;
  }
  return n;
}

/* log2(nodes) steps of alpha, plus the bytes each rank must move across. */
static void collective(MPI_Comm comm, size_t bytes_per_step, size_t total_bytes) {
  if (!inj.on) return;
  int n = nodes_in(comm);
  if (n < 2) return;
  int steps = (int)ceil(log2((double)n));
  double ns = steps * (inj.alpha_ns + bytes_per_step * inj.ns_per_byte) +
              total_bytes * inj.ns_per_byte * (n - 1) / n;
  spin_until(now_ns() + (uint64_t)ns);
}

/* A variable's value as a finite number of at least `least`, whole where
 * asked (unset: the fallback). Anything else ("12,5" from a decimal-comma
 * locale, "fast") is bad input: every rank reads the same environment, so
 * every rank exits 2, and rank 0 says which variable. */
static double env_number(const char *name, double fallback, double least, int whole) {
  const char *s = getenv(name);
  if (!s) return fallback;
  char *end;
  double v = strtod(s, &end);
  if (end != s && *end == '\0' && isfinite(v) && v >= least && (!whole || v == floor(v))) return v;
  if (inj.world_rank == 0)
    fprintf(stderr, "fbinject: error: %s='%s' is not a %s of at least %g\n", name, s,
            whole ? "whole number" : "number", least);
  PMPI_Finalize();
  exit(2);
}

static void setup(void) {
  PMPI_Comm_rank(MPI_COMM_WORLD, &inj.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &inj.world_size);
  double rpn = env_number("FB_INJECT_RANKS_PER_NODE", (inj.world_size + 1) / 2, 1, 1);
  inj.rpn = rpn > inj.world_size ? inj.world_size : (int)rpn;
  inj.my_node = inj.world_rank / inj.rpn;
  inj.nodes = (inj.world_size + inj.rpn - 1) / inj.rpn;
  inj.alpha_ns = env_number("FB_INJECT_ALPHA_US", 0, 0, 0) * 1e3;
  double beta = env_number("FB_INJECT_BETA_MBS", 0, 0, 0);
  inj.ns_per_byte = beta > 0 ? 1e9 / (beta * 1e6) : 0.0;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_map, &inj.keyval, NULL);
  /* one shared word per virtual node: the time its link frees */
  long long session = 0;
  if (inj.world_rank == 0) session = (long long)getpid() * 1000003LL + (long long)time(NULL);
  PMPI_Bcast(&session, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  snprintf(inj.shm_name, sizeof inj.shm_name, "/fbinject-%lld-%d", session, inj.my_node);
  int fd = shm_open(inj.shm_name, O_CREAT | O_RDWR, 0600);
  if (fd >= 0 && ftruncate(fd, 64) == 0)
    inj.link = mmap(NULL, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (fd >= 0) close(fd);
  if (!inj.link || inj.link == MAP_FAILED) {
    static uint64_t private_link;
    inj.link = &private_link; /* still a correct model, one link per rank */
  }
  inj.on = inj.nodes > 1 && (inj.alpha_ns > 0 || inj.ns_per_byte > 0);
  PMPI_Barrier(MPI_COMM_WORLD);
  if (inj.world_rank == 0 && getenv("FB_INJECT_VERBOSE"))
    fprintf(stderr, "fbinject: %d virtual nodes of %d ranks, alpha %.3f us, beta %.1f MB/s\n",
            inj.nodes, inj.rpn, inj.alpha_ns / 1e3, beta);
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  setup();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  setup();
  return rc;
}

int MPI_Finalize(void) {
  PMPI_Barrier(MPI_COMM_WORLD);
  if (inj.shm_name[0] && inj.world_rank % inj.rpn == 0) shm_unlink(inj.shm_name);
  return PMPI_Finalize();
}

/* point to point: the sender waits for the emulated link, then sends */
int MPI_Send(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  before_send(c, t, d, comm);
  return PMPI_Send(b, c, t, d, tag, comm);
}
int MPI_Ssend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  before_send(c, t, d, comm);
  return PMPI_Ssend(b, c, t, d, tag, comm);
}
int MPI_Rsend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm) {
  before_send(c, t, d, comm);
  return PMPI_Rsend(b, c, t, d, tag, comm);
}
int MPI_Isend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm, MPI_Request *r) {
  before_send(c, t, d, comm);
  return PMPI_Isend(b, c, t, d, tag, comm, r);
}
int MPI_Issend(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm,
               MPI_Request *r) {
  before_send(c, t, d, comm);
  return PMPI_Issend(b, c, t, d, tag, comm, r);
}
int MPI_Sendrecv(const void *sb, int sc, MPI_Datatype st, int d, int stag, void *rb, int rc,
                 MPI_Datatype rt, int s, int rtag, MPI_Comm comm, MPI_Status *status) {
  before_send(sc, st, d, comm);
  return PMPI_Sendrecv(sb, sc, st, d, stag, rb, rc, rt, s, rtag, comm, status);
}
int MPI_Sendrecv_replace(void *b, int c, MPI_Datatype t, int d, int stag, int s, int rtag,
                         MPI_Comm comm, MPI_Status *status) {
  before_send(c, t, d, comm);
  return PMPI_Sendrecv_replace(b, c, t, d, stag, s, rtag, comm, status);
}

/* persistent sends: remembered at init, delayed at every start */
typedef struct {
  MPI_Request req;
  size_t bytes;
  int cross;
} Persistent;
static Persistent persistent[4096];
static int n_persistent;

int MPI_Send_init(const void *b, int c, MPI_Datatype t, int d, int tag, MPI_Comm comm,
                  MPI_Request *r) {
  int rc = PMPI_Send_init(b, c, t, d, tag, comm, r);
  if (inj.on && n_persistent < 4096)
    persistent[n_persistent++] = (Persistent){*r, bytes_of(c, t), crosses(comm, d)};
  return rc;
}

static void before_start(MPI_Request r) {
  for (int i = 0; i < n_persistent; i++)
    if (persistent[i].req == r) {
      if (persistent[i].cross) transmit(persistent[i].bytes);
      return;
    }
}
int MPI_Start(MPI_Request *r) {
  if (inj.on) before_start(*r);
  return PMPI_Start(r);
}
int MPI_Startall(int n, MPI_Request *r) {
  for (int i = 0; inj.on && i < n; i++) before_start(r[i]);
  return PMPI_Startall(n, r);
}
int MPI_Request_free(MPI_Request *r) {
  for (int i = 0; i < n_persistent; i++)
    if (persistent[i].req == *r) persistent[i] = persistent[--n_persistent];
  return PMPI_Request_free(r);
}

/* collectives: the library's own messages are not seen, so each costs a model */
int MPI_Barrier(MPI_Comm comm) {
  int rc = PMPI_Barrier(comm);
  collective(comm, 0, 0);
  return rc;
}
int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm comm) {
  int rc = PMPI_Bcast(b, c, t, root, comm);
  collective(comm, bytes_of(c, t), 0);
  return rc;
}
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  int rc = PMPI_Allreduce(s, r, c, t, op, comm);
  collective(comm, bytes_of(c, t), 0);
  return rc;
}
int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm) {
  int rc = PMPI_Reduce(s, r, c, t, op, root, comm);
  collective(comm, bytes_of(c, t), 0);
  return rc;
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt,
                  MPI_Comm comm) {
  int rc = PMPI_Allgather(s, sc, st, r, rc_, rt, comm);
  int size;
  PMPI_Comm_size(comm, &size);
  collective(comm, 0, bytes_of(rc_, rt) * (size_t)size);
  return rc;
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int *rcs,
                   const int *displs, MPI_Datatype rt, MPI_Comm comm) {
  int rc = PMPI_Allgatherv(s, sc, st, r, rcs, displs, rt, comm);
  int size;
  PMPI_Comm_size(comm, &size);
  size_t total = 0;
  for (int i = 0; i < size; i++) total += bytes_of(rcs[i], rt);
  collective(comm, 0, total);
  return rc;
}
int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc_, MPI_Datatype rt, int root,
               MPI_Comm comm) {
  int rc = PMPI_Gather(s, sc, st, r, rc_, rt, root, comm);
  int size;
  PMPI_Comm_size(comm, &size);
  collective(comm, 0, bytes_of(sc, st) * (size_t)size);
  return rc;
}
