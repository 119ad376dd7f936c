/* nodes.c: which ranks share a node (by processor name), for pairing ranks
 * across nodes and sizing per-node resources, and the node's facts (memory
 * available, last-level cache, the time a cache line takes between its
 * ranks). */
#include "fabricbench.h"
#include "internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fb_node_layout(FbContext *ctx, int *node_of_rank, int *n_nodes) {
  char name[MPI_MAX_PROCESSOR_NAME] = "";
  int len;
  MPI_Get_processor_name(name, &len);
  char *all = malloc((size_t)ctx->size * MPI_MAX_PROCESSOR_NAME);
  int ok = all != NULL, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
  if (!all_ok) {
    free(all);
    return FB_EXIT_RUNTIME;
  }
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                ctx->comm);
  int nodes = 0;
  for (int r = 0; r < ctx->size; r++) {
    node_of_rank[r] = -1;
    for (int q = 0; q < r && node_of_rank[r] < 0; q++)
      if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                  all + (size_t)r * MPI_MAX_PROCESSOR_NAME))
        node_of_rank[r] = node_of_rank[q];
    if (node_of_rank[r] < 0) node_of_rank[r] = nodes++;
  }
  free(all);
  *n_nodes = nodes;
  return 0;
}

void fb_node_position(const FbContext *ctx, int *node_rank, int *node_size) {
  MPI_Comm node = fb_node_comm(ctx);
  MPI_Comm_rank(node, node_rank);
  MPI_Comm_size(node, node_size);
  MPI_Comm_free(&node);
}

int fb_ranks_on_my_node(FbContext *ctx) {
  int rank, size;
  fb_node_position(ctx, &rank, &size);
  return size;
}

double fb_nodes_mem_available(FbContext *ctx) {
  int rank, size;
  fb_node_position(ctx, &rank, &size);
  double mine = rank == 0 ? (double)fb_mem_available() : 0.0, total = 0.0;
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, ctx->comm);
  return total;
}

/* The node's facts: available memory and the last-level cache. */
size_t fb_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  size_t kib = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long v;
    if (sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
      kib = (size_t)v;
      break;
    }
  }
  fclose(f);
  return kib * 1024;
}

void fb_check_memory(FbContext *ctx, size_t need_bytes, const char *what) {
  MPI_Comm node = fb_node_comm(ctx);
  int node_rank;
  MPI_Comm_rank(node, &node_rank);
  double need = (double)need_bytes, node_need = 0.0;
  MPI_Reduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, 0, node);
  MPI_Comm_free(&node);
  int code = 0;
  char msg[FB_MSG_LEN] = "";
  if (node_rank == 0) {
    double avail = (double)fb_mem_available();
    if (avail > 0.0 && node_need > avail) {
      code = FB_EXIT_RUNTIME;
      snprintf(msg, sizeof msg, "%s need %.2f GiB on this node but only %.2f GiB is available",
               what, node_need / 1073741824.0, avail / 1073741824.0);
    }
  }
  fb_agree(ctx, code, msg);
}

/* Bytes of [p, p + bytes) on transparent huge pages: each mapping of
 * /proc/self/smaps that overlaps the range gives its AnonHugePages, at most
 * the overlap (a mapping can hold other allocations too); -1 if unreadable. */
static long long huge_page_bytes(const void *p, size_t bytes) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  const unsigned long lo = (unsigned long)(uintptr_t)p, hi = lo + bytes;
  unsigned long start = 0, end = 0;
  long long total = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    unsigned long long kib;
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
      start = a;
      end = b;
    } else if (sscanf(line, "AnonHugePages: %llu kB", &kib) == 1 && end > lo && start < hi) {
      unsigned long overlap = (end < hi ? end : hi) - (start > lo ? start : lo);
      total += (long long)(kib * 1024 < overlap ? kib * 1024 : overlap);
    }
  }
  fclose(f);
  return total;
}

/* The kernel's transparent huge page mode: the bracketed word of
 * /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"). */
static void thp_mode(char *buf, size_t len) {
  snprintf(buf, len, "unknown");
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return;
  char line[128] = "", word[32];
  if (fgets(line, sizeof line, f)) {
    const char *open = strchr(line, '[');
    if (open && sscanf(open, "[%31[^]]", word) == 1) snprintf(buf, len, "%s", word);
  }
  fclose(f);
}

