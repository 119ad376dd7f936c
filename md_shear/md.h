/* md.h: md_shear's system, potential, neighbour list, communication plan,
 * groups, computes and runs: a short-range molecular dynamics kernel with
 * LAMMPS's conventions, so the same input gives LAMMPS's numbers. */
#ifndef MD_H
#define MD_H

#include "fabricbench.h"

#include <stdio.h>

enum { PH_PAIR, PH_NEIGH, PH_COMM, PH_REDUCTIONS, PH_OUTPUT, PH_OTHER, PH_COUNT };

#define MD_MAX_TYPES        32 /* atom types (LAMMPS has no limit) */
#define MD_MAX_GROUPS       16 /* bit g of an atom's mask; group 0 is "all" */
#define MD_MAX_COMPUTES     8
#define MD_MAX_STAGES       8  /* LAMMPS "run" commands: [run1] ... [run8] */
#define MD_MAX_VELOCITY     4  /* velocity commands before one run */
#define MD_MAX_COLUMNS      32 /* thermo columns */
#define MD_MAX_DUMP_COLUMNS 18
#define MD_PATH             256
#define MD_NAME             32
#define MD_GROUP_ALL        0
/* LAMMPS domain.cpp's SMALL: a shrink-wrapped (s) box is this fraction of
 * its length wider than its atoms, and read_data takes atoms that far out */
#define MD_SHRINK_SMALL 1e-4
/* The most box lengths read_data moves an atom (or takes an image flag)
 * across a periodic dimension; LAMMPS's remap would loop for as long. */
#define MD_DATA_MAX_IMAGES 10000

/* Unit conversions of LAMMPS's update.cpp for the two unit systems we use. */
typedef struct {
  const char *name;
  double boltz;  /* energy per kelvin (metal) or 1 (lj) */
  double mvv2e;  /* mass * velocity^2 -> energy */
  double ftm2v;  /* force / mass * time -> velocity */
  double nktv2p; /* energy / volume -> pressure */
  double mv2d;   /* mass / volume -> density (metal: g/cm^3) */
} MdUnits;

/* A tabulated function on a uniform grid with LAMMPS's spline convention:
 * for p in [0,1) within interval m, value ((c3 p + c4) p + c5) p + c6 and
 * derivative (c0 p + c1) p + c2 (derivative per unit of the abscissa).
 * c7 is padding: a row is one 64-byte cache line (tables are allocated on
 * that boundary), so a lookup never straddles two. */
typedef double MdSpline[8];
#define MD_SPLINE_ALIGN 64
static inline double spline_value(const MdSpline c, double p) {
  return ((c[3] * p + c[4]) * p + c[5]) * p + c[6];
}
static inline double spline_deriv(const MdSpline c, double p) {
  return (c[0] * p + c[1]) * p + c[2];
}

/* The force pass's four lookups for a pair of elements (i's, j's) at one r
 * row, as one cubic per lane: lanes 0-3 are d rho_i/dr (i's density at j),
 * d rho_j/dr, d(r phi)/dr and r phi; coefficient level c of lane l at
 * [4 c + l], value ((a p + b) p + c) p + d. A derivative lane's a is 0, so
 * its first step gives its c0 exactly and the lane computes spline_deriv's
 * operations in its order: the same numbers, four lanes in one vector. */
typedef double MdPairRow[16];
static inline void pair_row_eval(const MdPairRow c, double p, double v[4]) {
  for (int l = 0; l < 4; l++) v[l] = ((c[l] * p + c[4 + l]) * p + c[8 + l]) * p + c[12 + l];
}

typedef enum { POT_LJ, POT_EAM } MdPotKind;
typedef enum { MIX_GEOMETRIC, MIX_ARITHMETIC } MdMix;

/* pair_coeff I J EPS SIG [CUT] for lj/cut (i, j 0-based; set: given, not mixed). */
typedef struct {
  double eps[MD_MAX_TYPES][MD_MAX_TYPES], sig[MD_MAX_TYPES][MD_MAX_TYPES];
  double cut[MD_MAX_TYPES][MD_MAX_TYPES];
  int set[MD_MAX_TYPES][MD_MAX_TYPES], cut_set[MD_MAX_TYPES][MD_MAX_TYPES];
} MdPairCoeffs;

