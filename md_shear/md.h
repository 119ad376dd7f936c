/* md.h: md_shear's system, potential, neighbour list, communication plan and
 * phases: a short-range molecular dynamics kernel with LAMMPS's conventions. */
#ifndef MD_H
#define MD_H

#include "fabricbench.h"

enum { PH_PAIR, PH_NEIGH, PH_COMM, PH_REDUCTIONS, PH_OUTPUT, PH_OTHER, PH_COUNT };

#define MD_MAX_TYPES 8
#define MD_PATH 256

/* Group bits, as in LAMMPS's shear example. */
enum { MD_LOWER = 1, MD_UPPER = 2, MD_MOBILE = 4 };

/* Unit conversions of LAMMPS's update.cpp for the two unit systems we use. */
typedef struct {
  const char *name;
  double boltz;   /* energy per kelvin (metal) or 1 (lj) */
  double mvv2e;   /* mass * velocity^2 -> energy */
  double ftm2v;   /* force / mass * time -> velocity */
  double nktv2p;  /* energy / volume -> pressure */
} MdUnits;

/* A tabulated function on a uniform grid with LAMMPS's spline convention:
 * for p in [0,1) within interval m, value ((c3 p + c4) p + c5) p + c6 and
 * derivative (c0 p + c1) p + c2 (derivative per unit of the abscissa). */
typedef double MdSpline[7];

typedef enum { POT_LJ, POT_EAM } MdPotKind;

typedef struct {
  MdPotKind kind;
  char style[32];          /* lj/cut, eam, eam/alloy */
  int ntypes;
  double cut, cutsq;       /* force cutoff */
  /* lj/cut */
  double lj1[MD_MAX_TYPES][MD_MAX_TYPES], lj2[MD_MAX_TYPES][MD_MAX_TYPES];
  double lj3[MD_MAX_TYPES][MD_MAX_TYPES], lj4[MD_MAX_TYPES][MD_MAX_TYPES];
  double offset[MD_MAX_TYPES][MD_MAX_TYPES];
  /* EAM tables: one embedding and density per element, one r*phi per pair */
  int nrho, nr, nelements;
  double drho, dr, rdrho, rdr, rhomax;
  MdSpline *frho[MD_MAX_TYPES], *rhor[MD_MAX_TYPES], *z2r[MD_MAX_TYPES][MD_MAX_TYPES];
  int elem_of_type[MD_MAX_TYPES];
  double file_mass[MD_MAX_TYPES];   /* per element, from the file */
  char element[MD_MAX_TYPES][16];
} MdPotential;

/* Atoms: owned first (n_local), then ghosts (n_ghost). */
typedef struct {
  int n_local, n_ghost, cap;
  double (*x)[3], (*v)[3], (*f)[3], (*x_built)[3];
  double *rho, *fp;
  long long *id;
  int *type, *group;
} MdAtoms;

/* One of the six ghost swaps: atoms sent to a neighbour and received back. */
typedef struct {
  int dim, dir;            /* dir 0: send to the lower neighbour, 1: upper */
  int send_to, recv_from;  /* ranks, MPI_PROC_NULL at a non-periodic wall */
  int n_send, n_recv, first_recv, cap_send;
  int *send_list;
  double shift[3];         /* added to sent positions (periodic wrap) */
} MdSwap;

typedef struct {
  int count, cap;
  int *first, *len;        /* per owned atom, into pairs */
  int *pairs;
  int nbins[3], nbins_total;
  double bin_lo[3], bin_size[3];
  long long builds, dangerous;
} MdNeighbor;

