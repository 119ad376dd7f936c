/* wx_io.h: the NetCDF plumbing io.c (history) and restart.c share: sticky
 * errors (IoStatus and the IO macro), who holds the file, collective
 * writes of each rank's block, temporary names and the agreed outcome. */
#ifndef WX_IO_H
#define WX_IO_H

#include "weather.h"

#include <netcdf.h>
#include <stdio.h>

#ifdef WX_SERIAL_NETCDF
#define SERIAL_IO 1
#else
#define SERIAL_IO 0
#endif

typedef struct {
  int rc;
  char msg[FB_MSG_LEN];
} IoStatus;

/* Runs a NetCDF call unless an earlier one failed; records the first error
 * with the call and the source line that failed (as miniWeather's ncwrap). */
#define IO(st, call)                                                                               \
  do {                                                                                             \
    if (!(st)->rc) {                                                                               \
      int io_rc_ = (call);                                                                         \
      if (io_rc_ != NC_NOERR) {                                                                    \
        (st)->rc = FB_EXIT_RUNTIME;                                                                \
        snprintf((st)->msg, sizeof(st)->msg, "%s (%.60s at %s:%d)", nc_strerror(io_rc_), #call,    \
                 __FILE__, __LINE__);                                                              \
      }                                                                                            \
    }                                                                                              \
  } while (0)

int io_holds(const FbContext *ctx);
void io_create(FbContext *ctx, const char *path, int *ncid, IoStatus *st);
void io_collective(int ncid, int varid, IoStatus *st);
void io_put_block(FbContext *ctx, int ncid, int varid, int ndims, const size_t *start,
                  const size_t *count, const void *data, int is_float, IoStatus *st);
void io_agree(FbContext *ctx, IoStatus *st, const char *what, const char *path);
int io_shared_temp(FbContext *ctx, const char *path, char *tmp, size_t len);
void io_commit(FbContext *ctx, const char *tmp, const char *path, IoStatus *st);
int io_put_text(int ncid, int varid, const char *name, const char *text);

#endif
