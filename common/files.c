/* files.c: the rules for every file fabricbench reads or writes.
 *
 * Outputs are regular files, or symlinks to regular files, in a folder that
 * exists and can be written; anything else (a directory, a FIFO, a device, a
 * socket, a dangling link, a missing or read-only folder, a name too long for
 * the temporary name beside it) is refused with exit 2 before the run.
 * Whole files (restarts, trajectories, histories, dumps) are written under a
 * temporary name in the target's real folder and renamed over the target, so
 * a symlink keeps pointing where it did and a reader never sees half a file.
 * Run records are appended in one write under an exclusive lock, so jobs
 * sharing a file lose none; a failed write truncates back what it added.
 * Temporary files are registered while they exist and removed by a signal,
 * the --timeout watchdog or an abort (async-signal-safe).
 *
 * Inputs are regular files (a FIFO would block the open), read by rank 0 and
 * broadcast, so every rank parses the same bytes or fails the same way, even
 * where the file exists on some nodes only. */
#include "fabricbench.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Room a temporary name needs beyond the target's own: ".NAME.tmp.PID". */
#define FB_TEMP_EXTRA 24
/* Temporary files one process may have open at once. */
#define FB_MAX_TEMPS 8
/* Broadcast chunk of an input file (MPI counts are ints). */
#define FB_BCAST_CHUNK (1 << 30)

static const char *kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

static void folder_of(const char *path, char *dir, size_t len) {
  snprintf(dir, len, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
}

int fb_output_target(const char *path, char *target, size_t len) {
  struct stat st;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    char *real = realpath(path, NULL);
    if (!real) return errno;
    snprintf(target, len, "%s", real);
    free(real);
    return 0;
  }
  snprintf(target, len, "%s", path);
  return 0;
}

