# halo_weather/app.mk: NetCDF-4 for the history and restart files. Parallel
# NetCDF (netcdf-mpi) by default: every rank writes its own block. Debian's
# is built for Open MPI, so with MPI=mpich (or WX_NETCDF=serial) the app
# uses serial NetCDF instead and rank 0 writes the blocks the others send.
# Debian's netcdf-mpi.pc names /usr/include, but the MPI build's headers
# live under its prefix: both go on the include path.
WX_NETCDF ?= $(if $(filter mpich,$(MPI)),serial,parallel)
ifeq ($(WX_NETCDF),serial)
NETCDF_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags netcdf 2>/dev/null) -DWX_SERIAL_NETCDF
NETCDF_LIBS ?= $(shell $(PKG_CONFIG) --libs netcdf 2>/dev/null || echo -lnetcdf)
else
NETCDF_PREFIX ?= $(shell $(PKG_CONFIG) --variable=prefix netcdf-mpi 2>/dev/null)
NETCDF_CFLAGS ?= $(if $(NETCDF_PREFIX),-I$(NETCDF_PREFIX)/include) $(shell $(PKG_CONFIG) --cflags netcdf-mpi 2>/dev/null)
NETCDF_LIBS ?= $(shell $(PKG_CONFIG) --libs netcdf-mpi 2>/dev/null || echo -lnetcdf)
endif
EXTRA_CFLAGS_halo_weather = $(NETCDF_CFLAGS)
LIBS_halo_weather = $(NETCDF_LIBS)
