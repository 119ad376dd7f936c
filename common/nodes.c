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
      if (!strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME, all + (size_t)r * MPI_MAX_PROCESSOR_NAME))
        node_of_rank[r] = node_of_rank[q];
    if (node_of_rank[r] < 0) node_of_rank[r] = nodes++;
  }
  free(all);
  *n_nodes = nodes;
  return 0;
}

int fb_ranks_on_my_node(FbContext *ctx) {
  MPI_Comm node;
  MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node);
  int n;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}
