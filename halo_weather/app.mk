# halo_weather/app.mk: parallel NetCDF-4 (netcdf-mpi, HDF5 underneath).
# Debian's netcdf-mpi.pc names /usr/include, but the MPI build's headers
# live under its prefix: both go on the include path.
NETCDF_PREFIX ?= $(shell $(PKG_CONFIG) --variable=prefix netcdf-mpi 2>/dev/null)
NETCDF_CFLAGS ?= $(if $(NETCDF_PREFIX),-I$(NETCDF_PREFIX)/include) $(shell $(PKG_CONFIG) --cflags netcdf-mpi 2>/dev/null)
NETCDF_LIBS ?= $(shell $(PKG_CONFIG) --libs netcdf-mpi 2>/dev/null || echo -lnetcdf)
EXTRA_CFLAGS_halo_weather = $(NETCDF_CFLAGS)
LIBS_halo_weather = $(NETCDF_LIBS)
