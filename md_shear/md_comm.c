/* md_comm.c: every MPI call of md_shear. Ghost atoms come from the six face
 * neighbours in three dimension-by-dimension stages (so edge and corner
 * ghosts arrive through two or three hops), with periodic images shifted by
 * the box length (a tilted box's ranks decide in lamda coordinates, and its
 * images move by an edge vector); a sub-box thinner than the cutoff plus
 * skin takes more hops along its dimension, each passing on what the one
 * before brought.
 * Positions go forward every step, forces (and EAM densities) come back,
 * EAM embedding derivatives go forward, and atoms that left the sub-box
 * migrate at each neighbour-list rebuild. */
#include "md.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Values per atom in a border message (x y z type id, and a tilted box's
 * lamda coordinates) and a migration message (x y z vx vy vz type id group
 * ix iy iz, and lamda). */
#define BORDER_WIDTH  5
#define MIGRATE_WIDTH 12
#define LAMDA_WIDTH   3

/* The coordinates the ranks decide in (md.h's frame): a tilted box's
 * lamda, made by md_migrate at each rebuild, else x itself. */
static double (*frame_of(const Md *md))[3] { return md->triclinic ? md->atoms.lamda : md->atoms.x; }

static int reserve(double **buf, size_t *cap, size_t n) {
  if (n <= *cap) return 0;
  size_t c = *cap ? *cap : 4096;
  while (c < n) c *= 2;
  double *p = realloc(*buf, c * sizeof *p);
  if (!p) return FB_EXIT_RUNTIME;
  *buf = p;
  *cap = c;
  return 0;
}

static void need(FbContext *ctx, double **buf, size_t *cap, size_t n) {
  if (reserve(buf, cap, n))
    fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for communication buffers (%zu values)", n);
}

/* Counts one exchange round: a side is a message unless its rank is
 * MPI_PROC_NULL (an edge of a non-periodic box). */
static void counted(FbContext *ctx, int to, size_t out_bytes, int from, size_t in_bytes) {
  int sends = to != MPI_PROC_NULL, receives = from != MPI_PROC_NULL;
  fb_timers_exchange(&ctx->timers, PH_COMM, sends, sends ? (long long)out_bytes : 0, receives,
                     receives ? (long long)in_bytes : 0);
}

/* Exchange of n_send values for n_recv: one send to `to`, one receive from
 * `from`; a copy when both are this rank. */
static void exchange(FbContext *ctx, Md *md, const double *out, int n_out, int to, double *in,
                     int n_in, int from) {
  if (to == ctx->rank && from == ctx->rank) {
    if (n_out > 0) memcpy(in, out, (size_t)n_out * sizeof *out);
    return;
  }
  MPI_Sendrecv(out, n_out, MPI_DOUBLE, to, 7, in, n_in, MPI_DOUBLE, from, 7, md->comm.cart,
               MPI_STATUS_IGNORE);
  counted(ctx, to, n_out * sizeof *out, from, n_in * sizeof *in);
}

static int exchange_count(FbContext *ctx, Md *md, int n_out, int to, int from) {
  int n_in = 0;
  if (to == ctx->rank && from == ctx->rank) return n_out;
  MPI_Sendrecv(&n_out, 1, MPI_INT, to, 6, &n_in, 1, MPI_INT, from, 6, md->comm.cart,
               MPI_STATUS_IGNORE);
  counted(ctx, to, sizeof n_out, from, sizeof n_in);
  return from == MPI_PROC_NULL ? 0 : n_in;
}

/* A bound on the hops of one dimension, for the conversion to int only: the
 * memory check before it refuses a ghost shell that deep (1000 hops over a
 * one-atom sub-box is 8e9 ghost images). */
#define MD_MAX_HOPS 1000

/* Hops along each dimension: enough that every rank within the cutoff plus
 * skin sends (LAMMPS's Comm::setup, uniform layout), at most the other ranks
 * of a non-periodic dimension; a periodic dimension may take more hops than
 * it has ranks, for the images of images in a box under the cutoff. */
static double hops_needed(const Md *md, int d) {
  const int p = md->decomp.dims[d];
  double hops = floor(md->frame_cut[d] * p / md->frame_prd[d]) + 1.0;
  return !md->periodic[d] && hops > p - 1 ? p - 1 : hops;
}