typedef struct {
  MdPotKind kind;
  char style[32]; /* lj/cut, eam, eam/alloy, eam/fs */
  int ntypes;
  double cut, cutsq; /* the largest force cutoff (neighbour lists) */
  /* lj/cut, per type pair */
  double cutsq_ij[MD_MAX_TYPES][MD_MAX_TYPES];
  double lj1[MD_MAX_TYPES][MD_MAX_TYPES], lj2[MD_MAX_TYPES][MD_MAX_TYPES];
  double lj3[MD_MAX_TYPES][MD_MAX_TYPES], lj4[MD_MAX_TYPES][MD_MAX_TYPES];
  double offset[MD_MAX_TYPES][MD_MAX_TYPES];   /* subtracted when shifted */
  double e_at_cut[MD_MAX_TYPES][MD_MAX_TYPES]; /* the unshifted energy at the cutoff */
  /* EAM tables: one embedding per element, one r*phi per pair; rhor[a][b]:
   * the density an atom of element a gives one of element b (eam/fs: a
   * table per ordered pair, LAMMPS's rhor_spline[type2rhor[a][b]]; eam and
   * eam/alloy: a's own for every b, one table, rhor_per_pair 0) */
  int nrho, nr, nelements, rhor_per_pair;
  double drho, dr, rdrho, rdr, rhomax;
  MdSpline *frho[MD_MAX_TYPES], *rhor[MD_MAX_TYPES][MD_MAX_TYPES];
  MdSpline *z2r[MD_MAX_TYPES][MD_MAX_TYPES];
  MdPairRow *pair_row[MD_MAX_TYPES][MD_MAX_TYPES]; /* for the elements types map to */
  int elem_of_type[MD_MAX_TYPES];
  double file_mass[MD_MAX_TYPES]; /* per element, from the file */
  char element[MD_MAX_TYPES][16];
  char note[FB_MSG_LEN]; /* a warning about the file (units converted), printed once */
} MdPotential;

/* Atoms: owned first (n_local), then ghosts (n_ghost). group: a bit mask of
 * the groups the atom belongs to (bit 0: all). */
typedef struct {
  int n_local, n_ghost, cap;
  double (*x)[3], (*v)[3], (*f)[3], (*x_built)[3];
  double *rho, *fp, *eatom;
  long long *id;
  int *type, *group;
  int (*image)[3]; /* owned atoms: periodic images crossed (LAMMPS's image flags) */
  /* A tilted box's lamda coordinates of owned atoms and ghosts, made at each
   * rebuild for the ranks' decisions (md_comm.c); x keeps its own bits. */
  double (*lamda)[3];
} MdAtoms;

/* One ghost swap: atoms sent to a neighbour and received back. A dimension
 * has two swaps (down, up) per hop, and as many hops as it takes for every
 * rank to see the cutoff plus skin beyond its sub-box (LAMMPS's need). */
typedef struct {
  int dim, dir, hop;      /* dir 0: send to the lower neighbour, 1: upper */
  int send_to, recv_from; /* ranks, MPI_PROC_NULL at a non-periodic wall */
  int n_send, n_recv, first_recv, cap_send;
  int *send_list;
  double shift[3];   /* added to sent positions as the ghosts are made (the frame's wrap) */
  double shift_x[3]; /* ... and to positions sent forward (the same wrap in x y z) */
} MdSwap;

/* The neighbour list and the work arrays of its build (kept between builds). */
#define MD_MAX_THREADS 256
typedef struct {
  int count, cap;
  int *first, *len; /* per owned atom, into pairs */
  int *pairs;
  int nbins[3], nbins_total;
  double bin_lo[3], bin_size[3];
  long long builds, dangerous;
  int *bin_start, *bin_atoms, *atom_bin, *stencil;
  double *bin_x[3]; /* positions in bin order, one array per axis */
  int bin_cap, atom_cap, n_stencil;
  int *thread_pairs[MD_MAX_THREADS], thread_cap[MD_MAX_THREADS], thread_count[MD_MAX_THREADS];
} MdNeighbor;

/* Communication buffers and the decomposition's communicator (md_comm.c). */
typedef struct {
  MPI_Comm cart;
  double *sendbuf, *recvbuf;
  size_t sendcap, recvcap;
} MdComm;

/* A group, as LAMMPS's group command makes it (once, at set-up): by type,
 * by a block region (lattice units unless [groups] units = box; INF is
 * unbounded), or from other groups. */
typedef enum {
  GROUP_ALL,
  GROUP_TYPE,
  GROUP_BLOCK,
  GROUP_UNION,
  GROUP_SUBTRACT,
  GROUP_INTERSECT
} MdGroupKind;
typedef struct {
  MdGroupKind kind;
  int types;           /* GROUP_TYPE: bit t for type t + 1 */
  int max_type;        /* the largest type named */
  double lo[3], hi[3]; /* GROUP_BLOCK */
  int refs[MD_MAX_GROUPS], nrefs;
} MdGroupDef;

