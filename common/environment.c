/* environment.c: what the run ran on: MPI library, hosts and nodes, core
 * binding of each rank and thread, CPU time, and the byte counters of the
 * network interfaces before and after (which link carried the traffic). */
#include "internal.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_IFACES 32
#define INFO_LEN   640

typedef struct {
  int n;
  char name[MAX_IFACES][32];
  unsigned long long rx[MAX_IFACES], tx[MAX_IFACES];
} NetCounters;

static void read_net(NetCounters *c) {
  c->n = 0;
  FILE *f = fopen("/proc/net/dev", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f) && c->n < MAX_IFACES) {
    char *colon = strchr(line, ':');
    if (!colon) continue;
    *colon = '\0';
    char *name = line;
    while (*name == ' ') name++;
    unsigned long long v[16];
    if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
               &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 9)
      continue;
    snprintf(c->name[c->n], sizeof c->name[0], "%.31s", name);
    c->rx[c->n] = v[0];
    c->tx[c->n] = v[8];
    c->n++;
  }
  fclose(f);
}

void *fb_env_snapshot(void) {
  NetCounters *c = calloc(1, sizeof *c);
  if (c) read_net(c);
  return c;
}

void fb_env_free(void *snap) { free(snap); }

/* CPU list of a mask, "0-3,6". */
static void cpuset_string(const cpu_set_t *set, char *buf, size_t len) {
  size_t o = 0;
  buf[0] = '\0';
  for (int c = 0; c < CPU_SETSIZE && o + 16 < len; c++) {
    if (!CPU_ISSET(c, set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set)) e++;
    o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "," : "", c);
    if (e > c) o += (size_t)snprintf(buf + o, len - o, "-%d", e);
    c = e;
  }
}

/* "host\tprocess-cpus\tthread0-cpus;thread1-cpus;..." for this rank. */
static void rank_info(char *buf, size_t len) {
  char host[MPI_MAX_PROCESSOR_NAME];
  int hl;
  MPI_Get_processor_name(host, &hl);
  cpu_set_t set;
  char cpus[128] = "?";
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpuset_string(&set, cpus, sizeof cpus);
  char threads[384] = "";
  int nt = omp_get_max_threads();
  char(*each)[48] = calloc((size_t)nt, sizeof *each);
  if (each) {
#pragma omp parallel
    {
      cpu_set_t ts;
      int t = omp_get_thread_num();
      if (pthread_getaffinity_np(pthread_self(), sizeof ts, &ts) == 0)
        cpuset_string(&ts, each[t], sizeof each[t]);
    }
    size_t o = 0;
    for (int t = 0; t < nt && o + 50 < sizeof threads; t++)
      o += (size_t)snprintf(threads + o, sizeof threads - o, "%s%s", t ? ";" : "", each[t]);
    free(each);
  }
  snprintf(buf, len, "%s\t%s\t%s", host, cpus, threads);
}

/* The node's interface deltas as a JSON object body, from the node leader. */
static void net_delta_json(const NetCounters *before, char *buf, size_t len) {
  NetCounters after;
  read_net(&after);
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i < after.n && o + 120 < len; i++) {
    unsigned long long rx0 = 0, tx0 = 0;
    for (int k = 0; before && k < before->n; k++)
      if (!strcmp(before->name[k], after.name[i])) {
        rx0 = before->rx[k];
        tx0 = before->tx[k];
      }
    o += (size_t)snprintf(buf + o, len - o, "%s\"%s\":{\"rx_bytes\":%llu,\"tx_bytes\":%llu}",
                          o ? "," : "", after.name[i], after.rx[i] - rx0, after.tx[i] - tx0);
  }
}

