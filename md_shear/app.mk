# md_shear/app.mk: serial HDF5 for the H5MD files (rank 0 writes after a
# gather), so the app links the same way under Open MPI and MPICH.
HDF5_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags hdf5-serial 2>/dev/null)
HDF5_LIBS ?= $(shell $(PKG_CONFIG) --libs hdf5-serial 2>/dev/null || echo -lhdf5)
EXTRA_CFLAGS_md_shear = $(HDF5_CFLAGS)
LIBS_md_shear = $(HDF5_LIBS)