void fb_record_pages(FbContext *ctx, FbResult *r, int n, void *const *ptrs, const size_t *bytes) {
  long long on = 0, all = 0;
  for (int i = 0; i < n && on >= 0; i++) {
    long long h = huge_page_bytes(ptrs[i], bytes[i]);
    on = h < 0 ? -1 : on + h;
    all += (long long)bytes[i];
  }
  double share = on < 0 ? -1.0 : all > 0 ? (double)on / (double)all : 0.0, least;
  MPI_Allreduce(&share, &least, 1, MPI_DOUBLE, MPI_MIN, ctx->comm);
  char mode[32];
  thp_mode(mode, sizeof mode);
  fb_result_param_str(r, "pages", least < 0.0 ? "unknown" : least >= 0.5 ? "huge" : "4 KiB");
  fb_result_param_double(r, "huge_page_share", least);
  fb_result_param_str(r, "thp", mode);
}

/* cpu0's largest cache in sysfs: its size, and its index through *index
 * (-1 and 0 where sysfs lists none). */
static size_t sysfs_largest_cache(int *index) {
  size_t best = 0;
  *index = -1;
  for (int k = 0; k < 8; k++) {
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", k);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    unsigned long v = 0;
    char unit = 0;
    if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
      size_t bytes = v * (unit == 'K' ? 1024UL : unit == 'M' ? 1048576UL : 1UL);
      if (bytes > best) best = bytes, *index = k;
    }
    fclose(f);
  }
  return best;
}

size_t fb_last_level_cache(void) {
  int index;
  size_t best = sysfs_largest_cache(&index);
  if (best == 0) {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    best = (size_t)(l3 > 0 ? l3 : l2 > 0 ? l2 : 0);
  }
  return best;
}

/* Up to this many distinct instances are told apart (then the count stops). */
#define FB_CACHE_INSTANCES_MAX 1024

int fb_last_level_cache_instances(void) {
  int index;
  if (sysfs_largest_cache(&index) == 0) return 1;
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  char *seen[FB_CACHE_INSTANCES_MAX];
  int n = 0;
  for (long cpu = 0; cpu < cpus && n < FB_CACHE_INSTANCES_MAX; cpu++) {
    char path[128], list[512];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cache/index%d/shared_cpu_list", cpu,
             index);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* offline, or not listed */
    int got = fgets(list, sizeof list, f) != NULL;
    fclose(f);
    if (!got) continue;
    int known = 0;
    for (int i = 0; i < n && !known; i++) known = !strcmp(seen[i], list);
    if (!known && (seen[n] = strdup(list)) != NULL) n++;
  }
  for (int i = 0; i < n; i++) free(seen[i]);
  return n > 0 ? n : 1;
}

/* The cache-line handoff probe. Two ranks pass one 64-byte line of an MPI
 * shared-memory window back and forth; half a round trip is the time a
 * line takes from one core to another: tens of nanoseconds where the two
 * share a last-level cache, a few times that across chiplets or sockets.
 * A virtual machine's host may move its vCPUs between the two while a run
 * goes on (on a 2-vCPU Zen 4 VM, 6 Dec 2026: 35-60 ns with the two ranks'
 * STREAM Triad at 33-38 GB/s, 170-220 ns with it at 50-62 GB/s, switching
 * every few to few tens of seconds), so the record takes it before the
 * timed loop and after. */
#define FB_HANDOFF_TRIPS    1000 /* timed round trips a pair: 0.1-0.4 ms */
#define FB_HANDOFF_WARMUP   100  /* untimed round trips before them */
#define FB_HANDOFF_PARTNERS 63   /* the node's first rank with at most this many others */
#define FB_HANDOFF_BUDGET_S 0.2  /* a pair's give-up time: a partner off its core */

/* The two words on lines of their own; the window gives 8-byte alignment
 * only, so the probe aligns the struct's start to a line itself. */
#define FB_LINE 64
typedef struct {
  _Atomic long long seq; /* odd: the first rank's turn passed; even: back */
  char pad[FB_LINE - sizeof(long long)];
  _Atomic int abort; /* the first rank gave up */
} FbHandoffLine;

