# tests/e2e/hpl_lite.sh: hpl_lite/hpl through mpirun (sourced by tests/run-tests).
HPL=hpl_lite/hpl
REC="$TMPDIR_T/hpl.jsonl"
export OPENBLAS_NUM_THREADS=1

reference_x=""
hpl_case() { # NAME NP ARGS...
  name=$1 np=$2; shift 2
  rm -f "$REC"
  mpi "$np" $HPL -N 203 -b 16 --json "$REC" "$@"
  rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$REC" ]; then not_ok "hpl N=203 NB=16 $name: exit $rc" "$(cat "$OUT_FILE")"; return; fi
  x=$(json "$REC" 'r["results"]["x_sum"]')
  [ -z "$reference_x" ] && reference_x=$x
  same=$(python3 -c "print(abs($x - $reference_x) <= 1e-9 * abs($reference_x))")
  if [ "$(json "$REC" 'r["validation"]["status"]')" = PASS ] && grep -q 'PASSED$' "$OUT_FILE" && [ "$same" = True ]; then
    ok "hpl N=203 NB=16 $name: PASSED, same x (sum $x)"
  else
    not_ok "hpl N=203 NB=16 $name: x sum $x vs $reference_x" "$(cat "$OUT_FILE")"
  fi
}
hpl_case "1x1" 1 -P 1 -Q 1
hpl_case "1x2" 2 -P 1 -Q 2
hpl_case "2x1" 2 -P 2 -Q 1
check "hpl 2x1: HPL's T/V code names the recursive panel spread over the column, leaves of 8 (WR10R2R8)" \
  grep -q '^WR10R2R8 ' "$OUT_FILE"