void md_comm_setup(FbContext *ctx, Md *md) {
  md->comm.cart = md->decomp.cart;
  long long total = 0;
  for (int d = 0; d < 3; d++) {
    const char axis[3] = {'x', 'y', 'z'};
    double hops = hops_needed(md, d);
    if (!(hops <= MD_MAX_HOPS))
      fb_fail(ctx, FB_EXIT_USAGE,
              "the cutoff plus skin (%.4g) spans %.3g sub-boxes along %c (%d ranks over %.4g); "
              "at most %d",
              md->cutghost, hops, axis[d], md->decomp.dims[d], md->h[d], MD_MAX_HOPS);
    md->hops[d] = (int)hops;
    total += 2 * md->hops[d];
  }
  md->n_swaps = (int)total;
  md->swap = calloc(total ? (size_t)total : 1, sizeof *md->swap);
  if (!md->swap) fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for the ghost swaps");
  MdSwap *s = md->swap;
  for (int d = 0; d < 3; d++)
    for (int hop = 0; hop < md->hops[d]; hop++)
      for (int dir = 0; dir < 2; dir++, s++) {
        s->dim = d;
        s->dir = dir;
        s->hop = hop;
        s->send_to = dir == 0 ? md->decomp.nbr_lo[d] : md->decomp.nbr_hi[d];
        s->recv_from = dir == 0 ? md->decomp.nbr_hi[d] : md->decomp.nbr_lo[d];
        double sign = 0.0;
        if (md->periodic[d] && dir == 0 && md->decomp.coords[d] == 0) sign = 1.0;
        if (md->periodic[d] && dir == 1 && md->decomp.coords[d] == md->decomp.dims[d] - 1)
          sign = -1.0;
        if (sign == 0.0) continue;
        s->shift[d] = sign * md->frame_prd[d];
        for (int e = 0; e < 3; e++) s->shift_x[e] = sign * md->edge[d][e]; /* LAMMPS's pbc */
      }
  if (md_atoms_reserve(&md->atoms, md->atoms.n_local + 1))
    fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for atoms");
}

/* Whether a swap sends atom position x (along its dimension). The first hop
 * sends the atoms within the cutoff plus skin of the face; a later hop
 * passes on those of the ghosts the hop before brought that are within it
 * too, the ones from the far side only (LAMMPS's slabs: the middle of the
 * sub-box parts them). */
static int sends(const Md *md, const MdSwap *s, double x) {
  int d = s->dim;
  double mid = 0.5 * (md->sublo[d] + md->subhi[d]);
  if (s->dir == 0) return x < md->sublo[d] + md->frame_cut[d] && (s->hop == 0 || x >= mid);
  return x >= md->subhi[d] - md->frame_cut[d] && (s->hop == 0 || x < mid);
}

