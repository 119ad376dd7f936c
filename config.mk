# fabricbench build configuration. Every variable can be overridden on the
# command line (make MPICC=cc CFLAGS="-O2") or from a cluster's module setup.

# MPI flavour: openmpi (default) or mpich. Selects the compiler wrapper and
# launcher names Debian installs for each; MPICC/MPIRUN override both.
MPI ?= openmpi
ifeq ($(MPI),mpich)
MPICC ?= mpicc.mpich
MPIRUN ?= mpirun.mpich
# MPICH 4.0's mpi.h marks MPI_Waitall's statuses as an array, so gcc 12 warns
# about MPI_STATUSES_IGNORE (a false positive of -Wstringop-overflow).
MPI_WARN_FLAGS = -Wno-stringop-overflow
else
MPICC ?= mpicc
MPIRUN ?= mpirun
endif

PKG_CONFIG ?= pkg-config

# -march=native when the compiler accepts it, else a portable build.
ARCH_FLAGS ?= $(shell $(MPICC) -march=native -E -x c /dev/null >/dev/null 2>&1 && echo -march=native)

# -ffp-contract=off keeps the per-point arithmetic of the stencils fixed, so the
# fields are bit-identical for every process grid and thread count (the
# reference values in validation/ were measured that way). -fno-math-errno:
# no code here reads errno after a math function, and without it a sqrt
# keeps a branch to the library for negative arguments, which stops the
# compiler vectorising md's EAM distances (the same bits either way).
OPT_FLAGS ?= -O3 $(ARCH_FLAGS)
CFLAGS ?= $(OPT_FLAGS) -ffp-contract=off -fno-math-errno
WARN_FLAGS = -std=c11 -Wall -Wextra -D_GNU_SOURCE
OPENMP_FLAGS ?= -fopenmp

# SANITIZE=address,undefined builds everything with those sanitizers.
SANITIZE ?=
ifneq ($(SANITIZE),)
SAN_FLAGS = -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer -g
endif

INIH_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags inih 2>/dev/null)
INIH_LIBS ?= $(shell $(PKG_CONFIG) --libs inih 2>/dev/null || echo -linih)
# zlib: input files named *.gz (LAMMPS data files, as read_data takes them)
ZLIB_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags zlib 2>/dev/null)
ZLIB_LIBS ?= $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null || echo -lz)