hpl_case "1x3" 3 -P 1 -Q 3
hpl_case "3x1" 3 -P 3 -Q 1
hpl_case "2x2" 4 -P 2 -Q 2
hpl_case "1x4 binomial" 4 -P 1 -Q 4 --bcast binomial
hpl_case "4x1" 4 -P 4 -Q 1
hpl_case "1x3 binomial, NB=7" 3 -P 1 -Q 3 -b 7 --bcast binomial
hpl_case "1x4 modified ring" 4 -P 1 -Q 4 --bcast ring-modified
hpl_case "1x3 modified ring, NB=7" 3 -P 1 -Q 3 -b 7 --bcast ring-modified
hpl_case "2x2 modified ring" 4 -P 2 -Q 2 --bcast ring-modified
# Local rows beyond factor.c's PROGRESS_ROWS (1024): on a grid with Q > 1 the
# trailing product goes in row blocks, with a test of the panel sends in
# flight between them. The same x on shared memory and on TCP (where the
# sends stay in flight longest: Open MPI moves them only inside MPI calls),
# on a 1 x 2 and a 2 x 2 grid; the same bits twice (the blocks never depend
# on the timing).
reference_x=""
hpl_big() { # NAME NP ARGS...
  name=$1 np=$2; shift 2
  rm -f "$REC"
  mpi "$np" $HPL -N 2600 -b 64 --json "$REC" "$@"; rc=$?
  x=$(json "$REC" 'r["results"]["x_sum"] if r["validation"]["status"] == "PASS" else "FAIL"' 2>/dev/null)
  [ -z "$reference_x" ] && reference_x=$x
  check "hpl N=2600 NB=64 $name: PASS, same x as 1x2 on the default transport (exit $rc, x sum $x)" \
    python3 -c "import sys; sys.exit(not ($rc == 0 and abs($x - $reference_x) <= 1e-9 * abs($reference_x)))"
}
hpl_big "1x2" 2 -P 1 -Q 2
first_x=$reference_x reference_x=""
hpl_big "1x2 again" 2 -P 1 -Q 2
check "hpl N=2600 NB=64 1x2 twice: the same bits ($first_x, $reference_x)" [ "$first_x" = "$reference_x" ]
# NB past 512 (GPU runs of HPL use 1024 and more): the panel's bookkeeping is
# sized by NB, on the column-by-column path (P > 1) and the recursive one
hpl_big "2x1 NB=1024" 2 -P 2 -Q 1 -b 1024
# the pivot reduction's winner does not depend on the order MPI combines in
first_x=$x
hpl_big "2x1 NB=1024 again" 2 -P 2 -Q 1 -b 1024
check "hpl N=2600 2x1 NB=1024 twice: the same bits ($first_x, $x)" [ "$first_x" = "$x" ]
hpl_big "1x2 NB=1024" 2 -P 1 -Q 2 -b 1024
# A panel is passed on along its process row the moment it comes, during the
# receiver's update (hpl_comm.c's hpl_panel_bcast_progress), not when the
# receiver has finished its update and needs the panel. Every forward counts
# once: a ring's Q - 2 middle processes per panel and process row, the
# modified ring's Q - 3 (the next panel's owner forwards nothing, the root
# serves it and the process after it), a binomial tree's inner nodes (one of
# four); the same count in the text and the record.
# Local rows past PROGRESS_ROWS, so that the update has tests between blocks
# (on 2 cores: 39-55 of the ring's 94 forwards, 26-36 of the tree's 47, came
# during the update; 1 of 126 on a 2 x 4 grid of 4000 rows). With Open MPI
# one test of the early receive can complete it (its shared-memory transport
# copies a large message in one go, from the receiving side); Debian's MPICH
# (4.0.2, ch4:ucx) completes it by a rendezvous that needs the sender's MPI
# calls too, and with tests 2048 rows apart on both sides a panel seldom
# completes during an update there (0-2 of 47 and of 94 in nine runs on 2
# cores; session 35's CI passed with some): under MPICH only the count and
# the text are checked.
hpl_forwards() { # NAME NP FORWARDS ARGS...
  fname=$1 np=$2 want=$3; shift 3
  rm -f "$REC"
  mpi "$np" $HPL --json "$REC" "$@"; rc=$?
  got=$(json "$REC" 'r["results"]["panel_forwards_during_update"], r["results"]["panel_forwards_after_update"]' 2>/dev/null)
  some=" and r['results']['panel_forwards_during_update'] > 0" during=", some during the update"
  [ "${FB_MPI:-openmpi}" = mpich ] && some="" during=""
  check "hpl $fname: $want panel forwards in all$during (exit $rc; $got)" \
    [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["panel_forwards_during_update"] + r["results"]["panel_forwards_after_update"] == '"$want$some")" = true ]
  check "hpl $fname: the text gives the record's forwards" \
    grep -q "panel forwards along the process rows: $(json "$REC" '"%d during the update, %d after it" % (r["results"]["panel_forwards_during_update"], r["results"]["panel_forwards_after_update"])')\$" "$OUT_FILE"
}
hpl_forwards "1x4 ring N=6000 NB=128" 4 $((47 * 2)) -N 6000 -b 128 -P 1 -Q 4
hpl_forwards "1x4 binomial N=6000 NB=128" 4 47 -N 6000 -b 128 -P 1 -Q 4 --bcast binomial
hpl_forwards "1x4 modified ring N=6000 NB=128" 4 47 -N 6000 -b 128 -P 1 -Q 4 --bcast ring-modified
if "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
  OMPI_MCA_btl=tcp,self hpl_big "1x2 over TCP" 2 -P 1 -Q 2
  OMPI_MCA_btl=tcp,self hpl_big "2x2 over TCP" 4 -P 2 -Q 2
else
  hpl_big "2x2" 4 -P 2 -Q 2
fi

check "hpl prints HPL's result lines" sh -c "grep -q '^T/V                N    NB     P     Q               Time                 Gflops' '$OUT_FILE' && grep -q '^WR1' '$OUT_FILE' && grep -q '^||Ax-b||_oo/(eps\*(||A||_oo\*||x||_oo+||b||_oo)\*N)=' '$OUT_FILE'"
check "hpl record: Gflop/s, phases, the BLAS kernel" \
  [ "$(json "$REC" 'r["fom"]["unit"] == "Gflop/s" and r["fom"]["value"] > 0 and set(r["phases"]) == {"panel","bcast","swap","update","solve","check"} and len(r["params"]["blas_kernel"]) > 0')" = true ]

rm -f "$REC"
mpi 2 $HPL --dat inputs/hpl/HPL.dat --json "$REC"
rc=$?
check "hpl --dat HPL.dat runs every combination (2 N x 2 NB x 2 grids): 8 PASS records (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" 'len(lines) == 8 and all(json.loads(l)["validation"]["status"] == "PASS" for l in lines)')" = true ]
check "hpl --dat notes the lines it does not use" grep -q 'read and not used' "$OUT_FILE"