/* Builds the ghost atoms and the swap lists (after migration). */
void md_borders(FbContext *ctx, Md *md) {
  MdAtoms *a = &md->atoms;
  fb_timer_start(&ctx->timers, PH_COMM);
  a->n_ghost = 0;
  const int width = BORDER_WIDTH + (md->triclinic ? LAMDA_WIDTH : 0);
  int nfirst = 0, nlast = 0;
  for (int sw = 0; sw < md->n_swaps; sw++) {
    MdSwap *s = &md->swap[sw];
    int d = s->dim;
    if (s->dir == 0) {                  /* both swaps of a hop send from the same atoms: */
      nfirst = s->hop == 0 ? 0 : nlast; /* all at the first, the last hop's ghosts after */
      nlast = a->n_local + a->n_ghost;
    }
    s->n_send = 0;
    if (s->send_to != MPI_PROC_NULL) {
      for (int i = nfirst; i < nlast; i++) {
        if (!sends(md, s, frame_of(md)[i][d])) continue;
        if (s->n_send == s->cap_send) {
          int cap = s->cap_send ? 2 * s->cap_send : 1024;
          int *p = realloc(s->send_list, (size_t)cap * sizeof *p);
          if (!p) fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for ghost lists");
          s->send_list = p;
          s->cap_send = cap;
        }
        s->send_list[s->n_send++] = i;
      }
    }
    need(ctx, &md->comm.sendbuf, &md->comm.sendcap, (size_t)s->n_send * width);
    for (int k = 0; k < s->n_send; k++) {
      int i = s->send_list[k];
      double *b = md->comm.sendbuf + (size_t)k * width;
      for (int e = 0; e < 3; e++) b[e] = a->x[i][e] + s->shift_x[e]; /* as md_forward_x moves it */
      b[3] = a->type[i];
      b[4] = (double)a->id[i];
      for (int e = 0; e < 3 && md->triclinic; e++)
        b[BORDER_WIDTH + e] = a->lamda[i][e] + s->shift[e];
    }
    s->n_recv = exchange_count(ctx, md, s->n_send, s->send_to, s->recv_from);
    need(ctx, &md->comm.recvbuf, &md->comm.recvcap, (size_t)s->n_recv * width);
    exchange(ctx, md, md->comm.sendbuf, s->n_send * width, s->send_to, md->comm.recvbuf,
             s->n_recv * width, s->recv_from);
    s->first_recv = a->n_local + a->n_ghost;
    if (md_atoms_reserve(a, s->first_recv + s->n_recv))
      fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory for ghost atoms");
    for (int k = 0; k < s->n_recv; k++) {
      int i = s->first_recv + k;
      const double *b = md->comm.recvbuf + (size_t)k * width;
      memcpy(a->x[i], b, 3 * sizeof *b);
      a->type[i] = (int)b[3];
      a->id[i] = (long long)b[4];
      a->group[i] = 0;
      if (md->triclinic) memcpy(a->lamda[i], b + BORDER_WIDTH, 3 * sizeof *b);
    }
    a->n_ghost += s->n_recv;
  }
  fb_timer_stop(&ctx->timers, PH_COMM);
}

/* A swap with this many atoms or more is copied by the threads, fewer by
 * one: 1 rank x 2 threads, the comm phase of the shear example (1912
 * atoms) took 0.054 s with 1024 here, 0.045 with 2048 and 4096, 0.051
 * with none threaded; lj_bench's (32000 atoms, 400 steps) 0.036 with 1024
 * and 2048, 0.046 with 4096, 0.055 with none (Xeon with AVX-512). */
#define COMM_THREADED_ATOMS 2048

/* A swap from this rank to itself (one rank along a periodic dimension):
 * no message, the values go straight between the atoms and their images. */
static int to_self(const FbContext *ctx, const MdSwap *s) {
  return s->send_to == ctx->rank && s->recv_from == ctx->rank;
}

/* One swap's copy, width values an atom: forward, out[k] = field[list[k]]
 * + shift; reverse, field[list[k]] += in[k]. An atom is on a swap's list
 * once, so the threads of a reverse add into different atoms. */
typedef struct {
  double *field;
  const int *list;
  int n, width, reverse;
  double *buf; /* out (forward) or in (reverse) */
  double shift[3];
} SwapCopy;

static inline void swap_copy_width(const SwapCopy *c, int k0, int k1, const int w) {
  double *restrict field = c->field, *restrict buf = c->buf;
  const int *restrict list = c->list;
  if (c->reverse)
    for (int k = k0; k < k1; k++)
      for (int e = 0; e < w; e++) field[(size_t)list[k] * w + e] += buf[(size_t)k * w + e];
  else
    for (int k = k0; k < k1; k++)
      for (int e = 0; e < w; e++)
        buf[(size_t)k * w + e] = field[(size_t)list[k] * w + e] + c->shift[e];
}

/* Compiled for each width the exchanges use, 3 (positions, forces) and 1
 * (EAM's densities): a literal width lets the compiler unroll the atom
 * (through a variable one the copies took half as long again). */
static void swap_copy_range(const SwapCopy *c, int k0, int k1) {
  if (c->width == 3)
    swap_copy_width(c, k0, k1, 3);
  else
    swap_copy_width(c, k0, k1, 1);
}

static void swap_copy(const SwapCopy *c) {
  if (c->n < COMM_THREADED_ATOMS) {
    swap_copy_range(c, 0, c->n);
    return;
  }
#pragma omp parallel
  {
    int t = 0, threads = 1;
#ifdef _OPENMP
    t = omp_get_thread_num();
    threads = omp_get_num_threads();
#endif
    swap_copy_range(c, (int)((long long)c->n * t / threads),
                    (int)((long long)c->n * (t + 1) / threads));
  }
}

