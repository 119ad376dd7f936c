/* nodes.c: which ranks share a node (by processor name), for pairing ranks
 * across nodes and sizing per-node resources. */
#include "fabricbench.h"

#include <stdlib.h>
#include <string.h>

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

MPI_Comm fb_node_comm(const FbContext *ctx) {
  MPI_Comm node;
  MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node);
  return node;
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