# A grid smaller than the job runs, the other ranks idle, as in HPL: a
# 1x2 grid on 3 ranks gives the 2-rank run's answer bit for bit (one BLAS
# thread a rank in both), and an HPL.dat of grids 1x1, 1x2 and 2x1 runs all
# three on 2 ranks (HPL's own sample lists grids of several sizes). A grid
# larger than the job is refused (bad_inputs.txt).
rm -f "$REC" "$TMPDIR_T/grid2.jsonl"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 mpi 2 $HPL -N 400 -b 32 -P 1 -Q 2 --json "$TMPDIR_T/grid2.jsonl"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 mpi 3 $HPL -N 400 -b 32 -P 1 -Q 2 --json "$REC"
rc=$?
check "hpl -P 1 -Q 2 on 3 ranks: rank 2 sits it out, PASS, x and the residual bit for bit as on 2 ranks (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["idle_ranks"] == 1 and r["ranks"] == 3 and r["results"] == json.loads(open("'"$TMPDIR_T/grid2.jsonl"'").read())["results"]')" = true \
    -a "$(grep -c 'rank 2 is outside the 1x2 grid' "$OUT_FILE")" = 1 ]
rm -f "$REC"
sed -e '5s/^2 /1 /' -e '7s/^2 /1 /' -e '10s/^2 /3 /' -e '11s/^1 2 /1 1 2 /' -e '12s/^2 1 /1 2 1 /' \
  inputs/hpl/HPL.dat > "$TMPDIR_T/grids.dat"
mpi 2 $HPL --dat "$TMPDIR_T/grids.dat" --json "$REC"
rc=$?
check "hpl --dat with grids 1x1, 1x2, 2x1 on 2 ranks: three PASS cases, one with a rank idle (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" '[(json.loads(l)["grid"], json.loads(l)["params"]["idle_ranks"], json.loads(l)["validation"]["status"]) for l in lines] == [("1x1", 1, "PASS"), ("1x2", 0, "PASS"), ("2x1", 0, "PASS")]')" = true ]

# BCASTs 0 2 1 3 4: HPL's 1rg and 2rg name the increasing ring, 1rM and 2rM
# the modified one, 4 the binomial tree; each variant runs once per N, NB and
# grid, as its own case, with HPL's T/V code for its broadcast
rm -f "$REC"
sed -e '5s/^2 /1 /' -e '7s/^2 /1 /' -e '10s/^2 /1 /' -e '22s/^1 /5 /' -e '23s/^1 /0 2 1 3 4 /' \
  inputs/hpl/HPL.dat > "$TMPDIR_T/bcast.dat"
mpi 2 $HPL --dat "$TMPDIR_T/bcast.dat" --json "$REC"
check "hpl --dat with BCASTs 0 2 1 3 4 runs the ring, the modified ring and the binomial tree once each" \
  [ "$(json "$REC" 'sorted(json.loads(l)["params"]["bcast_used"] for l in lines) == ["binomial", "increasing ring", "modified increasing ring"]')" = true ]