/* Sends width values per atom of field forward along the swaps; field is
 * nall x width. shift_positions adds each swap's periodic shift. A swap to
 * itself writes its images in place (they follow every atom it sends from,
 * so the two never overlap). */
static void forward(FbContext *ctx, Md *md, double *field, int width, int shift_positions) {
  fb_timer_start(&ctx->timers, PH_COMM);
  for (int sw = 0; sw < md->n_swaps; sw++) {
    MdSwap *s = &md->swap[sw];
    const int self = to_self(ctx, s);
    if (!self) need(ctx, &md->comm.sendbuf, &md->comm.sendcap, (size_t)s->n_send * width);
    SwapCopy c = {field,
                  s->send_list,
                  s->n_send,
                  width,
                  0,
                  self ? field + (size_t)s->first_recv * width : md->comm.sendbuf,
                  {0.0, 0.0, 0.0}};
    if (shift_positions) memcpy(c.shift, s->shift_x, sizeof c.shift);
    swap_copy(&c);
    if (!self)
      exchange(ctx, md, md->comm.sendbuf, s->n_send * width, s->send_to,
               field + (size_t)s->first_recv * width, s->n_recv * width, s->recv_from);
  }
  fb_timer_stop(&ctx->timers, PH_COMM);
}

/* Sums ghost values back into their owners, swaps in reverse order (a
 * swap to itself from its images in place). */
static void reverse(FbContext *ctx, Md *md, double *field, int width) {
  fb_timer_start(&ctx->timers, PH_COMM);
  for (int sw = md->n_swaps - 1; sw >= 0; sw--) {
    MdSwap *s = &md->swap[sw];
    SwapCopy c = {
        field,          s->send_list, s->n_send, width, 1, field + (size_t)s->first_recv * width,
        {0.0, 0.0, 0.0}};
    if (!to_self(ctx, s)) {
      need(ctx, &md->comm.recvbuf, &md->comm.recvcap, (size_t)s->n_send * width);
      exchange(ctx, md, c.buf, s->n_recv * width, s->recv_from, md->comm.recvbuf, s->n_send * width,
               s->send_to);
      c.buf = md->comm.recvbuf;
    }
    swap_copy(&c);
  }
  fb_timer_stop(&ctx->timers, PH_COMM);
}

void md_forward_x(FbContext *ctx, Md *md) { forward(ctx, md, &md->atoms.x[0][0], 3, 1); }
void md_forward_scalar(FbContext *ctx, Md *md, double *field) { forward(ctx, md, field, 1, 0); }
void md_reverse_f(FbContext *ctx, Md *md) { reverse(ctx, md, &md->atoms.f[0][0], 3); }
void md_reverse_scalar(FbContext *ctx, Md *md, double *field) { reverse(ctx, md, field, 1); }

/* Whether this rank's sub-box holds position x along d: the ranks at the
 * ends of a non-periodic dimension keep what lies beyond the box (shrink
 * wrapping, and the atoms a fixed wall is about to lose). An atom that
 * crossed a whole sub-box between two rebuilds arrives where it does not
 * belong; LAMMPS's exchange drops it too ("Lost atoms"), and the atom
 * count check fails. */
static int owns(const Md *md, int d, double x) {
  int open = !md->periodic[d], c = md->decomp.coords[d], p = md->decomp.dims[d];
  return (x >= md->sublo[d] || (open && c == 0)) && (x < md->subhi[d] || (open && c == p - 1));
}

/* Drops owned atom i: the last one takes its slot. */
static void drop_local(MdAtoms *a, int i) {
  int last = --a->n_local;
  if (i == last) return;
  memcpy(a->x[i], a->x[last], sizeof a->x[i]);
  memcpy(a->v[i], a->v[last], sizeof a->v[i]);
  memcpy(a->x_built[i], a->x_built[last], sizeof a->x_built[i]);
  a->type[i] = a->type[last];
  a->id[i] = a->id[last];
  a->group[i] = a->group[last];
  memcpy(a->image[i], a->image[last], sizeof a->image[i]);
  memcpy(a->lamda[i], a->lamda[last], sizeof a->lamda[i]);
}

