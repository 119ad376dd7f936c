# tests/lib.sh: helpers for the end-to-end tests (sourced by tests/run-tests).
# Each check counts one test; tests gate on exit codes and the run record.

# Its scratch folder comes from tests/run-tests: sourced without it, the
# python3 shim below would be written to /bin/python3 (through Debian's
# /bin -> /usr/bin, over the system interpreter).
: "${TMPDIR_T:?tests/lib.sh needs TMPDIR_T (source it from tests/run-tests)}"
PASSED=0
FAILED=0
SKIPPED=0
MPIRUN=${MPIRUN:-mpirun}
export FB_LAUNCHER="$MPIRUN -np {np}"  # the run/ tools launch with the same MPI
# Open MPI: allow root and more ranks than cores; ignored by MPICH. Open MPI
# 5's launcher (PRRTE: Debian 13, Ubuntu 24.10, Fedora) ignores the 4.x
# variable and refuses 3 ranks on 2 cores without its own.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export PRTE_MCA_rmaps_default_mapping_policy=${PRTE_MCA_rmaps_default_mapping_policy:-:oversubscribe}
# Open MPI 5's default reachability component (netlink) pairs no two TCP
# interfaces of one host on some machines (Debian 13's 5.0.7 on a VM: every
# run warns "Unable to find reachable pairing", and a job on the TCP BTL
# alone exits 14); its weighted component pairs them, as 4.1's does.
case "$("$MPIRUN" --version 2>/dev/null | head -n 1)" in
  *"Open MPI) 5."*) export OMPI_MCA_reachable=${OMPI_MCA_reachable:-weighted} ;;
esac
# python3, found once: a version manager's shim (pyenv's is a bash script
# that runs `pyenv exec`) took 0.37 s a start here against 0.05 s for the
# interpreter it picks, and the tests start Python about a thousand times
# (each check of a record, each bad input's deck, the run/ tools). That
# interpreter goes first on PATH, for the tests and whatever they start,
# through a script that starts it by its own path (a virtual environment
# stays one). Where the script cannot run (a noexec /tmp), PATH is kept.
if FB_PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$FB_PYTHON" ]; then
  mkdir -p "$TMPDIR_T/bin"
  printf '#!/bin/sh\nexec '\''%s'\'' "$@"\n' "$(printf '%s' "$FB_PYTHON" | sed "s/'/'\\\\''/g")" > "$TMPDIR_T/bin/python3"
  chmod +x "$TMPDIR_T/bin/python3"
  "$TMPDIR_T/bin/python3" -c '' 2>/dev/null && PATH="$TMPDIR_T/bin:$PATH"
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# The tests with 2 threads a rank put 4 threads on CI's 2 cores. Spinning
# OpenMP threads there starve the MPI rank they share a core with: under
# MPICH (whose ranks poll without yielding) weather tiny on 2 ranks x 2
# threads took 21.5 s with GCC's default wait policy and 0.22 s with
# threads that sleep (Open MPI 0.78 and 0.56). Tests check answers, which
# the wait policy does not change.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# Sanitizer builds (make check SANITIZE=address,undefined): the MPI library's
# own leaks are suppressed by library name (tests/lsan.supp). Open MPI 4.1
# unloads its components at MPI_Finalize, so their frames would print as
# "<unknown module>": a dlclose() that keeps them loaded is preloaded
# (tests/keep_loaded.c; Open MPI 5 does it with the parameter below), and
# stacks are unwound in full, as frames without frame pointers break the
# fast unwind before a library's frame (a vasprintf called by libmpi).
export OMPI_MCA_mca_base_component_disable_dlclose=1
if [ -n "${FB_SANITIZE:-}" ] && [ -e build/tests/libkeep_loaded.so ]; then
  # by name through the library path: ld.so splits LD_PRELOAD at spaces, so
  # a checkout under a path with a space could not be preloaded by path
  export LD_PRELOAD="libkeep_loaded.so${LD_PRELOAD:+:$LD_PRELOAD}"
  export LD_LIBRARY_PATH="$PWD/build/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-fast_unwind_on_malloc=0:malloc_context_size=40:verify_asan_link_order=0}