check "hpl --dat: HPL's T/V codes WR10 (1rg) and WR11 (1rM)" \
  sh -c "grep -q '^WR10R2R4 ' '$OUT_FILE' && grep -q '^WR11R2R4 ' '$OUT_FILE'"

rm -f "$REC"
FABRICBENCH_TEST_HOOK=hpl_corrupt mpi 2 $HPL -N 203 -b 16 --json "$REC"
rc=$?
check "hpl with a corrupted update: FAILED, exit $rc, FAIL record" \
  sh -c "[ $rc -eq 1 ] && grep -q 'FAILED$' '$OUT_FILE' && [ \"\$(grep -c . '$REC')\" -eq 1 ]"

# A zero column (N/2 = 101, in the seventh panel, in a leaf of the recursive
# panel factorisation on P = 1 and in the column-by-column one on P = 2):
# an exactly zero pivot, reported by every grid as HPL does.
for grid in "1 1 1" "2 1 2" "2 2 1" "4 2 2"; do
  set -- $grid
  rm -f "$REC"
  FABRICBENCH_TEST_HOOK=hpl_singular mpi "$1" $HPL -N 203 -b 16 -P "$2" -Q "$3" --json "$REC"
  rc=$?
  # the record parses: x, all NaN and inf, is null there (JSON has neither)
  status=$(json "$REC" 'r["validation"]["status"] + (" x null" if r["results"]["x_sum"] is None else "")' 2>/dev/null)
  check "hpl with a zero column, ${2}x$3: singular, FAILED, exit $rc, $status record" \
    sh -c "[ $rc -eq 1 ] && grep -q 'the matrix is singular' '$OUT_FILE' && grep -q 'FAILED$' '$OUT_FILE' && [ '$status' = 'FAIL x null' ]"
done

# OpenBLAS's threads: the rank's share of the cores, as OpenMP's, unless the
# user sets OPENBLAS_NUM_THREADS. Unbound ranks, so that Debian's pthread
# OpenBLAS would start one thread per CPU of the node in each of them.
cores=$(cpus)
for np in 1 2; do
  want=$((cores / np)); [ "$want" -lt 1 ] && want=1
  rm -f "$REC"
  (unset OMP_NUM_THREADS OPENBLAS_NUM_THREADS GOTO_NUM_THREADS
   export OMPI_MCA_hwloc_base_binding_policy=none
   mpi "$np" $HPL -N 300 -b 32 --json "$REC")
  check "hpl, $np unbound rank(s), no thread variables: $want OpenBLAS thread(s) a rank on $cores cores, as OpenMP's ($(json "$REC" 'r["params"]["blas_threads"], r["threads"]' 2>&1))" \
    [ "$(json "$REC" "r['params']['blas_threads'] == r['threads'] == $want and r['validation']['status'] == 'PASS'")" = true ]
done
rm -f "$REC"
(unset OMP_NUM_THREADS; export OMPI_MCA_hwloc_base_binding_policy=none OPENBLAS_NUM_THREADS=1
 mpi 1 $HPL -N 300 -b 32 --json "$REC")
check "hpl keeps the user's OPENBLAS_NUM_THREADS=1 ($(json "$REC" 'r["params"]["blas_threads"], r["threads"]' 2>&1) BLAS, OpenMP threads)" \
  [ "$(json "$REC" "r['params']['blas_threads'] == 1 and r['threads'] == $cores")" = true ]