/* A temperature compute: temp GROUP, or temp/partial GROUP XFLAG YFLAG ZFLAG. */
typedef struct {
  char name[MD_NAME];
  int group, partial, use[3];
  long long count; /* atoms in the group (set at setup) */
} MdCompute;

/* One velocity command before a run (LAMMPS's velocity). */
typedef enum { VEL_CREATE, VEL_SET, VEL_RAMP, VEL_ZERO, VEL_SCALE } MdVelStyle;
typedef struct {
  MdVelStyle style;
  int group;
  double temp;
  long long seed;
  int compute;                            /* create T SEED [temp C], scale T [temp C] */
  int gaussian, loop_geom, keep_momentum; /* create's dist gaussian, loop geom, mom no */
  int zero_rotation;                      /* create's rot yes; zero angular (else linear) */
  double v[3];
  int v_given[3]; /* set VX VY VZ (NULL: unchanged) */
  int vdim, cdim;
  double vlo, vhi, clo, chi; /* ramp vDIM VLO VHI DIM CLO CHI */
  int sum;                   /* set/ramp sum yes */
} MdVelocity;

/* fix temp/rescale N TSTART TSTOP WINDOW FRACTION, with fix_modify temp C. */
typedef struct {
  int on, group, compute;
  long long every;
  double t_start, t_stop, window, fraction;
} MdRescale;

/* One LAMMPS "run": what happens before it and during it. */
typedef struct {
  long long steps, thermo_every;
  int thermo_temp; /* compute index for thermo_modify temp */
  MdRescale rescale;
  MdVelocity vel[MD_MAX_VELOCITY];
  int n_vel;
  int reset_timestep; /* reset_timestep 0 before the run */
} MdStage;

/* Thermo columns (thermo_style one, or custom with these keywords). */
typedef enum {
  TH_STEP,
  TH_TEMP,
  TH_EPAIR,
  TH_EMOL,
  TH_PE,
  TH_KE,
  TH_ETOTAL,
  TH_PRESS,
  TH_VOL,
  TH_ATOMS,
  TH_LX,
  TH_LY,
  TH_LZ,
  TH_PXX, /* the pressure tensor: xx yy zz xy xz yz, LAMMPS's order */
  TH_PYY,
  TH_PZZ,
  TH_PXY,
  TH_PXZ,
  TH_PYZ,
  TH_DENSITY,
  TH_EVDWL,
  TH_ECOUL,
  TH_ENTHALPY,
  TH_FMAX,
  TH_FNORM,
  TH_XLO, /* the box: xlo xhi ylo yhi zlo zhi */
  TH_XHI,
  TH_YLO,
  TH_YHI,
  TH_ZLO,
  TH_ZHI,
  TH_XY, /* the tilts (0 in an orthogonal box) */
  TH_XZ,
  TH_YZ,
  TH_DT,
  TH_ELAPSED,
  TH_COMPUTE
} MdThermoKey;
typedef struct {
  MdThermoKey key;
  int compute;          /* TH_COMPUTE: which temperature */
  char header[MD_NAME]; /* LAMMPS's column name */
} MdColumn;

/* Dump columns (dump custom): id type x y z vx vy vz fx fy fz c_pe xu yu zu
 * ix iy iz, named as md_dump_words lists them. */
typedef enum {
  DU_ID,
  DU_TYPE,
  DU_X,
  DU_Y,
  DU_Z,
  DU_VX,
  DU_VY,
  DU_VZ,
  DU_FX,
  DU_FY,
  DU_FZ,
  DU_PE,
  DU_XU,
  DU_YU,
  DU_ZU,
  DU_IX,
  DU_IY,
  DU_IZ,
  DU_COUNT
} MdDumpKey;
extern const char *const md_dump_words[DU_COUNT];

/* The H5MD trajectory while it is being written (rank 0). */
typedef struct {
  long long file, all; /* hid_t values, -1 when closed */
  long long frames;
  char tmp[4096];
} MdTrajectory;

/* The command line's values (the record lists them after the run). */
typedef struct {
  const char *input, *forces, *traj, *restart, *read_restart, *dump;
  long long steps, restart_every;
  int grid[3], rep[3];
} MdOptions;

