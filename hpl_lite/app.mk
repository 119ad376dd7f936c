# hpl_lite/app.mk: OpenBLAS (CBLAS) from pkg-config.
OPENBLAS_CFLAGS ?= $(shell $(PKG_CONFIG) --cflags openblas 2>/dev/null)
OPENBLAS_LIBS ?= $(shell $(PKG_CONFIG) --libs openblas 2>/dev/null || echo -lopenblas)
EXTRA_CFLAGS_hpl_lite = $(OPENBLAS_CFLAGS)
LIBS_hpl_lite = $(OPENBLAS_LIBS)