/* Moves an atom one box across periodic dimension d, up (sign 1) or down
 * (-1): its frame coordinate f by the box length (down: at least the lower
 * face, as LAMMPS's pbc, x - prd may round below it), x by the box's edge
 * vector in a tilted box (f is x itself otherwise), the image flag back. */
static void move_across(const Md *md, double x[3], double f[3], int image[3], int d, int sign) {
  const double lo = md->frame_lo[d], prd = md->frame_prd[d];
  f[d] = sign > 0 ? f[d] + prd : fmax(f[d] - prd, lo);
  for (int e = 0; e < 3 && md->triclinic; e++) x[e] += sign * md->edge[d][e];
  image[d] -= sign;
}

/* Whether an atom below the periodic box's lower face along d is a hair
 * below it: f + prd rounds to the upper face, where LAMMPS's pbc then puts
 * it back at the lower one (x - prd, at least lo; no image change). Then it
 * is put there, and stays on its rank: moved across (or sent on to the
 * rank at the upper face), it was lost (an atom of a crystal's face in a
 * tilted box, at lamda -1e-17). In a tilted box only its lamda moves. */
static int hair_below(const Md *md, double f[3], int d) {
  const double lo = md->frame_lo[d], hi = md->frame_hi[d], prd = md->frame_prd[d];
  if (!(f[d] < lo && f[d] + prd >= hi)) return 0;
  double w = f[d] + prd;
  w -= prd;
  f[d] = fmax(w, lo);
  return 1;
}

/* Periodic wrap, then atoms that left the sub-box move to the neighbour,
 * dimension by dimension (so a corner move takes up to three hops). The
 * decisions are in the frame's coordinates (md.h): a tilted box's lamda,
 * made here from x and carried with each atom and ghost until the next
 * rebuild, as LAMMPS's exchange and borders work in lamda; its x keeps
 * its own bits (only a move across the box changes it, by an edge vector),
 * so a rebuild moves no atom and a restart continues bit for bit. */
