/* fabricbench.h: the one header every app includes; the shared layer for
 * options, input decks, timers, decomposition, halo exchange, reproducible
 * sums, collective failure and the run record. */
#ifndef FABRICBENCH_H
#define FABRICBENCH_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- exit codes */
enum {
  FB_EXIT_OK = 0,      /* ran and validated */
  FB_EXIT_INVALID = 1, /* ran, validation failed */
  FB_EXIT_USAGE = 2,   /* bad usage or input */
  FB_EXIT_RUNTIME = 3  /* out of memory, I/O error, watchdog timeout */
};

#define FB_MAX_OPTIONS 48
#define FB_MAX_PHASES  16
#define FB_MAX_CHECKS  16
#define FB_MAX_REPEATS 1000
#define FB_MAX_PARAMS  64
#define FB_MSG_LEN     512

/* ------------------------------------------------------------------- options */
typedef enum {
  FB_OPT_FLAG,   /* no value; dest is int, set to 1 */
  FB_OPT_INT,    /* dest is long long, range [imin, imax] */
  FB_OPT_DOUBLE, /* dest is double, range [dmin, dmax] */
  FB_OPT_STRING, /* dest is const char * (points into argv) */
  FB_OPT_DIMS3   /* "PxQxR" with positive integers; dest is int[3] */
} FbOptType;

typedef struct {
  const char *name; /* long name without "--" */
  char short_name;  /* 0 when none */
  FbOptType type;
  void *dest;
  const char *metavar; /* shown in --help */
  const char *help;    /* help text; the default is appended */
  long long imin, imax;
  double dmin, dmax;
  char defval[48]; /* default as text, taken at registration */
  int seen;        /* set by the parser */
} FbOption;

/* The flags every app shares (DESIGN.md "options"). */
typedef struct {
  int help, version, quiet;
  const char *json_path;
  long long repeat;
  double timeout_s;
} FbCommonOpts;

/* ------------------------------------------------------------------- timers */
/* Named phases: the app defines an enum and a name table, the layer keeps
 * per-rank totals, call counts and message/byte counters per phase. */
typedef struct {
  const char *const *names;
  int count;
  double started[FB_MAX_PHASES];
  double total_s[FB_MAX_PHASES];   /* inside timed loops (what "% of loop" divides) */
  double outside_s[FB_MAX_PHASES]; /* before and after them (set-up, checks, final files) */
  int loop_depth;                  /* > 0 inside fb_loop_begin ... fb_loop_end */
  long long calls[FB_MAX_PHASES];
  long long messages[FB_MAX_PHASES]; /* sent across ranks */
  long long bytes[FB_MAX_PHASES];
  /* The critical path: per exchange what the rank sent or, when it sent
   * nothing, what it waited for; per collective its rounds (run/predict). */
  long long path_messages[FB_MAX_PHASES];
  long long path_bytes[FB_MAX_PHASES];
  volatile int current; /* phase running now, -1 outside; read by the watchdog */
} FbTimers;

/* Cross-rank statistics of one phase, filled on rank 0 by fb_timers_reduce. */
typedef struct {
  double min_s, avg_s, max_s;       /* inside the timed loops */
  double outside_max_s;             /* outside them, the slowest rank */
  long long calls, messages, bytes; /* summed over ranks */
  long long path_messages, path_bytes;
} FbPhaseStats;

/* ---------------------------------------------------------- the app context */
typedef struct FbContext {
  const char *app;     /* e.g. "himeno" */
  const char *program; /* argv[0] basename, for messages */
  MPI_Comm comm;
  int rank, size;
  int threads;
  FbCommonOpts common;
  FbOption options[FB_MAX_OPTIONS];
  int n_options;
  FbTimers timers;
  double started_wall;        /* MPI_Wtime at fb_init */
  char started_utc[32];       /* ISO-8601 */
  void *env_start;            /* environment snapshot at start (net counters) */
  const char *volatile stage; /* what the run is doing outside a phase (setup, report...) */
  int stall_rank;             /* test hook "stall": this rank hangs in its next collective */
  int handoff_probed;         /* the first timed loop began: handoff_before_ns is set */
  double handoff_before_ns;   /* fb_probe_handoff just before the first timed loop */
  void *watchdog;
} FbContext;

void fb_init(FbContext *ctx, int *argc, char ***argv, const char *app);
/* What the run is doing outside its phases ("setup", "report", ...): named
 * by an interruption or a --timeout. fb_phase_now: the phase, else the stage. */