# (the suppressions' path in quotes, which the sanitizers' option parser reads:
# a checkout's path may hold a space)
LSAN_DEFAULT="suppressions=\"$PWD/tests/lsan.supp\":print_suppressions=0:fast_unwind_on_malloc=0:malloc_context_size=40"
export LSAN_OPTIONS=${LSAN_OPTIONS:-$LSAN_DEFAULT}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# TIME_SCALE: the time limits of the tests are the issues' (10 s for bad
# input, 30 s for a killed rank) for the real binaries. A sanitizer build is
# slower by design: every malloc of MPI_Init is unwound in full (above), which
# took a bad-input case 5 s alone here and up to 21 s on a slower CI host with
# four cases at once on 2 cores. That pass checks memory safety, not speed:
# its limits are five times as long, still short enough to catch a hang.
TIME_SCALE=1
[ -n "${FB_SANITIZE:-}" ] && TIME_SCALE=5
# within SECONDS: true when the SECONDS taken fit the test's limit, scaled
within() { [ "$1" -le $(($2 * TIME_SCALE)) ]; }

ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $1"; [ -n "${2:-}" ] && echo "$2" | sed 's/^/    # /' | head -n 15; return 0; }
# skip NAME REASON: a test this host cannot run, counted as skipped (never as passed)
skip() { SKIPPED=$((SKIPPED + 1)); echo "skip - $1: $2"; }
# count_tap FILE: print a sub-test's "ok - / not ok - / skip - " lines and count them
count_tap() {
  grep -v '^[0-9]* passed, [0-9]* failed' "$1"
  PASSED=$((PASSED + $(grep -c '^ok - ' "$1")))
  FAILED=$((FAILED + $(grep -c '^not ok - ' "$1")))
  SKIPPED=$((SKIPPED + $(grep -c '^skip - ' "$1")))
}
check() { # check NAME CONDITION-COMMAND...
  name=$1; shift
  if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# The status a --timeout job ends with: 3 (FB_EXIT_RUNTIME). Under MPICH
# hydra may report 1 ("Hangup (signal 1)") when the ranks exit together:
# strace showed both ranks' exit_group(3), then the proxy's kill of the
# group and mpiexec's exit 1 (Debian 12's MPICH 4.0, 3 runs in 8 on a
# 2-core VM); MPICH 4.2.1's (Debian 13's) exits 0 in 4 runs of 25, where
# its -print-all-exitcodes lists both ranks as 0 (768, exit 3, for one of
# them in the other 21). Every rank's error line is still checked, and that
# no record was written.
timeout_status() { if [ "${FB_MPI:-openmpi}" = mpich ]; then echo 3,1,0; else echo 3; fi; }

# polls_oversubscribed NP: true when NP ranks of this MPI would share cores
# while polling: MPICH's ch4:ucx ranks poll without yielding, so a job with
# more ranks than cores runs tens of times slower (Open MPI yields)
polls_oversubscribed() { [ "${FB_MPI:-openmpi}" = mpich ] && [ "$1" -gt "$FB_CORES" ]; }

# mpi NP CMD... : run under the MPI launcher with a time limit; output in $OUT_FILE
mpi() {
  np=$1; shift
  timeout -k 5 "${LIMIT:-300}" "$MPIRUN" -np "$np" "$@" >"$OUT_FILE" 2>&1 </dev/null
}

# cpus: the CPUs this shell may run on, as fabricbench counts a node's cores
# (its affinity; nproc would follow OMP_NUM_THREADS, which the tests set)
cpus() {
  python3 -c 'import os; print(len(os.sched_getaffinity(0)))'
}

# peak_mb NP PROGRAM ARGS... : the largest resident memory of one rank of
# the run in MB, as the kernel counts it for the waited-for processes
# (ru_maxrss), or "failed" when the run did not exit 0
peak_mb() {
  np=$1; shift
  python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if rc == 0 else "failed")' \
    timeout -k 5 "${LIMIT:-300}" "$MPIRUN" -np "$np" "$@"
}