void md_migrate(FbContext *ctx, Md *md) {
  MdAtoms *a = &md->atoms;
  fb_timer_start(&ctx->timers, PH_COMM);
  a->n_ghost = 0;
  for (int i = 0; i < a->n_local && md->triclinic; i++) md_x2lamda(md, a->x[i], a->lamda[i]);
  double(*frame)[3] = frame_of(md);
  const int width = MIGRATE_WIDTH + (md->triclinic ? LAMDA_WIDTH : 0);
  /* one rank along a periodic dimension: wrap in place, one box length (as
   * LAMMPS's Domain::pbc); an atom further out (it moved more than a box
   * length since the last rebuild) is lost, as LAMMPS's exchange loses it,
   * and so is one that crossed a fixed (f) wall */
  for (int i = 0; i < a->n_local;) {
    int out = 0;
    for (int d = 0; d < 3; d++) {
      double *f = frame[i];
      const double lo = md->frame_lo[d], hi = md->frame_hi[d], prd = md->frame_prd[d];
      if (md->periodic[d] && md->decomp.dims[d] == 1) {
        out |= f[d] < lo - prd || f[d] >= hi + prd;
        if (f[d] < lo && !hair_below(md, f, d)) move_across(md, a->x[i], f, a->image[i], d, 1);
        if (f[d] >= hi) move_across(md, a->x[i], f, a->image[i], d, -1);
      }
      out |= md->boundary[d] == 'f' && (f[d] < lo || f[d] >= hi);
    }
    if (out)
      drop_local(a, i);
    else
      i++;
  }
  for (int d = 0; d < 3; d++) {
    if (md->decomp.dims[d] == 1) continue;
    for (int dir = 0; dir < 2; dir++) {
      int to = dir == 0 ? md->decomp.nbr_lo[d] : md->decomp.nbr_hi[d];
      int from = dir == 0 ? md->decomp.nbr_hi[d] : md->decomp.nbr_lo[d];
      int n_out = 0;
      if (to != MPI_PROC_NULL) {
        const int *c = md->decomp.coords, *p = md->decomp.dims;
        /* pack the leavers, fill their slots from the end */
        for (int i = 0; i < a->n_local;) {
          double *f = frame[i];
          if (dir == 0 && c[d] == 0) hair_below(md, f, d);
          int leave = dir == 0 ? f[d] < md->sublo[d] : f[d] >= md->subhi[d];
          if (!leave) {
            i++;
            continue;
          }
          double x[3], lamda[3];
          int image[3];
          memcpy(x, a->x[i], sizeof x);
          memcpy(lamda, f, sizeof lamda);
          memcpy(image, a->image[i], sizeof image);
          double *moved = md->triclinic ? lamda : x;
          /* across the periodic boundary: into the box on the other side */
          if (dir == 0 && c[d] == 0) move_across(md, x, moved, image, d, 1);
          if (dir == 1 && c[d] == p[d] - 1) move_across(md, x, moved, image, d, -1);
          need(ctx, &md->comm.sendbuf, &md->comm.sendcap, (size_t)(n_out + 1) * width);
          double *b = md->comm.sendbuf + (size_t)n_out++ * width;
          for (int e = 0; e < 3; e++) {
            b[e] = x[e];
            b[3 + e] = a->v[i][e];
            b[9 + e] = image[e];
            if (md->triclinic) b[MIGRATE_WIDTH + e] = lamda[e];
          }
          b[6] = a->type[i];
          b[7] = (double)a->id[i];
          b[8] = a->group[i];
          drop_local(a, i);
        }
      }
      int n_in = exchange_count(ctx, md, n_out, to, from);
      need(ctx, &md->comm.recvbuf, &md->comm.recvcap, (size_t)n_in * width);
      exchange(ctx, md, md->comm.sendbuf, n_out * width, to, md->comm.recvbuf, n_in * width, from);
      if (md_atoms_reserve(a, a->n_local + n_in))
        fb_abort(ctx, FB_EXIT_RUNTIME, "out of memory receiving atoms");
      frame = frame_of(md); /* the arrays may have moved */
      for (int k = 0; k < n_in; k++) {
        const double *b = md->comm.recvbuf + (size_t)k * width;
        const double *f = md->triclinic ? b + MIGRATE_WIDTH : b;
        if (!owns(md, d, f[d])) continue; /* moved past this rank too: lost, as in LAMMPS */
        int i = a->n_local++;
        for (int e = 0; e < 3; e++) {
          a->x[i][e] = b[e];
          a->v[i][e] = b[3 + e];
          a->image[i][e] = (int)b[9 + e];
          if (md->triclinic) a->lamda[i][e] = f[e];
        }
        a->type[i] = (int)b[6];
        a->id[i] = (long long)b[7];
        a->group[i] = (int)b[8];
      }
      md->migrations += n_out;
    }
  }
  fb_timer_stop(&ctx->timers, PH_COMM);
}

double md_split_at(const Md *md, int d, int k) {
  const int p = md->decomp.dims[d];
  return k >= p ? md->splithi[d] : md->splitlo[d] + (md->splithi[d] - md->splitlo[d]) * k / p;
}

void md_subbox(Md *md) {
  for (int d = 0; d < 3; d++) {
    md->sublo[d] = md_split_at(md, d, md->decomp.coords[d]);
    md->subhi[d] = md_split_at(md, d, md->decomp.coords[d] + 1);
  }
}

/* Whether the ranks may divide lo..hi along d instead: a shrink-wrapped
 * dimension over more than one rank whose planned ghost hops still reach the
 * cutoff plus skin in sub-boxes that wide. */
static int may_split(const Md *md, int d, double lo, double hi) {
  const int p = md->decomp.dims[d];
  if (p == 1 || md->triclinic || (md->boundary[d] != 's' && md->boundary[d] != 'm')) return 0;
  return md->hops[d] >= p - 1 || (hi - lo) / p * md->hops[d] > md->cutghost;
}