typedef struct {
  /* deck */
  char deck_path[MD_PATH], units_name[16], lattice[16], data_file[MD_PATH];
  double lattice_constant, density;           /* metal: constant; lj: reduced density */
  int orient[3][3];
  double origin[3], box_lattice[3];
  int replicate[3], periodic[3], ntypes;
  double mass[MD_MAX_TYPES];
  char pair_style[32], pot_file[MD_PATH], elements[FB_DECK_STR];
  double epsilon, sigma, cutoff;
  int shift;
  double dt, temperature, skin;
  long long steps, seed, thermo_every, neigh_every, neigh_delay, equil_steps;
  int neigh_check, shear, momentum_zero;
  double lower_wall, upper_wall, wall_velocity, ramp_lo, ramp_hi;
  long long rescale_every;
  double rescale_window, rescale_fraction;
  char trajectory[MD_PATH], restart_out[MD_PATH], restart_in[MD_PATH], forces_out[MD_PATH];
  long long trajectory_every;
  int no_output_flag, grid[3], have_velocities, check_overlap;
  int energy_due; /* this step's forces also sum the pair energy and virial (thermo steps) */
  /* derived */
  MdUnits units;
  double spacing[3];       /* oriented lattice spacings */
  double boxlo[3], boxhi[3], prd[3];
  double sublo[3], subhi[3], cutghost;
  long long natoms, nmobile;
  FbDecomp decomp;
  MdSwap swap[6];
  MdAtoms atoms;
  MdNeighbor neigh;
  MdPotential pot;
  long long step;          /* current step of the current stage */
  long long total_steps;   /* all steps run */
  int stage;               /* 0: equilibration (shear) or the only run, 1: shear run */
  /* energies and virial of the last force evaluation (local sums) */
  double e_pair, virial;
  /* thermo bookkeeping */
  double e_first, e_last, e_max_dev, p_first[3], p_last[3], p_abs;
  int thermo_rows;
  long long lost_atoms, migrations;
  char *thermo_json;       /* rank 0: the thermo rows as JSON arrays, for the record */
  size_t thermo_len, thermo_cap;
  long long restart_every, start_step; int start_stage;
  double loop_s;
} Md;

/* deck.c */
void md_parse(FbContext *ctx, Md *md, int argc, char **argv);
/* setup.c */
void md_setup(FbContext *ctx, Md *md);
void md_free(Md *md);
void md_sort_atoms(Md *md);
/* data.c: the atom store and LAMMPS data files. md_read_data reads the
 * header and box (keep = 0), or also the atoms this rank owns, their
 * velocities and the masses (keep = 1); FB_EXIT_USAGE with err on bad input. */
int md_atoms_reserve(MdAtoms *a, int n);
int md_owns(const Md *md, const double x[3]);
int md_add_atom(Md *md, long long id, int type, const double x[3], const double v[3]);
int md_read_data(Md *md, int keep, char *err, size_t len);
/* potential.c */
int md_potential_init(Md *md, char *err, size_t len);
void md_potential_free(MdPotential *p);
/* force.c: local pair energy and virial into md->e_pair, md->virial */
void md_force(FbContext *ctx, Md *md);
/* neighbor.c */
void md_neighbor_build(Md *md);
int md_neighbor_check(const Md *md);
void md_neighbor_free(MdNeighbor *n);
/* md_comm.c: every MPI call of the app */
void md_comm_setup(FbContext *ctx, Md *md);
void md_borders(FbContext *ctx, Md *md);
void md_forward_x(FbContext *ctx, Md *md);
void md_forward_scalar(FbContext *ctx, Md *md, double *field);
void md_reverse_f(FbContext *ctx, Md *md);
void md_reverse_scalar(FbContext *ctx, Md *md, double *field);
void md_migrate(FbContext *ctx, Md *md);
int md_any(FbContext *ctx, int local);
void md_sum_exact(FbContext *ctx, double *values, int n);
void md_minmax(FbContext *ctx, double lo[3], double hi[3]);
long long md_count(FbContext *ctx, long long local);
void md_gather_owned(FbContext *ctx, const Md *md, const double (*field)[3], double *out);
/* integrate.c */
void md_run(FbContext *ctx, Md *md);
void md_thermo(FbContext *ctx, Md *md, int print);
double md_temperature(FbContext *ctx, Md *md, double *dof_out);
/* output.c */
void md_write_forces(FbContext *ctx, Md *md);
void md_trajectory_frame(FbContext *ctx, Md *md);
void md_trajectory_close(FbContext *ctx, Md *md, int keep);
void md_restart_write(FbContext *ctx, Md *md);
int md_restart_read(FbContext *ctx, Md *md, char *err, size_t len);
/* validate.c */
void md_validate(FbContext *ctx, Md *md, FbResult *r);
void md_fill_result(FbContext *ctx, Md *md, FbResult *r, char **json);

#endif