/* Waits until *seq == want or the deadline (the first rank) or the abort
 * flag (its partner); returns whether it got want. */
static int handoff_wait(FbHandoffLine *line, long long want, double deadline) {
  for (unsigned spins = 1;; spins++) {
    if (atomic_load_explicit(&line->seq, memory_order_acquire) == want) return 1;
    if ((spins & 255) == 0) {
      if (deadline > 0.0 ? MPI_Wtime() > deadline
                         : atomic_load_explicit(&line->abort, memory_order_relaxed))
        return 0;
    }
  }
}

/* One pair's half round trip in ns (the first rank's view), NAN if it gave up. */
static double handoff_pair(FbHandoffLine *line, int first) {
  const long long n = FB_HANDOFF_WARMUP + FB_HANDOFF_TRIPS;
  double t0 = 0.0, deadline = MPI_Wtime() + FB_HANDOFF_BUDGET_S;
  for (long long i = 0; i < n; i++) {
    if (first) {
      if (i == FB_HANDOFF_WARMUP) t0 = MPI_Wtime();
      atomic_store_explicit(&line->seq, 2 * i + 1, memory_order_release);
      if (!handoff_wait(line, 2 * i + 2, deadline)) {
        atomic_store_explicit(&line->abort, 1, memory_order_relaxed);
        return NAN;
      }
    } else {
      if (!handoff_wait(line, 2 * i + 1, 0.0)) return NAN;
      atomic_store_explicit(&line->seq, 2 * i + 2, memory_order_release);
    }
  }
  return first ? (MPI_Wtime() - t0) / (2.0 * FB_HANDOFF_TRIPS) * 1e9 : NAN;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double fb_probe_handoff(FbContext *ctx) {
  int local_ranks = 0;
  long cores = fb_node_cores(ctx, &local_ranks);
  MPI_Comm node = fb_node_comm(ctx);
  int me;
  MPI_Comm_rank(node, &me);
  /* every rank of a node decides alike: all its ranks know the same counts */
  int probe = local_ranks >= 2 && local_ranks <= cores;
  double node_ns = -1.0; /* -1: not measured (MPI_MAX over nodes) */
  if (probe) {
    char *base = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(me == 0 ? (MPI_Aint)(sizeof(FbHandoffLine) + FB_LINE) : 0, 1,
                            MPI_INFO_NULL, node, &base, &win);
    MPI_Aint bytes;
    int unit;
    MPI_Win_shared_query(win, 0, &bytes, &unit, &base);
    FbHandoffLine *line = (FbHandoffLine *)(void *)(base + (FB_LINE - (uintptr_t)base % FB_LINE));
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int partners = local_ranks - 1 < FB_HANDOFF_PARTNERS ? local_ranks - 1 : FB_HANDOFF_PARTNERS;
    double ns[FB_HANDOFF_PARTNERS];
    int got = 0;
    for (int k = 1; k <= partners; k++) {
      if (me == 0) {
        atomic_store(&line->seq, 0);
        atomic_store(&line->abort, 0);
      }
      MPI_Win_sync(win);
      MPI_Barrier(node);
      if (me == 0 || me == k) {
        double t = handoff_pair(line, me == 0);
        if (me == 0 && isfinite(t)) ns[got++] = t;
      }
      MPI_Barrier(node);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (me == 0 && got > 0) {
      qsort(ns, (size_t)got, sizeof *ns, compare_doubles);
      node_ns = got % 2 ? ns[got / 2] : 0.5 * (ns[got / 2 - 1] + ns[got / 2]);
    }
  }
  MPI_Comm_free(&node);
  double worst = -1.0;
  MPI_Allreduce(&node_ns, &worst, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
  return worst >= 0.0 ? worst : NAN;
}

void fb_record_handoff(FbContext *ctx, FbResult *r) {
  if (!ctx->handoff_probed) return;
  double after = fb_probe_handoff(ctx);
  if (!isfinite(ctx->handoff_before_ns) && !isfinite(after)) return;
  if (isfinite(ctx->handoff_before_ns))
    fb_result_param_double(r, "handoff_ns_before", ctx->handoff_before_ns);
  if (isfinite(after)) fb_result_param_double(r, "handoff_ns_after", after);
}