/* LAMMPS divides the box it has now: in shrink-wrapped (s, m) dimensions
 * the sub-boxes follow the atoms' extent at every rebuild (Domain::
 * set_local_box), so a slab that drifts stays evenly split. With the
 * initial box kept, md's 2 ranks held 842 and 1070 of in.shear's 1912
 * atoms at its end (the flow carries them to +x), LAMMPS's 950 and 962,
 * and the pair loop waited on the fuller rank (24% apart). The new bounds
 * are taken when the ghost swaps planned still reach the cutoff plus skin
 * and no atom is more than one sub-box from its new one (migration moves
 * an atom one hop, as LAMMPS's exchange); else the old ones stay, correct
 * but less even. Called before migration, on the box md_reset_box made. */
void md_resplit(FbContext *ctx, Md *md) {
  if (md->triclinic) { /* its ranks divide the lamda cube of the box now: LAMMPS's */
    md_comm_replan(ctx, md);
    return;
  }
  double lo[3], hi[3];
  int change = 0;
  for (int d = 0; d < 3; d++) {
    lo[d] = md->splitlo[d];
    hi[d] = md->splithi[d];
    if (!may_split(md, d, md->simlo[d], md->simhi[d])) continue;
    lo[d] = md->simlo[d];
    hi[d] = md->simhi[d];
    change = 1;
  }
  if (!change) return; /* the same on every rank: the box and the plan are global */
  double old_lo[3], old_hi[3];
  memcpy(old_lo, md->splitlo, sizeof lo);
  memcpy(old_hi, md->splithi, sizeof hi);
  memcpy(md->splitlo, lo, sizeof lo);
  memcpy(md->splithi, hi, sizeof hi);
  const MdAtoms *a = &md->atoms;
  int far = 0;
  for (int d = 0; d < 3; d++) {
    const int p = md->decomp.dims[d], c = md->decomp.coords[d];
    if (lo[d] == old_lo[d] && hi[d] == old_hi[d]) continue;
    const double below = c > 1 ? md_split_at(md, d, c - 1) : -INFINITY,
                 from = md_split_at(md, d, c), to = md_split_at(md, d, c + 1),
                 above = c < p - 2 ? md_split_at(md, d, c + 2) : INFINITY;
    for (int i = 0; i < a->n_local && !far; i++) {
      const double x = a->x[i][d];
      far = (c > 0 && x < from && x < below) || (c < p - 1 && x >= to && x >= above);
    }
  }
  if (md_any(ctx, far)) {
    memcpy(md->splitlo, old_lo, sizeof lo);
    memcpy(md->splithi, old_hi, sizeof hi);
  }
  md_subbox(md);
}

/* LAMMPS's read_data shrink-wraps the box at once and moves the atoms to
 * the new box's division (Irregular::migrate_atoms). md places them there as
 * it reads them: the first reading's extent gives the box md_reset_box makes
 * at the run's set-up, and the ranks divide it (under md_resplit's guard).
 * Dividing the declared box instead, a box far wider than its atoms left
 * ranks empty to the end (tests/md/wide_box at 4x1x1: 0 and 1803 atoms a
 * rank), as md_resplit moves no atom more than one sub-box. Called after
 * md_comm_setup (the hops) and before the atoms are placed. */
void md_split_data_atoms(Md *md) {
  /* tests: the declared box's division kept, for md_resplit's guard */
  if (md->natoms < 1 || fb_test_hook("md_declared_split")) return;
  if (md->triclinic) { /* the ranks divide the lamda cube of the wrapped box */
    md_wrap_tilted(md, md->atomlo, md->atomhi);
    return;
  }
  double lo[3], hi[3];
  memcpy(lo, md->splitlo, sizeof lo);
  memcpy(hi, md->splithi, sizeof hi);
  md_wrapped_box(md, md->atomlo, md->atomhi, lo, hi);
  for (int d = 0; d < 3; d++)
    if (may_split(md, d, lo[d], hi[d])) {
      md->splitlo[d] = lo[d];
      md->splithi[d] = hi[d];
    }
  md_subbox(md);
}

int md_any(FbContext *ctx, int local) {
  long long any = local;
  fb_allreduce_max_ll(ctx, PH_REDUCTIONS, &any, 1);
  return any != 0;
}