int fb_output_problem(const char *path, char *why, size_t len) {
  struct stat st;
  char dir[PATH_MAX], target[PATH_MAX];
  if (!path[0]) return snprintf(why, len, "empty file name"), FB_EXIT_USAGE;
  if (strlen(path) + FB_TEMP_EXTRA >= PATH_MAX)
    return snprintf(why, len, "'%.60s...': the path is too long", path), FB_EXIT_USAGE;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    if (stat(path, &st) != 0)
      return snprintf(why, len, "'%s' is a symlink to nothing (%s)", path, strerror(errno)),
             FB_EXIT_USAGE;
    if (!S_ISREG(st.st_mode))
      return snprintf(why, len, "'%s' is a symlink to %s, not a regular file", path,
                      kind_of(st.st_mode)),
             FB_EXIT_USAGE;
  }
  if (fb_output_target(path, target, sizeof target) != 0)
    return snprintf(why, len, "'%s': %s", path, strerror(errno)), FB_EXIT_USAGE;
  const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
  folder_of(target, dir, sizeof dir);
  long name_max = pathconf(dir, _PC_NAME_MAX);
  if (!base[0]) return snprintf(why, len, "'%s' names a folder, not a file", path), FB_EXIT_USAGE;
  if (name_max > 0 && (long)strlen(base) + FB_TEMP_EXTRA > name_max)
    return snprintf(why, len, "'%.40s...': the file name is too long (%zu characters)", base,
                    strlen(base)),
           FB_EXIT_USAGE;
  if (stat(dir, &st) != 0)
    return snprintf(why, len, "no folder '%s' for '%s'", dir, path), FB_EXIT_USAGE;
  if (!S_ISDIR(st.st_mode)) return snprintf(why, len, "'%s' is not a folder", dir), FB_EXIT_USAGE;
  if (access(dir, W_OK | X_OK) != 0)
    return snprintf(why, len, "cannot write in '%s': %s", dir, strerror(errno)), FB_EXIT_USAGE;
  if (stat(target, &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return snprintf(why, len, "'%s' is %s, not a regular file", path, kind_of(st.st_mode)),
             FB_EXIT_USAGE;
    int fd = open(target, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
      return snprintf(why, len, "cannot write '%s': %s", path, strerror(errno)), FB_EXIT_USAGE;
    close(fd);
  }
  /* root passes access() everywhere: a read-only place (a read-only mount,
   * /proc, /sys) shows only when a file is made there */
  char probe[PATH_MAX + 64];
  snprintf(probe, sizeof probe, "%s/.fabricbench-probe.%ld", dir, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return snprintf(why, len, "cannot write in '%s': %s", dir, strerror(errno)), FB_EXIT_USAGE;
  close(fd);
  unlink(probe);
  return 0;
}

void fb_check_output_path(FbContext *ctx, const char *what, const char *path) {
  char why[FB_MSG_LEN] = "", msg[FB_MSG_LEN] = "";
  int code = ctx->rank == 0 ? fb_output_problem(path, why, sizeof why) : 0;
  if (code) snprintf(msg, sizeof msg, "%s: %s", what, why);
  fb_agree_root(ctx, code, msg);
}

/* ---------------------------------------------------------- temporary files */

static char temp_paths[FB_MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t temp_used[FB_MAX_TEMPS];

int fb_temp_begin(const char *target, char *tmp, size_t len) {
  char dir[PATH_MAX];
  const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
  folder_of(target, dir, sizeof dir);
  int n = snprintf(tmp, len, "%s/.%s.tmp.%ld", dir, base, (long)getpid());
  if (n < 0 || (size_t)n >= len || (size_t)n >= PATH_MAX) return ENAMETOOLONG;
  for (int i = 0; i < FB_MAX_TEMPS; i++)
    if (!temp_used[i]) {
      memcpy(temp_paths[i], tmp, (size_t)n + 1);
      temp_used[i] = 1;
      return 0;
    }
  return EMFILE;
}

static void temp_forget(const char *tmp) {
  for (int i = 0; i < FB_MAX_TEMPS; i++)
    if (temp_used[i] && !strcmp(temp_paths[i], tmp)) temp_used[i] = 0;
}

void fb_temp_forget(const char *tmp) { temp_forget(tmp); }

int fb_temp_adopt(const char *tmp) {
  size_t n = strlen(tmp);
  if (n >= PATH_MAX) return ENAMETOOLONG;
  for (int i = 0; i < FB_MAX_TEMPS; i++)
    if (!temp_used[i]) {
      memcpy(temp_paths[i], tmp, n + 1);
      temp_used[i] = 1;
      return 0;
    }
  return EMFILE;
}

int fb_temp_commit(const char *tmp, const char *target) {
  int rc = rename(tmp, target) == 0 ? 0 : errno;
  if (rc) unlink(tmp);
  temp_forget(tmp);
  return rc;
}

void fb_temp_discard(const char *tmp) {
  unlink(tmp);
  temp_forget(tmp);
}

int fb_temp_cleanup(void) {
  int removed = 0;
  for (int i = 0; i < FB_MAX_TEMPS; i++)
    if (temp_used[i]) {
      unlink(temp_paths[i]);
      temp_used[i] = 0;
      removed++;
    }
  return removed;
}

int fb_write_file_atomic(const char *path, const char *data, size_t len) {
  char target[PATH_MAX], tmp[PATH_MAX];
  int rc = fb_output_target(path, target, sizeof target);
  if (!rc) rc = fb_temp_begin(target, tmp, sizeof tmp);
  if (rc) return rc;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    rc = errno;
    temp_forget(tmp);
    return rc;
  }
  for (size_t done = 0; done < len && !rc;) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno != EINTR)
      rc = errno;
    else if (n > 0)
      done += (size_t)n;
  }
  if (!rc && fsync(fd) != 0) rc = errno;
  if (close(fd) != 0 && !rc) rc = errno;
  if (rc) {
    fb_temp_discard(tmp);
    return rc;
  }
  return fb_temp_commit(tmp, target);
}

/* --------------------------------------------------------------- run records */

int fb_append_line(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0)
    rc = errno;
  else if (!S_ISREG(st.st_mode))
    rc = EINVAL; /* swapped for a device since the check */
  if (!rc && flock(fd, LOCK_EX) != 0) rc = errno;
  off_t before = rc ? 0 : lseek(fd, 0, SEEK_END);
  size_t len = strlen(text);
  char *line = rc ? NULL : malloc(len + 2);
  if (!rc && !line) rc = ENOMEM;
  if (!rc) {
    memcpy(line, text, len);
    line[len] = '\n';
    line[len + 1] = '\0';
    ssize_t n;
    do n = write(fd, line, len + 1);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)(len + 1)) {
      rc = n < 0 ? errno : ENOSPC;
      if (ftruncate(fd, before) != 0) { /* the file keeps what it had; nothing more to do */
      }
    }
  }
  free(line);
  if (close(fd) != 0 && !rc) rc = errno; /* closing releases the lock */
  return rc;
}

/* -------------------------------------------------------------------- inputs */

int fb_input_problem(const char *path, char *why, size_t len) {
  struct stat st;
  if (!path[0]) return snprintf(why, len, "empty file name"), FB_EXIT_USAGE;
  if (stat(path, &st) != 0)
    return snprintf(why, len, "%s: cannot read: %s", path, strerror(errno)), FB_EXIT_USAGE;
  if (!S_ISREG(st.st_mode))
    return snprintf(why, len, "%s: cannot read: %s, not a regular file", path, kind_of(st.st_mode)),
           FB_EXIT_USAGE;
  if (access(path, R_OK) != 0)
    return snprintf(why, len, "%s: cannot read: %s", path, strerror(errno)), FB_EXIT_USAGE;
  return 0;
}