typedef struct {
  MdOptions opt;
  /* deck */
  char deck_path[MD_PATH], units_name[16], lattice[16], data_file[MD_PATH];
  char *deck_text;                  /* the deck's bytes (rank 0's, broadcast) */
  double lattice_constant, density; /* metal: constant; lj: reduced density */
  int orient[3][3];
  double origin[3], box_lattice[3];
  int replicate[3], periodic[3], ntypes, ntypes_deck;
  char boundary[3]; /* LAMMPS's p, f, s, m */
  /* A data file's atom ids when they are not 1..N (LAMMPS takes any
   * distinct positive ids), ascending: atom k (1..N) inside md is the k-th
   * of them, and every output names it tags[k - 1]. NULL: the ids are 1..N. */
  long long *tags;
  /* Data file lines read as LAMMPS reads them but likely not meant so (the
   * first, and how many), printed by rank 0 as a warning. */
  char data_warning[FB_MSG_LEN];
  int data_warnings;
  double mass[MD_MAX_TYPES]; /* the masses used */
  double mass_deck[MD_MAX_TYPES], mass_data[MD_MAX_TYPES];
  int mass_deck_given, mass_data_given, mass_override;
  char pair_style[32], pot_file[MD_PATH], elements[FB_DECK_STR];
  double epsilon, sigma, cutoff;
  int eps_given, sig_given;
  int shift;
  MdMix mix;
  MdPairCoeffs coeff;                 /* data file, then the deck */
  char pair_coeff_text[FB_DECK_LIST]; /* the deck's pair_coeff lines */
  double dt, skin;
  long long neigh_every, neigh_delay;
  int neigh_check;
  int lattice_given;      /* lattice keys for units, with read_data */
  int region_box_units;   /* [groups] units = box */
  int velocity_box_units; /* [run] velocity_units = box */
  /* groups, computes, fixes, runs, thermo */
  int ngroups;
  char group_name[MD_MAX_GROUPS][MD_NAME];
  MdGroupDef group_def[MD_MAX_GROUPS];
  long long group_count[MD_MAX_GROUPS];
  int set_type_group[MD_MAX_TYPES], set_type_value[MD_MAX_TYPES], n_set_type;
  int ncomputes;
  MdCompute compute[MD_MAX_COMPUTES + 1]; /* 0: thermo_temp, temp of all; +1: velocity create's */
  int setforce_group;                     /* -1: none */
  int nstages;
  MdStage stage_plan[MD_MAX_STAGES];
  int ncolumns;
  MdColumn column[MD_MAX_COLUMNS];
  /* outputs */
  char trajectory[MD_PATH], restart_out[MD_PATH], restart_in[MD_PATH], forces_out[MD_PATH];
  char dump_path[MD_PATH];
  long long trajectory_every, dump_every;
  int n_dump_columns;
  MdDumpKey dump_column[MD_MAX_DUMP_COLUMNS];
  int no_output_flag, grid[3], have_velocities, check_forces;
  int energy_due;  /* this step's forces also sum the pair energy and virial (thermo steps) */
  int peratom_due; /* ... and the per-atom energies (dump and trajectory steps) */
  /* derived */
  MdUnits units;
  double spacing[3];                 /* lattice spacings (oriented) */
  double boxlo[3], boxhi[3], prd[3]; /* the initial box (fixed after set-up) */
  double simlo[3], simhi[3];         /* LAMMPS's box now: shrink-wrapped in s and m dimensions */
  double splitlo[3], splithi[3];     /* the box the ranks divide (md_resplit) */
  double atomlo[3], atomhi[3]; /* the data file's atoms' extent (its first reading; tilted box:
                                  lamda, in the box read_data read them into) */
  double small[3];             /* shrink-wrap margin: MD_SHRINK_SMALL of the initial box */
  double sublo[3], subhi[3], cutghost;
  /* A triclinic box (a data file's nonzero xy xz yz tilts): LAMMPS's h and
   * h_inv, Voigt order (xx yy zz yz xz xy). Atoms cross between ranks in
   * its lamda coordinates (0..1 across the box), as LAMMPS's exchange and
   * borders do: the frame below is that unit cube, and splitlo/splithi and
   * sublo/subhi are in it; an orthogonal box is its own frame. */
  int triclinic;
  double tilt[3]; /* xy xz yz */
  double h[6], h_inv[6];
  double edge[3][3]; /* the box's edge vectors (h's columns): a periodic image's move */
  double frame_lo[3], frame_hi[3], frame_prd[3], frame_cut[3]; /* frame_cut: cutghost in it */
  long long natoms;
  FbDecomp decomp;
  MdSwap *swap; /* n_swaps of them, by dimension, hop, then direction */
  int n_swaps, hops[3];
  MdAtoms atoms;
  MdNeighbor neigh;
  MdComm comm;
  MdPotential pot;
  MdTrajectory traj;
  FILE *dump_file; /* rank 0, while the dump is written (under dump_tmp) */
  char dump_tmp[4096];
  double *thread_buf;   /* force copies of threads 1.., zero between uses (force.c) */
  size_t thread_stride; /* doubles a thread */
  int thread_others;    /* threads it has room for */
  /* EAM: the pairs the density pass found inside the cutoff (atom j and r,
   * from neigh.first[i], eam_len[i] of them), reused by the force pass of
   * the same step, which then computes no distance root and takes no
   * branch on the cutoff (force.c) */
  int *eam_len, *eam_j;
  double *eam_r;
  int eam_atoms_cap, eam_pairs_cap;
  long long step;                   /* current step of the current run */
  long long total_steps;            /* all steps run */
  int stage;                        /* the run being done: index into stage_plan */
  long long stage_begin, stage_end; /* steps of the current run (for ramped rescales) */
  /* energies and virial of the last force evaluation (local sums) */
  double e_pair, virial, e_cut; /* e_cut: sum of E(rc) over the pairs inside the cutoff */
  double virial_tensor[6];      /* xx yy zz xy xz yz, when tensor_wanted */
  int tensor_wanted;            /* a thermo column is a pressure component */
  int fmax_wanted;              /* ... or fmax (a reduction of its own) */
  int thermo_norm;              /* thermo_modify norm: extensive columns per atom */
  /* thermo bookkeeping */
  double e_first, e_last, e_max_dev, e_scale, p_first[3], p_last[3], p_abs;
  double es_first, es_max_dev; /* the smooth energy (cutoff jumps removed) */
  int thermo_rows, nve;
  long long lost_atoms, migrations;
  char *thermo_json; /* rank 0: the thermo rows as JSON arrays, for the record */
  size_t thermo_len, thermo_cap;
  long long restart_every, start_step;
  int start_stage;
  FbLoop loop; /* every run's time steps, the common protocol */
  double loop_s;
} Md;