static void write_fabric(FbContext *ctx, FbJson *j, const char *const *all_info) {
  /* Node leaders report their interface deltas. */
  int node_rank, node_size;
  fb_node_position(ctx, &node_rank, &node_size);
  char mine[INFO_LEN * 4] = "";
  if (node_rank == 0) net_delta_json(ctx->env_start, mine, sizeof mine);
  char *all = ctx->rank == 0 ? malloc((size_t)ctx->size * sizeof mine) : NULL;
  MPI_Gather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, 0, ctx->comm);
  if (ctx->rank != 0) return;
  fb_json_begin_object(j, "fabric");
  static const char *vars[] = {
      "OMPI_MCA_pml",    "OMPI_MCA_btl", "OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_osc", "UCX_TLS",
      "UCX_NET_DEVICES", "FI_PROVIDER",  "MPIR_CVAR_CH4_NETMOD",        "I_MPI_FABRICS"};
  fb_json_begin_object(j, "selected_by_environment");
  for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
    const char *val = getenv(vars[v]);
    if (val) fb_json_str(j, vars[v], val);
  }
  fb_json_end_object(j);
  fb_json_begin_object(j, "interfaces");
  for (int r = 0; all && r < ctx->size; r++) {
    const char *s = all + (size_t)r * sizeof mine;
    if (!s[0]) continue;
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)strcspn(all_info[r], "\t"), all_info[r]);
    char body[sizeof mine + 4];
    snprintf(body, sizeof body, "{%s}", s);
    fb_json_raw(j, host, body);
  }
  fb_json_end_object(j);
  fb_json_end_object(j);
  free(all);
}

static void write_cpu(FbContext *ctx, FbJson *j) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double t[2] = {ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
                 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6};
  double mn[2], mx[2], sm[2];
  MPI_Reduce(t, mn, 2, MPI_DOUBLE, MPI_MIN, 0, ctx->comm);
  MPI_Reduce(t, mx, 2, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
  MPI_Reduce(t, sm, 2, MPI_DOUBLE, MPI_SUM, 0, ctx->comm);
  if (ctx->rank != 0) return;
  fb_json_begin_object(j, "cpu");
  const char *names[2] = {"user_s", "sys_s"};
  for (int k = 0; k < 2; k++) {
    fb_json_begin_object(j, names[k]);
    fb_json_num(j, "min", mn[k]);
    fb_json_num(j, "avg", sm[k] / ctx->size);
    fb_json_num(j, "max", mx[k]);
    fb_json_end_object(j);
  }
  fb_json_end_object(j);
}

void fb_env_write_json(FbContext *ctx, FbJson *j, const FbDecomp *d_unused) {
  (void)d_unused;
  char info[INFO_LEN];
  rank_info(info, sizeof info);
  char *all = ctx->rank == 0 ? malloc((size_t)ctx->size * INFO_LEN) : NULL;
  MPI_Gather(info, INFO_LEN, MPI_CHAR, all, INFO_LEN, MPI_CHAR, 0, ctx->comm);
  const char **rows = NULL;
  if (ctx->rank == 0) {
    rows = calloc((size_t)ctx->size, sizeof *rows);
    for (int r = 0; rows && all && r < ctx->size; r++) rows[r] = all + (size_t)r * INFO_LEN;
  }
  if (ctx->rank == 0 && rows) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    fb_json_str(j, "mpi", lib);
    fb_json_int(j, "ranks", ctx->size);
    fb_json_int(j, "threads", ctx->threads);
    /* distinct hosts, in rank order */
    fb_json_begin_array(j, "hosts");
    int nodes = 0;
    for (int r = 0; r < ctx->size; r++) {
      size_t hl = strcspn(rows[r], "\t");
      int seen = 0;
      for (int q = 0; q < r && !seen; q++)
        seen = strcspn(rows[q], "\t") == hl && !strncmp(rows[q], rows[r], hl);
      if (seen) continue;
      char host[256];
      snprintf(host, sizeof host, "%.*s", (int)hl, rows[r]);
      fb_json_str(j, NULL, host);
      nodes++;
    }
    fb_json_end_array(j);
    fb_json_int(j, "nodes", nodes);
    fb_json_begin_array(j, "binding");
    for (int r = 0; r < ctx->size; r++) {
      char host[256], cpus[160], threads[400];
      host[0] = cpus[0] = threads[0] = '\0';
      sscanf(rows[r], "%255[^\t]\t%159[^\t]\t%399[^\n]", host, cpus, threads);
      fb_json_begin_object(j, NULL);
      fb_json_int(j, "rank", r);
      fb_json_str(j, "host", host);
      fb_json_str(j, "cpus", cpus);
      fb_json_str(j, "thread_cpus", threads);
      fb_json_end_object(j);
    }
    fb_json_end_array(j);
  }
  write_cpu(ctx, j);
  write_fabric(ctx, j, rows);
  free(rows);
  free(all);
}