void fb_set_stage(FbContext *ctx, const char *stage);
const char *fb_phase_now(const FbContext *ctx);
/* Finalizes MPI and exits with status on every rank (status must be the same
 * on every rank: use after fb_agree or a collective verdict). */
void fb_finalize(FbContext *ctx, int status);

/* Options: apps register theirs, then fb_parse_options adds the shared ones,
 * parses argv strictly and handles --help/--version (exit 0) and errors
 * (one line, exit 2, all ranks). */
void fb_option_flag(FbContext *ctx, const char *name, char short_name, int *dest, const char *help);
void fb_option_int(FbContext *ctx, const char *name, char short_name, long long *dest,
                   long long imin, long long imax, const char *metavar, const char *help);
void fb_option_double(FbContext *ctx, const char *name, char short_name, double *dest, double dmin,
                      double dmax, const char *metavar, const char *help);
void fb_option_string(FbContext *ctx, const char *name, char short_name, const char **dest,
                      const char *metavar, const char *help);
void fb_option_dims3(FbContext *ctx, const char *name, char short_name, int dest[3],
                     const char *help);
/* The default --help shows for the option registered last (e.g. "the deck's"). */
void fb_option_default(FbContext *ctx, const char *text);
void fb_parse_options(FbContext *ctx, int argc, char **argv, const char *summary);
/* Pure parser used by fb_parse_options and the unit tests: returns 0, or 2 with
 * a one-line message in err. Does not print or exit. */
int fb_options_parse_argv(FbOption *opts, int n, int argc, char **argv, char *err, size_t err_len);
void fb_options_help(const FbOption *opts, int n, const char *program, const char *summary);
int fb_option_was_set(const FbContext *ctx, const char *name);
/* After parsing: exit 2 (one line, all ranks) unless string option --NAME's
 * value is a, b or c. */
void fb_option_one_of(FbContext *ctx, const char *name, const char *value, const char *a,
                      const char *b, const char *c);

/* -------------------------------------------------------------- input decks */
/* FB_KEY_LIST: the key may be given on several lines (or continued on
 * indented lines); the values are joined with newlines into char[FB_DECK_LIST].
 * FB_KEY_ANY (key "*"): every other key of its section, into an FbDeckAny. */
typedef enum {
  FB_KEY_INT,
  FB_KEY_DOUBLE,
  FB_KEY_STRING,
  FB_KEY_BOOL,
  FB_KEY_LIST,
  FB_KEY_ANY
} FbKeyType;
typedef struct {
  const char *section; /* "" for keys before any section */
  const char *key;
  FbKeyType type;
  void *dest;      /* long long, double, char[FB_DECK_STR], int, char[FB_DECK_LIST], FbDeckAny */
  double min, max; /* numeric range */
  int seen;
} FbDeckKey;
#define FB_DECK_STR     256
#define FB_DECK_LIST    4096
#define FB_DECK_ANY_MAX 16
typedef struct {
  int n;
  char name[FB_DECK_ANY_MAX][48];
  char value[FB_DECK_ANY_MAX][FB_DECK_STR];
} FbDeckAny;
/* Reads a key = value deck with [sections] through inih. Returns 0, 2 for bad
 * content (message "FILE:LINE: ..."), or 2 for an unreadable file. */
int fb_deck_read(const char *path, FbDeckKey *keys, int n_keys, char *err, size_t err_len);
/* The same from the deck's text (fb_read_input); path names it in messages. */
int fb_deck_parse(const char *path, const char *text, FbDeckKey *keys, int n_keys, char *err,
                  size_t err_len);
/* Line of `key` in `section` of a deck (for errors found after reading), 0 if absent. */
int fb_deck_key_line(const char *path, const char *section, const char *key);
/* A deck error found after reading: "FILE:LINE: key 'KEY': WHAT" (or "FILE:
 * key 'KEY': WHAT" when the key came from a default), exit 2 on every rank. */
void fb_deck_fail(struct FbContext *ctx, const char *path, const char *section, const char *key,
                  const char *what) __attribute__((noreturn));

/* ---------------------------------------------------------- failure handling */
/* A failure every rank detected identically (e.g. a bad option): rank 0
 * prints "program: error: message", every rank exits with code. */
