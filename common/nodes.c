/* nodes.c: which ranks share a node (by processor name), for pairing ranks
 * across nodes and sizing per-node resources, and the node's facts (memory
 * available, last-level cache). */
#include "fabricbench.h"

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

size_t fb_last_level_cache(void) {
  size_t best = 0;
  for (int index = 0; index < 8; index++) {
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    unsigned long v = 0;
    char unit = 0;
    if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
      size_t bytes = v * (unit == 'K' ? 1024UL : unit == 'M' ? 1048576UL : 1UL);
      if (bytes > best) best = bytes;
    }
    fclose(f);
  }
  if (best == 0) {
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    best = (size_t)(l3 > 0 ? l3 : l2 > 0 ? l2 : 0);
  }
  return best;
}