# json FILE EXPR : evaluate a Python expression over `r`, the JSON file or
# the last record of a JSON Lines file (`lines`: its lines)
json() {
  python3 - "$1" "$2" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
lines = [l for l in text.splitlines() if l.strip()]
try:
    r = json.loads(text)           # a whole JSON file
except ValueError:
    r = json.loads(lines[-1])      # JSON Lines: the last record
v = eval(sys.argv[2], {"r": r, "lines": lines, "json": json})
print(v if not isinstance(v, bool) else ("true" if v else "false"))
PY
}

# check_pages NAME REC REC_4K: the records of a run as it is and of one with
# --no-huge-pages (fb_record_pages). The second refuses huge pages whatever
# the kernel's mode; the first gets them wherever THP is madvise or always
# and the kernel compacts memory for a marked range at its first touch
# (defrag always, madvise or defer+madvise; otherwise a fragmented host's
# fault may fall back to 4 KiB pages, and that is not checked).
check_pages() {
  thp=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
  defrag=$(sed -n 's/.*\[\([a-z+]*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)
  check "$1 --no-huge-pages: PASS, on 4 KiB pages, none on huge ones (the kernel's THP: ${thp:-unknown})" \
    [ "$(json "$3" 'r["validation"]["status"] == "PASS" and r["params"]["no-huge-pages"] is True and r["params"]["pages"] == "4 KiB" and r["params"]["huge_page_share"] == 0 and r["params"]["thp"] == "'"${thp:-unknown}"'"')" = true ]
  case "$thp/$defrag" in
    always/always | always/madvise | always/defer+madvise | madvise/always | madvise/madvise | madvise/defer+madvise)
      check "$1: PASS, most of it on huge pages (THP $thp, defrag $defrag; share $(json "$2" 'r["params"]["huge_page_share"]'))" \
        [ "$(json "$2" 'r["validation"]["status"] == "PASS" and r["params"]["no-huge-pages"] is False and r["params"]["pages"] == "huge" and r["params"]["huge_page_share"] > 0.5')" = true ] ;;
    *) skip "$1: huge pages" "the kernel's transparent huge pages: ${thp:-unknown}, defrag ${defrag:-unknown}" ;;
  esac
}

# expect_exit NAME CODE SECONDS NP ARGS... : exit code CODE within SECONDS,
# one error line on stderr naming the problem (one per rank when
# PER_RANK_ERRORS=1, e.g. the watchdog), and no record written.
# CODE may list the statuses accepted, comma-separated (3,1).
expect_exit() {
  name=$1 code=$2 secs=$3 np=$4; shift 4
  rec="$TMPDIR_T/bad.$$.${BAD_TAG:-0}.jsonl"; rm -f "$rec"
  start=$(date +%s)
  bin=$1; shift  # the record path first, so a --json in the case wins
  LIMIT=$((secs * TIME_SCALE + 20)) mpi "$np" "$bin" --json "$rec" "$@"
  rc=$?
  took=$(( $(date +%s) - start ))
  errs=$(grep -c 'error:' "$OUT_FILE")
  want_errs=1
  [ "${PER_RANK_ERRORS:-0}" = 1 ] && want_errs=$np
  if case ",$code," in *",$rc,"*) true ;; *) false ;; esac && within "$took" "$secs" && [ "$errs" -eq "$want_errs" ] && [ ! -e "$rec" ]; then
    ok "$name (exit $rc in ${took}s)"
  else
    not_ok "$name: exit $rc (want $code) in ${took}s, $errs error lines, record $( [ -e "$rec" ] && echo written || echo absent)" "$(cat "$OUT_FILE")"
  fi
}

# The checkout through a path with a space (a link to it), for the tools that
# preload the injector or start MPI through an agent: ld.so splits LD_PRELOAD,
# and Open MPI its rsh agent, at spaces, and a checkout may lie under such a
# path (run-fabric and run-slurm run the tools through it).
SPACED="$TMPDIR_T/check out"
[ -e "$SPACED" ] || ln -s "$PWD" "$SPACED"