void fb_fail(FbContext *ctx, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* A failure that may be local to some ranks: every rank calls it at a phase
 * boundary with its own code (0 = fine). If any rank failed, the lowest failing
 * rank prints its message and every rank exits with the highest code. */
void fb_agree(FbContext *ctx, int local_code, const char *local_msg);
/* A check only rank 0 makes (an output path, a file it reads): its code
 * (ignored elsewhere) decides for every rank; rank 0 prints its message. */
void fb_agree_root(FbContext *ctx, int root_code, const char *root_msg);
/* Unrecoverable on this rank alone: message naming the rank, then MPI_Abort. */
void fb_abort(FbContext *ctx, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* Allocation that reports failure instead of crashing (NULL on failure),
 * aligned to 64 bytes at least; from FB_HUGE_PAGE bytes up, to a huge page
 * and its whole pages marked for transparent huge pages (context.c says
 * why). */
#define FB_HUGE_PAGE (2u << 20)
void *fb_alloc(size_t bytes);
/* fb_alloc with the pages chosen: huge 1 as fb_alloc; huge 0 refuses
 * transparent huge pages for the whole allocation (MADV_NOHUGEPAGE), so its
 * pages are the base 4 KiB ones even where THP is "always": the pages that
 * OSU's, hpcc's and stream.c's arrays get where THP is "madvise". */
void *fb_alloc_pages(size_t bytes, int huge);
/* Bytes of memory available on this node (MemAvailable), 0 if unknown. */
size_t fb_mem_available(void);
/* Collective memory check: the sum of need_bytes over the ranks of each node
 * must fit in that node's available memory, else exit 3 naming the numbers
 * ("WHAT need N GiB on this node...": what is plural, "the fields"). */
void fb_check_memory(FbContext *ctx, size_t need_bytes, const char *what);

/* ------------------------------------------------------------------- files */
/* The rules of common/files.c: outputs are regular files (or symlinks to
 * them) in a writable folder; whole files are written under a temporary name
 * and renamed; records are appended in one locked write; inputs are regular
 * files read by rank 0 and broadcast. */
/* 0, or 2 with a one-line reason (no side effects). */
int fb_output_problem(const char *path, char *why, size_t len);
int fb_input_problem(const char *path, char *why, size_t len);
/* Refuses (exit 2 on every rank, naming `what`) an output that breaks the
 * rule: checked before the run, not after it. Collective. */
void fb_check_output_path(FbContext *ctx, const char *what, const char *path);
/* The real path a whole file is written to (symlinks followed). 0 or errno. */
int fb_output_target(const char *path, char *target, size_t len);
/* A registered temporary name beside target; commit renames it over target
 * (0 or errno), discard removes it; a signal or timeout removes it too. */
int fb_temp_begin(const char *target, char *tmp, size_t len);
int fb_temp_commit(const char *tmp, const char *target);
void fb_temp_discard(const char *tmp);
/* A temporary name another rank made (files written by every rank):
 * registered here too, so a signal removes it; forget: no longer ours. */
int fb_temp_adopt(const char *tmp);
void fb_temp_forget(const char *tmp);
/* Writes a whole file through a temporary name. 0 or errno. */
int fb_write_file_atomic(const char *path, const char *data, size_t len);
/* Appends text and a newline in one write under an exclusive lock. */
int fb_append_line(const char *path, const char *text);
/* Rank 0 reads the file and broadcasts it; every rank gets the same bytes
 * (NUL-terminated, to free()) or exits 2 with one line naming `what` (may be
 * NULL) and the file. A name ending in ".gz" is read through zlib (its
 * uncompressed bytes). Collective. */
char *fb_read_input(FbContext *ctx, const char *what, const char *path, size_t *len_out);

/* ------------------------------------------------------------------- timers */
void fb_timers_init(FbTimers *t, const char *const *names, int count);
void fb_timers_reset(FbTimers *t);
void fb_timer_start(FbTimers *t, int phase);
void fb_timer_stop(FbTimers *t, int phase);
/* Messages this rank sent (each on its critical path too). */
void fb_timers_count(FbTimers *t, int phase, long long messages, long long bytes);
/* One exchange round: what this rank sent to and received from other ranks.
 * A rank that only receives waits for the sender's whole transfer, so the
 * round's path is what it sent or, when it sent nothing, what it received. */
void fb_timers_exchange(FbTimers *t, int phase, long long sent, long long sent_bytes,
                        long long received, long long received_bytes);
/* calls collectives of bytes each over ranks ranks: one message per call, and
 * ceil(log2(ranks)) rounds of the bytes on the path (recursive doubling). */
void fb_timers_collective(FbTimers *t, int phase, long long calls, long long bytes, int ranks);
/* Cross-rank min/avg/max of every phase; stats valid on every rank. */
void fb_timers_reduce(const FbTimers *t, MPI_Comm comm, FbPhaseStats *stats);
double fb_timer_resolution(void);
/* The clock every timer reads (MPI_Wtime), for apps outside the MPI boundary. */
double fb_now(void);

/* The timed loop, one protocol for every FOM (STYLE.md rule 5): begin is a
 * barrier, then the clock; end reads each rank's clock and keeps the maximum
 * over ranks (the loop's time), the minimum and the average (the spread, so
 * imbalance shows). Segments accumulate: a run timed in several loops (md's
 * two runs) calls begin/end around each. A loop under FB_MIN_TICKS timer
 * ticks is flagged. Collective. */
typedef struct {
  double t0;                  /* this rank's clock at the last begin */
  double local_s;             /* this rank's own time of the last segment */
  double max_s, min_s, avg_s; /* summed over segments */
  int segments;
  int too_short; /* some segment was under FB_MIN_TICKS ticks */
} FbLoop;
#define FB_MIN_TICKS 20.0
void fb_loop_begin(FbContext *ctx, FbLoop *loop);
double fb_loop_end(FbContext *ctx, FbLoop *loop); /* returns this segment's max over ranks */

/* Collectives timed and counted under a phase, or untimed with FB_NO_PHASE
 * (set-up and validation). The _n forms reduce n values in place. */
#define FB_NO_PHASE (-1)
double fb_allreduce_sum(FbContext *ctx, int phase, double local);
double fb_allreduce_max(FbContext *ctx, int phase, double local);
double fb_allreduce_min(FbContext *ctx, int phase, double local);
void fb_allreduce_sum_n(FbContext *ctx, int phase, double *values, int n);
void fb_allreduce_max_n(FbContext *ctx, int phase, double *values, int n);
void fb_allreduce_min_n(FbContext *ctx, int phase, double *values, int n);
void fb_allreduce_sum_ll(FbContext *ctx, int phase, long long *values, int n);
void fb_allreduce_max_ll(FbContext *ctx, int phase, long long *values, int n);
void fb_barrier(FbContext *ctx, int phase);
/* Rank root's n bytes to every rank (untimed). */
void fb_bcast_bytes(FbContext *ctx, void *data, size_t n, int root);

/* ------------------------------------------------------------ decomposition */
typedef struct {
  MPI_Comm cart;
  int dims[3], coords[3], periods[3];
  int nglobal[3];           /* points decomposed along each dimension */
  int lo[3];                /* first global point owned (0-based, within nglobal) */
  int n[3];                 /* points owned */
  int nbr_lo[3], nbr_hi[3]; /* neighbour ranks, MPI_PROC_NULL at a wall */
} FbDecomp;

/* Balanced block extent of part `part` of `parts` over n points: the first
 * n % parts parts get one more. */
void fb_block_extent(int n, int parts, int part, int *lo, int *count);
/* dims_in: 0 entries are chosen (the grid of least halo surface that gives
 * every rank min_local points), the others kept.
 * min_local: fewest points any rank may own along a dimension (>= halo width;
 * a dimension of one rank and no period, with no neighbour, is exempt).
 * Returns 0, or 2 with a message naming the problem. Collective over comm. */
int fb_decomp_init(FbDecomp *d, MPI_Comm comm, const int nglobal[3], const int dims_in[3],
                   const int periods[3], int min_local, char *err, size_t err_len);
void fb_decomp_free(FbDecomp *d);
/* "PxQxR" */
void fb_decomp_grid_string(const FbDecomp *d, char *buf, size_t len);

/* -------------------------------------------------------------- halo exchange */
/* Fields are local arrays of (n[0]+2w) x (n[1]+2w) x (n[2]+2w) elements, the
 * last index fastest (or n[a] + 2 pad[a] with fb_halo_init_ex, whose rows
 * along the last index may end in a tail of padding). Exchanges run
 * dimension by dimension over the full extent of the other two, so edges
 * and corners are filled too. */
typedef struct {
  const FbDecomp *d;
  int width, nfields;
  int pad[3];        /* halo layers allocated per side along each dimension */
  int interior_mask; /* bit a: faces span only the owned layers along a */
  MPI_Datatype type;
  size_t elem;
  int ext[3];
  int tail; /* elements ending each row along the last index, neither owned nor exchanged */
  void *sendbuf[3][2], *recvbuf[3][2];
  size_t face_count[3]; /* elements per face per field */
  MPI_Request req[3][4];
  int have_req[3];
} FbHalo;

int fb_halo_init(FbHalo *h, const FbDecomp *d, int width, MPI_Datatype type, int nfields);
/* The same for fields allocated with pad[a] halo layers per side along
 * dimension a (ext = n + 2 pad), of which the innermost width are
 * exchanged: pad[a] >= width, or any pad (0 included) along a dimension
 * with no neighbour (one rank, no period), where nothing is exchanged.
 * Faces span only the owned layers along each dimension whose bit is set
 * in interior_mask (halo layers there are not exchanged: e.g. the vertical
 * boundary layers of column-decomposed models). Rows along the last index
 * are row_multiple elements apart or a multiple of it (ext[2] rounded up;
 * the tail is neither owned nor exchanged), so that with a suitably offset
 * base each row's points start at the same alignment; 1 = no tail.
 * Returns 0, FB_EXIT_USAGE for a pad too thin or row_multiple < 1,
 * FB_EXIT_RUNTIME out of memory. */
int fb_halo_init_ex(FbHalo *h, const FbDecomp *d, int width, const int pad[3], int interior_mask,
                    int row_multiple, MPI_Datatype type, int nfields);
void fb_halo_free(FbHalo *h);
/* Exchange nfields fields (as given at init); timed and counted under phase. */
void fb_halo_exchange(FbHalo *h, void *const *fields, FbTimers *t, int phase);
/* The same in two halves (faces only, no edges or corners), so computation
 * that needs no halo can run in between; fields must not change between. */
void fb_halo_begin(FbHalo *h, void *const *fields, FbTimers *t, int phase);
void fb_halo_end(FbHalo *h, void *const *fields, FbTimers *t, int phase);
static inline size_t fb_idx3(const int ext[3], int i, int j, int k) {
  return ((size_t)i * (size_t)ext[1] + (size_t)j) * (size_t)ext[2] + (size_t)k;
}

/* ------------------------------------------------------- reproducible sums */
/* Exact accumulation of doubles in a fixed-point superaccumulator: the result
 * is the exact sum, rounded once to double, hence identical for any
 * number of ranks and any order of addition. */
#define FB_RSUM_LIMBS 72
typedef struct {
  int64_t limb[FB_RSUM_LIMBS]; /* 32-bit digits, value = sum limb[i] 2^(32(i)-BIAS) */
  int adds;                    /* additions since the last carry propagation */
  int nonfinite;
} FbReproSum;
void fb_rsum_init(FbReproSum *s);
void fb_rsum_add(FbReproSum *s, double x);
void fb_rsum_merge(FbReproSum *into, const FbReproSum *from);
double fb_rsum_value(const FbReproSum *s);
/* Global exact sum over comm (collective). Returns NaN if any input was not finite. */
double fb_rsum_allreduce(FbReproSum *s, MPI_Comm comm);

/* Sums over the threads of a team. An OpenMP reduction clause adds the
 * threads' copies in an order it does not promise: with three threads or
 * more a sum's last bits change from run to run. Instead, inside the
 * parallel region each thread puts its n partial sums in its row of part
 * (fb_team_rows() rows of n doubles, zeroed), and after the region
 * fb_team_total adds the rows in thread order: the same bits on every run
 * with the same threads. */
int fb_team_rows(void);
void fb_team_put(double *part, int n, const double *mine);
void fb_team_total(const double *part, int n, double *total);

/* ---------------------------------------------------------------- run record */
typedef struct {
  char name[48];  /* snake_case identifier, e.g. "nve_energy_drift" */
  char label[96]; /* what a reader sees, e.g. "NVE drift |dE| / max(|KE| + |PE|)" */
  double value, expected, tolerance; /* tolerance: relative or absolute as the check says */
  int pass;
} FbCheck;

typedef struct {
  char key[48];
  char json[160]; /* already JSON-encoded value */
  char text[160]; /* human form */
} FbParam;

typedef struct {
  const char *fom_name, *fom_unit;
  int higher_is_better;
  double fom; /* best over repeats */
  double repeats[FB_MAX_REPEATS];
  int n_repeats;
  double wall_s;                 /* time of the timed loop (max over ranks) */
  double loop_s;                 /* denominator for "% of loop" */
  double loop_min_s, loop_avg_s; /* the same loop's fastest rank and average */
  int loop_too_short;            /* under FB_MIN_TICKS timer ticks */
  int measured;                  /* a timed loop ran (a zero-work run measures nothing) */
  FbCheck checks[FB_MAX_CHECKS];
  int n_checks;
  FbParam params[FB_MAX_PARAMS];
  int n_params;
  char grid[32];
  const char *app_json; /* optional extra JSON object body for "results" */
} FbResult;

void fb_result_init(FbResult *r, const char *fom_name, const char *fom_unit, int higher_is_better);
void fb_result_param_int(FbResult *r, const char *key, long long v);
void fb_result_param_double(FbResult *r, const char *key, double v);
void fb_result_param_str(FbResult *r, const char *key, const char *v);
void fb_result_add_repeat(FbResult *r, double fom);
/* A repeat: its FOM and the loop it came from (kept for the best repeat). */
void fb_result_add_loop(FbResult *r, const FbLoop *loop, double fom);
/* Checks: a snake_case name for the record, a label for people. */
/* Adds a check |value - expected| <= tolerance * |expected| (relative). */
int fb_result_check_rel(FbResult *r, const char *name, const char *label, double value,
                        double expected, double tolerance);
/* Adds a check |value - expected| <= tolerance (absolute). */
int fb_result_check_abs(FbResult *r, const char *name, const char *label, double value,
                        double expected, double tolerance);
/* Adds a named boolean check (value 1 = pass). */
int fb_result_check_true(FbResult *r, const char *name, const char *label, int ok);
int fb_result_passed(const FbResult *r);
/* Collective: what share of the n arrays (ptrs[i], bytes[i]) sits on
 * transparent huge pages now (/proc/self/smaps), the least over ranks, as
 * the record's params huge_page_share (0 to 1; -1 where a rank cannot
 * tell), pages (what most of them are on on every rank: "huge", "4 KiB" or
 * "unknown") and thp (the kernel's mode,
 * /sys/kernel/mm/transparent_hugepage/enabled). Call it after the arrays
 * are first touched. */
void fb_record_pages(FbContext *ctx, FbResult *r, int n, void *const *ptrs, const size_t *bytes);

/* Collective: prints the human summary (rank 0, unless --quiet), appends the
 * JSON record to --json FILE atomically, returns the exit status (0 or 1). */
int fb_report(FbContext *ctx, FbResult *r);

/* Build information (generated at build time). */
const char *fb_build_cc(void);
const char *fb_build_flags(void);
const char *fb_build_git(void);
const char *fb_version(void);

/* ---------------------------------------------------------------- statistics */
typedef struct {
  int n;
  double min, mean, median, p99, max;
} FbSampleStats;
/* Statistics of n samples (sorted copy; x is left alone). 0, or 3 (memory). */
int fb_sample_stats(const double *x, int n, FbSampleStats *st);
/* Fits T(n) = alpha + n / beta to (bytes, seconds) points, minimising the
 * relative error. Returns 0, or 2 when fewer than two usable points. */
int fb_fit_alpha_beta(const double *bytes, const double *seconds, int n, double *alpha_s,
                      double *beta_bytes_per_s);

/* Node layout: node_of_rank[r] (size entries) numbers the distinct hosts in
 * rank order; collective. Returns 0 or 3 (no memory). */
int fb_node_layout(FbContext *ctx, int *node_of_rank, int *n_nodes);
/* The ranks sharing this rank's node (shared-memory domain), as a new
 * communicator the caller frees; collective. */
MPI_Comm fb_node_comm(const FbContext *ctx);
/* This rank's place on its node and the node's rank count; collective. */
void fb_node_position(const FbContext *ctx, int *node_rank, int *node_size);
int fb_ranks_on_my_node(FbContext *ctx);
/* Available memory summed over the job's nodes (bytes); collective. */
double fb_nodes_mem_available(FbContext *ctx);
/* Size in bytes of the largest CPU cache this process can see (one
 * instance of it), 0 if unknown. */
size_t fb_last_level_cache(void);
/* How many instances of that cache the node has (its CPUs' distinct
 * sharing lists in sysfs: one per socket or chiplet), 1 if unknown. */
int fb_last_level_cache_instances(void);

/* Test hooks: true when FABRICBENCH_TEST_HOOK names this hook. Used by the
 * tests to inject faults (a perturbed coefficient, a stalled rank). */
int fb_test_hook(const char *name);

/* Rank 0 printf + flush (nothing with --quiet). */
void fb_print(const FbContext *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