/* Exact global sums (the same bits on any rank count). */
void md_sum_exact(FbContext *ctx, double *values, int n) {
  fb_timer_start(&ctx->timers, PH_REDUCTIONS);
  for (int k = 0; k < n; k++) {
    FbReproSum s;
    fb_rsum_init(&s);
    fb_rsum_add(&s, values[k]);
    values[k] = fb_rsum_allreduce(&s, ctx->comm);
  }
  fb_timer_stop(&ctx->timers, PH_REDUCTIONS);
  fb_timers_collective(&ctx->timers, PH_REDUCTIONS, n, sizeof(FbReproSum), ctx->size);
}

void md_minmax(FbContext *ctx, double lo[3], double hi[3]) {
  fb_allreduce_min_n(ctx, PH_REDUCTIONS, lo, 3);
  fb_allreduce_max_n(ctx, PH_REDUCTIONS, hi, 3);
}

void md_max(FbContext *ctx, double *values, int n) {
  fb_allreduce_max_n(ctx, PH_REDUCTIONS, values, n);
}

long long md_count(FbContext *ctx, long long local) {
  fb_allreduce_sum_ll(ctx, FB_NO_PHASE, &local, 1);
  return local;
}

void md_count_n(FbContext *ctx, long long *values, int n) {
  fb_allreduce_sum_ll(ctx, FB_NO_PHASE, values, n);
}

/* Rank 0 gets `width` values of field per owned atom, in id order (out:
 * natoms x width). */
void md_gather_owned(FbContext *ctx, const Md *md, const double *field, int width, double *out) {
  const MdAtoms *a = &md->atoms;
  int n = a->n_local, w1 = width + 1, *counts = NULL, *displs = NULL;
  double *mine = malloc(((size_t)n * w1 + 1) * sizeof *mine), *all = NULL;
  int bad = !mine;
  if (ctx->rank == 0) {
    counts = malloc((size_t)ctx->size * sizeof *counts);
    displs = malloc((size_t)ctx->size * sizeof *displs);
    all = malloc(((size_t)md->natoms * w1 + 1) * sizeof *all);
    bad |= !counts || !displs || !all;
  }
  fb_agree(ctx, bad ? FB_EXIT_RUNTIME : 0, "out of memory gathering the atoms");
  for (int i = 0; i < n; i++) {
    mine[(size_t)w1 * i] = (double)a->id[i];
    for (int e = 0; e < width; e++) mine[(size_t)w1 * i + 1 + e] = field[(size_t)width * i + e];
  }
  int nw = w1 * n;
  MPI_Gather(&nw, 1, MPI_INT, counts, 1, MPI_INT, 0, ctx->comm);
  if (ctx->rank == 0)
    for (int r = 0, off = 0; r < ctx->size; r++) {
      displs[r] = off;
      off += counts[r];
    }
  MPI_Gatherv(mine, nw, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, ctx->comm);
  long long received = 0;
  if (ctx->rank == 0) received = (long long)(displs[ctx->size - 1] + counts[ctx->size - 1]) / w1;
  if (ctx->rank == 0)
    for (long long k = 0; k < received; k++) { /* lost atoms leave their rows as they were */
      long long id = (long long)all[(size_t)w1 * k];
      if (id < 1 || id > md->natoms) continue;
      for (int e = 0; e < width; e++)
        out[(size_t)width * (id - 1) + e] = all[(size_t)w1 * k + 1 + e];
    }
  free(mine);
  free(all);
  free(counts);
  free(displs);
}

static void free_swaps(Md *md) {
  for (int s = 0; s < md->n_swaps; s++) free(md->swap[s].send_list);
  free(md->swap);
  md->swap = NULL;
  md->n_swaps = 0;
}

/* A tilted box whose shrink-wrapped side changed length changes its faces'
 * distances apart (the x faces hold the z edge: a shorter z at the same xz
 * tilts them more), so the cutoff plus skin may span another sub-box: the
 * swaps are planned again, as LAMMPS's Comm::setup at each reset_box. */
void md_comm_replan(FbContext *ctx, Md *md) {
  int same = 1;
  for (int d = 0; d < 3; d++) same &= hops_needed(md, d) == md->hops[d];
  if (same) return; /* the same on every rank: the box is global */
  free_swaps(md);
  md_comm_setup(ctx, md);
}

void md_comm_free(Md *md) {
  free_swaps(md);
  free(md->comm.sendbuf);
  free(md->comm.recvbuf);
  memset(&md->comm, 0, sizeof md->comm);
}