/* A name ending in ".gz": read through zlib, as LAMMPS's read_data reads
 * such a data file (through gzip -d). */
static int gzip_name(const char *path) {
  size_t n = strlen(path);
  return n > 3 && !strcmp(path + n - 3, ".gz");
}

/* Reads up to want bytes of f (a FILE, or a gzFile for a .gz name) into to:
 * the count, or -1 on an error. */
static long long read_some(void *f, int gz, char *to, size_t want) {
  if (!gz) {
    size_t got = fread(to, 1, want, f);
    return ferror((FILE *)f) ? -1 : (long long)got;
  }
  return gzread(f, to, want > INT_MAX ? INT_MAX : (unsigned)want);
}

/* Rank 0's side: the file's bytes (a .gz file's uncompressed), or a code and
 * a message. */
static int read_whole(const char *path, char **buf, size_t *len, char *why, size_t wlen) {
  int code = fb_input_problem(path, why, wlen);
  if (code) return code;
  int gz = gzip_name(path);
  void *f = gz ? (void *)gzopen(path, "rb") : (void *)fopen(path, "rb");
  if (!f) return snprintf(why, wlen, "%s: cannot read: %s", path, strerror(errno)), FB_EXIT_USAGE;
  size_t cap = 1 << 16, n = 0;
  char *b = malloc(cap + 1);
  int failed = 0;
  while (b) {
    long long got = read_some(f, gz, b + n, cap - n);
    if (got < 0) {
      failed = 1;
      break;
    }
    n += (size_t)got;
    if (n < cap) break;
    char *bigger = realloc(b, 2 * cap + 1);
    if (!bigger) {
      free(b);
      b = NULL;
      break;
    }
    b = bigger;
    cap *= 2;
  }
  /* zlib reads a file that is not gzip data as it is: LAMMPS's gzip -d refuses it */
  int not_gzip = gz && gzdirect(f);
  if (gz ? gzclose(f) != Z_OK : fclose(f) != 0) failed = 1;
  if (!b) return snprintf(why, wlen, "%s: out of memory reading it", path), FB_EXIT_RUNTIME;
  if (failed || not_gzip) {
    free(b);
    if (not_gzip)
      return snprintf(why, wlen, "%s: not gzip data (its name ends in .gz)", path), FB_EXIT_USAGE;
    if (gz)
      return snprintf(why, wlen, "%s: the gzip data is damaged or cut short", path), FB_EXIT_USAGE;
    return snprintf(why, wlen, "%s: read error", path), FB_EXIT_USAGE;
  }
  b[n] = '\0';
  if (memchr(b, '\0', n) != NULL) {
    size_t at = (size_t)((char *)memchr(b, '\0', n) - b);
    free(b);
    return snprintf(why, wlen, "%s: not a text file (a NUL byte at offset %zu)", path, at),
           FB_EXIT_USAGE;
  }
  *buf = b;
  *len = n;
  return 0;
}

char *fb_read_input(FbContext *ctx, const char *what, const char *path, size_t *len_out) {
  char why[FB_MSG_LEN] = "", *buf = NULL;
  size_t len = 0;
  long long head[2] = {0, 0}; /* code, length */
  if (ctx->rank == 0) {
    head[0] = read_whole(path, &buf, &len, why, sizeof why);
    head[1] = (long long)len;
  }
  MPI_Bcast(head, 2, MPI_LONG_LONG, 0, ctx->comm);
  if (head[0]) {
    free(buf);
    if (what && what[0]) fb_fail(ctx, (int)head[0], "%s: %s", what, why);
    fb_fail(ctx, (int)head[0], "%s", why);
  }
  len = (size_t)head[1];
  int ok = 1;
  if (ctx->rank != 0) {
    buf = malloc(len + 1);
    ok = buf != NULL;
  }
  fb_agree(ctx, ok ? 0 : FB_EXIT_RUNTIME, "out of memory for an input file");
  for (size_t off = 0; off < len; off += FB_BCAST_CHUNK) {
    size_t n = len - off < FB_BCAST_CHUNK ? len - off : FB_BCAST_CHUNK;
    MPI_Bcast(buf + off, (int)n, MPI_CHAR, 0, ctx->comm);
  }
  buf[len] = '\0';
  if (len_out) *len_out = len;
  return buf;
}