/* deck.c */
void md_parse(FbContext *ctx, Md *md, int argc, char **argv);
/* plan.c: the groups (made at set-up), computes and runs of the deck */
int md_group_index(const Md *md, const char *name);
int md_compute_index(const Md *md, const char *name);
void md_groups_assign(FbContext *ctx, Md *md);
void md_groups_count(FbContext *ctx, Md *md);
/* setup.c */
void md_setup(FbContext *ctx, Md *md);
void md_free(Md *md);
void md_velocity(FbContext *ctx, Md *md, const MdVelocity *v);
/* atoms.c: the atom store. data.c: LAMMPS data files; md_read_data reads
 * the header, box and coefficient sections (keep = 0), or also the atoms
 * this rank owns and their velocities (keep = 1), from text (the file's
 * bytes); FB_EXIT_USAGE with err on bad input. */
int md_atoms_reserve(MdAtoms *a, int n);
void md_atoms_free(MdAtoms *a); /* every per-atom array, and the counts to 0 */
int md_owns(const Md *md, const double x[3]);
/* Triclinic boxes (box.c): the frame (after the box and cutghost are set),
 * a position to lamda and back (LAMMPS's Domain::x2lamda and lamda2x, the
 * same arithmetic), an unwrapped position (Domain::unmap) and the x y z
 * extent of this rank's sub-box with its ghost shell (Domain::bbox). */
void md_set_frame(Md *md);
/* the declared box (boxlo, boxhi) as the box now, small, and the frame */
void md_initial_box(Md *md);
void md_box_matrices(const double lo[3], const double hi[3], const double tilt[3], double h[6],
                     double h_inv[6]);
void md_x2lamda_in(const double lo[3], const double h_inv[6], const double x[3], double lamda[3]);
void md_lamda2x_in(const double lo[3], const double h[6], const double lamda[3], double x[3]);
void md_x2lamda(const Md *md, const double x[3], double lamda[3]); /* in the box now */
void md_lamda2x(const Md *md, const double lamda[3], double x[3]);
void md_unmap(const Md *md, const double x[3], const int image[3], double u[3]);
/* read_data's placement of an atom (box.c): along d of an orthogonal box
 * (wrapped, counted in *image; -1 past MD_DATA_MAX_IMAGES lengths or
 * outside a non-periodic side); in a tilted box (-2: outside a non-periodic
 * side); and LAMMPS's re-wrap once the box is wrapped round the atoms. */