if grep -q avx2 /proc/cpuinfo && grep -q fma /proc/cpuinfo; then
  rm -f "$REC"
  OPENBLAS_CORETYPE=Prescott mpi 1 $HPL -N 100 -b 16 --json "$REC"
  check "hpl keeps the user's OPENBLAS_CORETYPE, warns that it is generic, records who chose it" \
    sh -c "grep -q \"OpenBLAS runs its 'Prescott' kernels\" '$OUT_FILE' && [ \"\$(python3 -c \"import json; r = json.loads(open('$REC').readlines()[-1]); print(r['params']['blas_kernel'], r['params']['blas_kernel_chosen_by'])\")\" = 'Prescott OPENBLAS_CORETYPE' ]"
  # an HPL.dat of 8 cases warns once, before the first (it warned 8 times)
  rm -f "$REC"
  OPENBLAS_CORETYPE=Prescott mpi 2 $HPL --dat inputs/hpl/HPL.dat --json "$REC"
  check "hpl --dat, 8 cases on a generic kernel: the warning once ($(grep -c "OpenBLAS runs its 'Prescott' kernels" "$OUT_FILE") times), 8 records" \
    [ "$(grep -c "OpenBLAS runs its 'Prescott' kernels" "$OUT_FILE")" = 1 -a "$(json "$REC" 'len(lines)')" = 8 ]
  rm -f "$REC"
  env -u OPENBLAS_CORETYPE FABRICBENCH_TEST_HOOK=blas_generic "$MPIRUN" -np 2 $HPL -N 400 -b 32 --json "$REC" >"$OUT_FILE" 2>&1 </dev/null
  check "hpl on a CPU OpenBLAS does not know (generic kernel): picks the CPU's best kernel itself, checked, PASS ($(json "$REC" 'r["params"]["blas_kernel"] + " by " + r["params"]["blas_kernel_chosen_by"]' 2>&1))" \
    [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["blas_kernel"] in ("Haswell", "SkylakeX") and r["params"]["blas_kernel_chosen_by"].startswith("hpl (OpenBLAS chose Prescott")')" = true ]
fi
# a user's AVX2 kernel on an AVX-512 CPU: kept, with a note (no warning)
if grep -qw avx512f /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512dq /proc/cpuinfo; then
  rm -f "$REC"
  OPENBLAS_CORETYPE=Haswell mpi 1 $HPL -N 100 -b 16 --json "$REC"
  check "hpl keeps a user's OPENBLAS_CORETYPE=Haswell on an AVX-512 CPU, notes that SkylakeX's kernels may be faster, no warning" \
    sh -c "grep -q '^NOTE: OPENBLAS_CORETYPE=Haswell runs AVX2 kernels on a CPU with AVX-512' '$OUT_FILE' && ! grep -q WARNING '$OUT_FILE' && [ \"\$(python3 -c \"import json; r = json.loads(open('$REC').readlines()[-1]); print(r['params']['blas_kernel'], r['params']['blas_kernel_chosen_by'])\")\" = 'Haswell OPENBLAS_CORETYPE' ]"
  rm -f "$REC"
  OPENBLAS_CORETYPE=SkylakeX mpi 1 $HPL -N 100 -b 16 --json "$REC"
  check "hpl with OPENBLAS_CORETYPE=SkylakeX on an AVX-512 CPU: no note" sh -c "! grep -q '^NOTE: OPENBLAS_CORETYPE' '$OUT_FILE' && grep -q PASS '$OUT_FILE'"
else
  skip "hpl's note on AVX2 kernels" "this CPU has no AVX-512"
fi

bad_dat() { # NAME LINE-EDIT NEEDLE
  sed "$2" inputs/hpl/HPL.dat > "$TMPDIR_T/bad.dat"
  expect_exit "hpl HPL.dat $1" 2 10 2 $HPL --dat "$TMPDIR_T/bad.dat"
  check "hpl HPL.dat $1 names the line" grep -q "$3" "$OUT_FILE"
}
bad_dat "with a word for Ns" '6s/.*/abc Ns/' 'bad.dat:6: expected 2 Ns'
bad_dat "with 0 NBs" '7s/^2 /0 /' 'bad.dat:7: the number of NBs must be 1 to 20'
bad_dat "truncated in the lists" '15,$d' 'bad.dat:14: expected 1 PFACTs'
bad_dat "truncated in the header" '9,$d' 'bad.dat:8: the file ends before PMAP, the process mapping: a standard HPL.dat has 31 lines'
bad_dat "with a negative N" '6s/150/-150/' 'bad.dat:6: Ns value -150 is outside 1 to 10000000'
bad_dat "with a P past an int" '11s/^1 /3000000000 /' 'bad.dat:11: Ps value 3000000000 is outside 1 to 1048576'
bad_dat "with a Q past an int" '12s/^2 /-2147483649 /' 'bad.dat:12: Q value -2147483649 is outside 1 to 1048576'
bad_dat "with no panel factorisations" '14s/^1 /0 /' 'bad.dat:14: the number of PFACTs must be 1 to 20'
bad_dat "with NBMIN 0" '17s/^4 /0 /' "bad.dat:17: NBMINs value 0 is below 1 (HPL's least)"
bad_dat "with NDIV 1" '19s/^2 /1 /' "bad.dat:19: NDIVs value 1 is below 2 (HPL's least)"
bad_dat "with DEPTH -1" '25s/^1 /-1 /' "bad.dat:25: DEPTHs value -1 is below 0 (HPL's least)"
bad_dat "with a word for the threshold" '13s/^16.0 /sixteen /' 'bad.dat:13: the threshold must be a number'

# What HPL's reader takes, hpl's takes too: a threshold of 0 or less (HPL
# then skips its check; hpl checks against 16 all the same), a PMAP other
# than 0 or 1 (row-major), a BCAST outside 0-5 (HPL runs it as 1rM: the
# modified ring), an NB larger than N and past 512, CRLF line ends, and a file that
# stops after the DEPTHs (HPL reads its last line again for the rest). The
# cases run in HPL's order: the grid outermost, then N, then NB.
sed -e '8s/^16 32 /1024 16/' -e '9s/^0 /2 /' -e '13s/^16.0 /-1.0 /' -e '23s/^1 /9 /' -e '26,$d' \
  -e 's/$/\r/' inputs/hpl/HPL.dat > "$TMPDIR_T/lenient.dat"
rm -f "$REC"
mpi 2 $HPL --dat "$TMPDIR_T/lenient.dat" --json "$REC"; rc=$?
check "hpl --dat with what HPL's reader takes: 8 cases in HPL's order, all PASS against 16, the modified ring (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" '[(d["grid"], d["params"]["N"], d["params"]["NB"], d["validation"]["status"], d["params"]["bcast_used"]) for d in map(json.loads, lines)] == [(g, n, nb, "PASS", "modified increasing ring") for g in ("1x2", "2x1") for n in (150, 203) for nb in (1024, 16)]')" = true ]
check "hpl --dat notes a threshold of 0 or less and a file that stops after the DEPTHs" \
  sh -c "grep -q \"^note: .*lenient.dat:13: threshold -1 would make HPL skip its check: hpl_lite checks against 16 all the same\" '$OUT_FILE' && grep -q '^note: .*lenient.dat: the file ends after line 25' '$OUT_FILE'"
# a panel of a rank's rows x NB must fit one MPI message (an int count)
expect_exit "hpl N=10000000 NB=8192 P=1: a panel past an MPI message's count" 2 10 1 $HPL -N 10000000 -b 8192 -P 1 -Q 1
check "hpl names the panel that is too large for one message" grep -q 'is more than one MPI message can hold' "$OUT_FILE"

rm -f "$REC"
mpi 2 $HPL --mem-fraction 0.001 -b 32 --json "$REC"
check "hpl --mem-fraction picks N from memory, a multiple of NB: PASS (N=$(json "$REC" 'r["params"]["N"]' 2>/dev/null))" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["N"] % 32 == 0 and r["params"]["N"] >= 32')" = true ]
mpi 1 $HPL -N 203 -b 16 --seed 7 --json "$REC"
check "hpl --seed gives another system (x sum differs from seed 42's)" \
  [ "$(json "$REC" "r['validation']['status'] == 'PASS' and abs(r['results']['x_sum'] - $reference_x) > 1e-6")" = true ]