typedef struct {
  double lo[3], h[6], h_inv[6]; /* the declared box, s sides widened (set_initial_box) */
} MdReadBox;
int md_place_in_box(const Md *md, int d, double *x, int *image);
int md_place_in_tilted_box(const MdReadBox *r, const Md *md, double x[3], int image[3]);
void md_place_in_wrapped_box(const MdReadBox *r, const Md *md, double x[3], int image[3]);
void md_ghost_extent(const Md *md, double lo[3], double hi[3]);
/* Rank coordinate k's lower sub-box bound along d (k = dims[d]: the upper end). */
double md_split_at(const Md *md, int d, int k);
void md_subbox(Md *md); /* this rank's sub-box in the split box */
void md_resplit(FbContext *ctx, Md *md);
void md_split_data_atoms(Md *md);
int md_add_atom(Md *md, long long id, int type, const double x[3], const double v[3]);
int md_read_data(Md *md, const char *text, size_t len, int keep, char *err, size_t errlen);
/* A number as LAMMPS reads one (utils::is_integer, or is_double when real):
 * an optional sign and decimal digits, a real's point and exponent. */
int md_lammps_number(const char *s, int real);
/* The id that the data file (and so every output) gives atom id (1..N). */
static inline long long md_tag(const Md *md, long long id) {
  return md->tags ? md->tags[id - 1] : id;
}
/* potential.c */
int md_potential_init(Md *md, const char *file_text, size_t file_len, char *err, size_t len);
void md_potential_free(MdPotential *p);
/* force.c: local pair energy and virial into md->e_pair, md->virial */
void md_force(FbContext *ctx, Md *md);
void md_force_free(Md *md);
/* neighbor.c: the owned atoms' order (at each rebuild), then the list */
void md_sort_atoms(Md *md);
void md_neighbor_build(Md *md);
int md_neighbor_check(const Md *md);
void md_neighbor_free(MdNeighbor *n);
/* md_comm.c: every MPI call of the app */
void md_comm_setup(FbContext *ctx, Md *md);
void md_comm_replan(FbContext *ctx, Md *md); /* the swaps again, if the box needs other hops */
void md_comm_free(Md *md);
void md_borders(FbContext *ctx, Md *md);
void md_forward_x(FbContext *ctx, Md *md);
void md_forward_scalar(FbContext *ctx, Md *md, double *field);
void md_reverse_f(FbContext *ctx, Md *md);
void md_reverse_scalar(FbContext *ctx, Md *md, double *field);
void md_migrate(FbContext *ctx, Md *md);
int md_any(FbContext *ctx, int local);
void md_sum_exact(FbContext *ctx, double *values, int n);
void md_minmax(FbContext *ctx, double lo[3], double hi[3]);
void md_max(FbContext *ctx, double *values, int n);
long long md_count(FbContext *ctx, long long local);
void md_count_n(FbContext *ctx, long long *values, int n);
void md_gather_owned(FbContext *ctx, const Md *md, const double *field, int width, double *out);
/* thermo.c: temperatures, the box, the thermo row */
double md_temperature(FbContext *ctx, Md *md, int compute, double *dof_out);
void md_reset_box(FbContext *ctx, Md *md);
/* a tilted box wrapped round its atoms' lamda extent lo..hi (thermo.c) */
void md_wrap_tilted(Md *md, const double lo[3], const double hi[3]);
void md_wrapped_box(const Md *md, const double lo[3], const double hi[3], double boxlo[3],
                    double boxhi[3]);
void md_thermo(FbContext *ctx, Md *md, int print);
void md_thermo_header(FbContext *ctx, const Md *md);
/* integrate.c */
void md_run(FbContext *ctx, Md *md);
/* output.c */
void md_write_forces(FbContext *ctx, Md *md);
void md_dump_frame(FbContext *ctx, Md *md);
void md_trajectory_frame(FbContext *ctx, Md *md);
void md_outputs_close(FbContext *ctx, Md *md, int keep);
void md_restart_write(FbContext *ctx, Md *md);
int md_restart_read(FbContext *ctx, Md *md, char *err, size_t len);
/* validate.c */
void md_validate(FbContext *ctx, Md *md, FbResult *r);
void md_fill_result(FbContext *ctx, Md *md, FbResult *r, char **json);

#endif
