# tests/e2e/md_shear.sh: md_shear/md through mpirun (sourced by tests/run-tests):
# presets, decomposition and thread independence, agreement with LAMMPS,
# bit-for-bit restarts, H5MD files, and validation that fails when it should.
MD=md_shear/md
REC="$TMPDIR_T/md.jsonl"
MDT="$TMPDIR_T/md"
mkdir -p "$MDT"

# thermo_same A.jsonl B.jsonl TOL: every thermo value agrees to TOL (relative)
thermo_same() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
a, b = (json.loads(open(p).read().splitlines()[-1])["results"]["thermo"] for p in sys.argv[1:3])
tol = float(sys.argv[3])
worst = max(abs(x - y) / max(abs(x), 1e-300) for ra, rb in zip(a, b) for x, y in zip(ra[2:], rb[2:]))
ok = len(a) == len(b) and len(a) > 1 and [r[:2] for r in a] == [r[:2] for r in b] and worst <= tol
print("%s %.1e" % ("true" if ok else "false", worst))
PY
}

# lj_bench: PASS at 1 to 4 ranks with the same thermo to 1e-10 (100 steps).
for np in 1 2 3 4; do
  rm -f "$MDT/lj$np.jsonl"
  mpi "$np" $MD -i inputs/md/lj_bench.ini --json "$MDT/lj$np.jsonl"
  rc=$?
  if [ $rc -ne 0 ] || [ "$(json "$MDT/lj$np.jsonl" 'r["validation"]["status"] == "PASS" and r["results"]["atoms"] == 32000 and r["fom"]["value"] > 0')" != true ]; then
    not_ok "md lj_bench at $np ranks: exit $rc" "$(cat "$OUT_FILE")"
    continue
  fi
  if [ "$np" = 1 ]; then
    check "md lj_bench at 1 rank: PASS, 32000 atoms, $(json "$MDT/lj1.jsonl" '"%.3g" % r["fom"]["value"]') atom-steps/s" true
  else
    same=$(thermo_same "$MDT/lj1.jsonl" "$MDT/lj$np.jsonl" 1e-10)
    check "md lj_bench at $np ranks ($(json "$MDT/lj$np.jsonl" 'r["grid"]')): PASS, thermo as at 1 rank to 1e-10 (worst ${same#* })" [ "${same%% *}" = true ]
  fi
done
check "md prints LAMMPS's thermo header (thermo_style one) and Loop time line" sh -c \
  "grep -Eq '^ +Step +Temp +E_pair +E_mol +TotEng +Press$' '$OUT_FILE' && grep -Eq '^Loop time of [0-9.e-]+ on 4 procs for 100 steps with 32000 atoms$' '$OUT_FILE'"
check "md lj_bench step 0 is LAMMPS bench/in.lj's (E_pair -6.7733681, Press -5.0197073)" \
  [ "$(json "$MDT/lj1.jsonl" 'abs(r["results"]["thermo"][0][3] + 6.7733681) < 1e-7 and abs(r["results"]["thermo"][0][6] + 5.0197073) < 1e-7')" = true ]
check "md record: phases pair, neigh, comm and counted ghost messages at 4 ranks" \
  [ "$(json "$MDT/lj4.jsonl" 'set(r["phases"]) >= {"pair","neigh","comm","reductions"} and r["comm"]["comm"]["messages"] > 0 and r["results"]["ghost_atoms"] > 0')" = true ]

# Sub-boxes thinner than the cutoff plus skin (2.8): tests/md/small.data's
# box of 10 on 4 and 8 ranks along one side (2.5 and 1.25 wide) takes ghosts
# from two and three ranks away, as LAMMPS does (it refused these grids
# before); the ranks the four atoms are far from hold nothing at all.
rm -f "$MDT/small1.jsonl"
mpi 1 $MD -i tests/md/small.ini --json "$MDT/small1.jsonl"
for g in 4x1x1 1x1x4 1x8x1; do
  np=$(( ${g%%x*} * $(echo "$g" | cut -dx -f2) * ${g##*x} ))
  rm -f "$MDT/thin$g.jsonl"
  mpi "$np" $MD -i tests/md/small.ini --grid "$g" --json "$MDT/thin$g.jsonl"
  rc=$?
  same=$(thermo_same "$MDT/small1.jsonl" "$MDT/thin$g.jsonl" 1e-10)
  check "md small.data on a $g grid (sub-boxes under the cutoff plus skin): PASS, thermo as at 1 rank to 1e-10 (worst ${same#* }, exit $rc)" \
    [ "${same%% *}" = true -a "$(json "$MDT/thin$g.jsonl" 'r["validation"]["status"] == "PASS" and r["grid"] == "'"$g"'"')" = true ]
done

rm -f "$REC"
OMP_NUM_THREADS=2 mpi 2 $MD -i inputs/md/lj_bench.ini --json "$REC"
same=$(thermo_same "$MDT/lj1.jsonl" "$REC" 1e-10)
check "md lj_bench at 2 ranks x 2 threads: PASS, thermo as at 1 rank to 1e-10 (worst ${same#* })" \
  [ "${same%% *}" = true -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["threads"] == 2')" = true ]

# Threads sum their energies and virials in thread order (fb_team_total):
# three runs of the shear example on 1 rank x 4 threads give the same
# thermo to the last bit (an OpenMP reduction clause gave three different
# thermo tables in three runs), and so do 2 threads, against 1 thread to
# 1e-10.
for run in 1 2 3; do
  rm -f "$MDT/team$run.jsonl"
  OMP_NUM_THREADS=4 mpi 1 $MD -i inputs/md/shear.ini -n 300 --json "$MDT/team$run.jsonl"
done
check "md shear at 1 rank x 4 threads, three runs: PASS each, the same thermo to the last bit" \
  [ "$(json "$MDT/team1.jsonl" 'r["validation"]["status"] == "PASS" and r["threads"] == 4')" = true \
    -a "$(json "$MDT/team1.jsonl" 'json.dumps(r["results"]["thermo"])')" = "$(json "$MDT/team2.jsonl" 'json.dumps(r["results"]["thermo"])')" \
    -a "$(json "$MDT/team1.jsonl" 'json.dumps(r["results"]["thermo"])')" = "$(json "$MDT/team3.jsonl" 'json.dumps(r["results"]["thermo"])')" \
    -a "$(json "$MDT/team3.jsonl" 'r["validation"]["status"]')" = PASS ]
rm -f "$MDT/team_t1.jsonl" "$MDT/team_t2.jsonl"
OMP_NUM_THREADS=1 mpi 1 $MD -i inputs/md/shear.ini -n 300 --json "$MDT/team_t1.jsonl"
OMP_NUM_THREADS=2 mpi 1 $MD -i inputs/md/shear.ini -n 300 --json "$MDT/team_t2.jsonl"
same=$(thermo_same "$MDT/team_t1.jsonl" "$MDT/team_t2.jsonl" 1e-10)
check "md shear at 1 rank x 2 threads: thermo as at 1 thread to 1e-10 (worst ${same#* })" \
  [ "${same%% *}" = true -a "$(json "$MDT/team_t2.jsonl" 'r["validation"]["status"] == "PASS" and r["threads"] == 2')" = true ]

# The atoms' sort by counting (setup.c) gives qsort's order: the shear
# example on 1 and 3 ranks, its thermo to the last bit with the comparison
# sort forced (the path a sparse system takes).
for np in 1 3; do
  rm -f "$MDT/sortc$np.jsonl" "$MDT/sortq$np.jsonl"
  mpi "$np" $MD -i inputs/md/shear.ini -n 100 --json "$MDT/sortc$np.jsonl"
  FABRICBENCH_TEST_HOOK=md_sort_compare mpi "$np" $MD -i inputs/md/shear.ini -n 100 --json "$MDT/sortq$np.jsonl"
  check "md shear at $np ranks: the same thermo to the last bit with the atoms sorted by counting and by qsort" \
    [ "$(json "$MDT/sortc$np.jsonl" 'r["validation"]["status"] + json.dumps(r["results"]["thermo"])')" = \
      "$(json "$MDT/sortq$np.jsonl" 'r["validation"]["status"] + json.dumps(r["results"]["thermo"])')" \
      -a "$(json "$MDT/sortq$np.jsonl" 'r["validation"]["status"]')" = PASS ]
done

# The shear example: 1912 atoms, two runs, walls; 1 and 3 ranks agree.
for np in 1 3; do
  rm -f "$MDT/shear$np.jsonl"
  mpi "$np" $MD -i inputs/md/shear.ini -n 300 --json "$MDT/shear$np.jsonl"
  rc=$?
  check "md shear (100 + 300 steps) at $np ranks: PASS, 1912 atoms, both runs in the thermo (exit $rc)" \
    [ "$(json "$MDT/shear$np.jsonl" 'r["validation"]["status"] == "PASS" and r["results"]["atoms"] == 1912 and r["results"]["steps"] == 400 and {row[0] for row in r["results"]["thermo"]} == {0, 1}')" = true ]
done
# Critical-path counters (run/predict): on 3 ranks along a non-periodic x the
# end ranks only receive in one of each dimension's two stages, and wait for
# it; on lj_bench's periodic 2x2 grid every rank sends in every stage. A
# reduction over 3 or 4 ranks takes ceil(log2) = 2 rounds.
check "md records the critical path: waits counted on shear's open ends ($(json "$MDT/shear3.jsonl" '"%d > %d" % (r["comm"]["comm"]["path_messages"], r["comm"]["comm"]["messages"])')), none on lj_bench's periodic grid, two rounds per reduction at 3 and 4 ranks" \
  [ "$(json "$MDT/shear3.jsonl" 'r["comm"]["comm"]["path_messages"] > r["comm"]["comm"]["messages"] and r["comm"]["reductions"]["path_messages"] == 2 * r["comm"]["reductions"]["messages"]')" = true \
    -a "$(json "$MDT/lj4.jsonl" 'r["comm"]["comm"]["path_messages"] == r["comm"]["comm"]["messages"] and r["comm"]["comm"]["path_bytes"] == r["comm"]["comm"]["bytes"] and r["comm"]["reductions"]["path_messages"] == 2 * r["comm"]["reductions"]["messages"]')" = true ]
same=$(thermo_same "$MDT/shear1.jsonl" "$MDT/shear3.jsonl" 1e-10)
check "md shear: 3 ranks give 1 rank's thermo to 1e-10 (worst ${same#* })" [ "${same%% *}" = true ]
check "md shear: the thermostat holds the mobile atoms near 300 K (every 10 steps, window 10 K)" \
  [ "$(json "$MDT/shear1.jsonl" 'all(abs(row[2] - 300) <= 90 for row in r["results"]["thermo"]) and all(abs(row[2] - 300) <= 25 for row in r["results"]["thermo"] if row[0] == 1)')" = true ]
check "md shear: two Loop time lines, as LAMMPS prints one per run" [ "$(grep -c '^Loop time of' "$OUT_FILE")" = 2 ]
# The walls of examples/shear: 'block INF INF INF 0.9 INF INF' is open
# below y = 0.9 (INF as a lower bound is -infinity to LAMMPS; md had read it
# as +infinity, and the walls were empty). LAMMPS's in.shear prints 264,
# 264, 528 and 1384 atoms in groups lower, upper, boundary and mobile (Debian
# 12's lmp); with lmp installed it is run here and md's lines must be its.
mpi 1 $MD -i inputs/md/shear.ini -n 0
grep 'atoms in group' "$OUT_FILE" > "$MDT/groups.md"
want=$(printf '%s\n' "264 atoms in group lower" "264 atoms in group upper" "528 atoms in group boundary" "1384 atoms in group mobile")
if [ "$FB_LMP" = yes ]; then
  printf 'units metal\nboundary s s p\natom_style atomic\nlattice fcc 3.52\nregion box block 0 16.0 0 10.0 0 2.828427\ncreate_box 3 box\nlattice fcc 3.52 orient x 1 0 0 orient y 0 1 1 orient z 0 -1 1 origin 0.5 0 0\ncreate_atoms 1 box\nregion lower block INF INF INF 0.9 INF INF\nregion upper block INF INF 6.1 INF INF INF\ngroup lower region lower\ngroup upper region upper\ngroup boundary union lower upper\ngroup mobile subtract all boundary\n' > "$MDT/groups.in"
  want=$(lmp -in "$MDT/groups.in" -log none 2>&1 | grep 'atoms in group')
fi
check "md shear.ini: the walls hold LAMMPS's atoms ($(tr '\n' ',' < "$MDT/groups.md"))" \
  [ "$(cat "$MDT/groups.md")" = "$want" -a -n "$want" ]

# Validation fails when it should.
rm -f "$REC"
FABRICBENCH_TEST_HOOK=md_force_scale mpi 2 $MD -i inputs/md/lj_bench.ini -n 50 --json "$REC"
rc=$?
check "md: forces 10% off their energy fail the NVE drift check (exit $rc, FAIL)" \
  [ $rc -eq 1 -a "$(json "$REC" 'r["validation"]["status"] == "FAIL" and any(c["name"] == "nve_energy_drift" and not c["pass"] for c in r["validation"]["checks"])')" = true ]
rm -f "$REC"
FABRICBENCH_TEST_HOOK=md_lose_atom mpi 2 $MD -i inputs/md/shear.ini -n 20 --json "$REC"
rc=$?
check "md: a lost atom is a FAIL (exit $rc)" \
  [ $rc -eq 1 -a "$(json "$REC" 'any(c["name"] == "atoms_kept" and not c["pass"] for c in r["validation"]["checks"])')" = true ]
# Atoms that cross more than a box length (one rank) or a whole sub-box
# (eight ranks of 1.25) between two rebuilds: small.data at T = 5000 with
# the list rebuilt at step 50 only (40 steps keep all four). LAMMPS stops
# with "Lost atoms: original 4 current 0" at 1 and 8 ranks (T = 200, a
# rebuild at step 1000: the same flight, slower); md drops them too, and
# FAILs.
sed -e 's/^steps = 10$/steps = 50\ntemperature = 5000.0\nneigh_every = 50\nneigh_check = false/' \
  tests/md/small.ini > "$MDT/fast.ini"
for g in 1x1x1 8x1x1; do
  rm -f "$REC"
  mpi "${g%%x*}" $MD -i "$MDT/fast.ini" --grid "$g" --json "$REC"
  rc=$?
  check "md on $g: atoms that flew past a box length or a sub-box between rebuilds are lost, FAIL (exit $rc, $(json "$REC" '[c["value"] for c in r["validation"]["checks"] if c["name"] == "atoms_kept"]') of 4 at the end)" \
    [ $rc -eq 1 -a "$(json "$REC" 'any(c["name"] == "atoms_kept" and not c["pass"] and c["value"] < 4 for c in r["validation"]["checks"])')" = true ]
done
# Atoms 0.01 sigma apart: a force of 5e27, finite. LAMMPS runs the step
# and throws them out of the box ("ERROR: Lost atoms: original 4 current
# 2"); md runs it too and its end's check says the same (FAIL, exit 1).
# Before, md stopped any pair under 0.1 x cutoff at a rebuild, which also
# stopped hot LJ fluids with long cutoffs and small atoms that LAMMPS runs
# (lammps_cases.py's lj_close_pairs). Atoms at the same place give a force
# that is not a number: exit 3 naming both (bad_inputs.txt).
rm -f "$REC"
mpi 2 $MD -i tests/md/overlap.ini --json "$REC"
rc=$?
check "md, two atoms 0.01 sigma apart: run on as LAMMPS runs them, 2 of 4 atoms left, FAIL, exit $rc (1)" \
  [ $rc -eq 1 -a "$(json "$REC" 'r["validation"]["status"] == "FAIL" and [c["value"] for c in r["validation"]["checks"] if c["name"] == "atoms_kept"] == [2]')" = true ]

# Restarts: 2N steps equal N steps, restart, N more, bit for bit (same ranks).
for np in 1 3; do
  rm -f "$MDT"/r*.h5 "$MDT"/r*.jsonl
  mpi "$np" $MD -i inputs/md/shear.ini -n 120 --restart-every 60 --restart "$MDT/rfull.h5" --json "$MDT/rfull.jsonl"
  mpi "$np" $MD -i inputs/md/shear.ini -n 60 --restart-every 60 --restart "$MDT/rhalf.h5" --quiet
  mpi "$np" $MD -i inputs/md/shear.ini -n 120 --restart-every 60 --read-restart "$MDT/rhalf.h5" --restart "$MDT/rsecond.h5" --json "$MDT/rsecond.jsonl"
  rc=$?
  same=$(python3 - "$MDT/rfull.h5" "$MDT/rsecond.h5" <<'PY' 2>&1
import subprocess, sys
def dump(p, ds):
    out = subprocess.run(["h5dump", "-d", ds, p], capture_output=True, text=True).stdout
    return out.split("DATA {", 1)[-1]
same = all(dump(sys.argv[1], d) == dump(sys.argv[2], d) and len(dump(sys.argv[1], d)) > 1000
           for d in ("/particles/all/position/value", "/particles/all/velocity/value"))
print("true" if same else "false")
PY
)
  check "md restart at $np ranks: 60 steps, restart, 60 more = 120 steps, positions and velocities bit for bit (exit $rc)" \
    [ "$same" = true -a "$(json "$MDT/rsecond.jsonl" 'r["results"]["thermo"][-1]')" = "$(json "$MDT/rfull.jsonl" 'r["results"]["thermo"][-1]')" ]
done
check "md restart is H5MD: version, box, position, velocity, species (h5dump)" sh -c \
  "h5dump -H '$MDT/rfull.h5' > '$MDT/h.txt' && grep -q 'GROUP \"h5md\"' '$MDT/h.txt' && grep -q 'ATTRIBUTE \"version\"' '$MDT/h.txt' && grep -q 'DATASET \"edges\"' '$MDT/h.txt' && grep -q 'DATASET \"species\"' '$MDT/h.txt' && grep -q 'GROUP \"velocity\"' '$MDT/h.txt'"
expect_exit "md refuses a restart from another deck (types differ)" 2 20 2 $MD -i inputs/md/lj_bench.ini --read-restart "$MDT/rfull.h5"

rm -f "$MDT/traj.h5"
mpi 2 $MD -i inputs/md/shear.ini -n 200 --trajectory "$MDT/traj.h5" --quiet
check "md trajectory: H5MD positions, forces and per-atom energies at steps 0, 100, 200 of the shear run (h5dump)" sh -c \
  "h5dump -d /particles/all/position/step '$MDT/traj.h5' | tr -d ' \n' | grep -q '(0):0,100,200}' && h5dump -H -d /particles/all/position/value '$MDT/traj.h5' | grep -q 'SIMPLE { ( 3, 1912, 3 )' && h5dump -H -d /particles/all/force/value '$MDT/traj.h5' | grep -q 'SIMPLE { ( 3, 1912, 3 )' && h5dump -H -d /particles/all/potential_energy/value '$MDT/traj.h5' | grep -q 'SIMPLE { ( 3, 1912 )'"
check "md --no-output writes no trajectory" sh -c \
  "rm -f '$MDT/none.h5'; timeout 60 $MPIRUN -np 1 $MD -i inputs/md/shear.ini -n 10 --trajectory '$MDT/none.h5' --no-output --quiet >/dev/null 2>&1 </dev/null; [ ! -e '$MDT/none.h5' ]"

# read_data without velocities: created at the deck's temperature, no drift.
rm -f "$REC"
sed 's/^steps = 10$/steps = 10\ntemperature = 1.0/' tests/md/small.ini > "$MDT/warm.ini"
mpi 2 $MD -i "$MDT/warm.ini" --json "$REC"
check "md read_data without Velocities: created at T = 1, zero momentum" \
  [ "$(json "$REC" 'abs(r["results"]["thermo"][0][2] - 1.0) < 1e-12 and r["validation"]["status"] == "PASS"')" = true ]

# The same numbers as LAMMPS (Debian's lmp) on LAMMPS's own data files:
# several types with mixed and per-pair coefficients, non-unit masses,
# shrink-wrapped boundaries, a sheared slab with wall types, a file laid out
# as LAMMPS reads but never writes one, EAM crystals on five more of
# lammps-data's files (two- and three-element setfl, funcfl, tables that
# end at or before the cutoff), and LAMMPS's
# examples/shear itself; every thermo column at every thermo step, and the
# first step's per-atom positions, forces and energies (tests/md/lammps_cases.py).
# lmp runs under its own MPI's launcher (Debian's is an Open MPI program;
# under MPICH's launcher its "2 ranks" were two 1-rank jobs). md runs at 1,
# 2 and 3 ranks (and the 4 some cases ask); with MPICH on fewer cores than
# that, at 1 and 2 only: its ch4:ucx ranks poll without yielding, and three
# or four on 2 cores took 25-100 s a case instead of 1-2 (210 s of the four
# cases that ask for them). The MPICH pass still runs md's thin sub-boxes at
# 4 and 8 ranks on small.data, above.
if command -v lmp >/dev/null 2>&1; then
  lmp_mpirun=$MPIRUN
  case "$(ldd "$(command -v lmp)" 2>/dev/null)" in
    *libmpich*) command -v mpirun.mpich >/dev/null && lmp_mpirun=mpirun.mpich ;;
    *libmpi.so*) command -v mpirun.openmpi >/dev/null && lmp_mpirun=mpirun.openmpi ;;
  esac
  md_max=0
  polls_oversubscribed 4 && md_max=2
  # FB_LMP_CACHE (.ci/run sets it for its three passes): LAMMPS's side of
  # each case is run once and taken again (tests/md/lammps_cases.py).
  LMP_CACHE=${FB_LMP_CACHE:-} LMP_MPIRUN=$lmp_mpirun MD_LAMMPS_MAX_RANKS=$md_max \
    python3 tests/md/lammps_cases.py "$PWD/$MD" "$MPIRUN" "$MDT/lammps" >"$OUT_FILE" 2>&1
  grep -E '^(ok|not ok|skip) - |^# LAMMPS' "$OUT_FILE" | sed 's/^skip - \(.*\): /skip - \1: /'
  PASSED=$((PASSED + $(grep -c '^ok - ' "$OUT_FILE")))
  FAILED=$((FAILED + $(grep -c '^not ok - ' "$OUT_FILE")))
  SKIPPED=$((SKIPPED + $(grep -c '^skip - ' "$OUT_FILE")))
  grep -q -E '^(ok|not ok) - ' "$OUT_FILE" || not_ok "md = LAMMPS: the comparison did not run" "$(tail -n 15 "$OUT_FILE")"
else
  skip "md = LAMMPS" "lmp not installed (run/install-deps installs it)"
fi

# A check that fails only when the answer is wrong: plain truncation (shift
# no) on a contracting slab moves TotEng by 1.8% as pairs cross the cutoff;
# md removes those jumps (it counts them) and the run passes.
rm -f "$REC"
mpi 2 $MD -i tests/md/contracting_slab.ini --json "$REC"
check "md contracting slab, plain truncation: TotEng moves over 5e-3, the smooth energy under it, PASS" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["energy_max_dev"] / abs(r["results"]["energy_first"]) > 5e-3 and r["results"]["smooth_energy_max_dev"] < r["results"]["energy_max_dev"] / 10')" = true ]

# Shrink-wrapped dimensions: the ranks divide the box as it is now, as
# LAMMPS does, so the shear's flow (atoms carried to +x) stays evenly split
# (LAMMPS ends at 950 / 962 atoms; the box kept from the start gave 842 /
# 1070); and where the new division would move atoms more than one
# sub-box, the old one stays and no atom is lost.
rm -f "$REC"
mpi 2 $MD -i inputs/md/shear.ini --json "$REC"
check "md shear at 2 ranks: the atoms stay evenly split as the slab drifts ($(json "$REC" '(r["results"]["atoms_per_rank_min"], r["results"]["atoms_per_rank_max"])') at the end; within 3%)" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["atoms_per_rank_max"] <= 1.03 * r["results"]["atoms_per_rank_min"]')" = true ]
# A data file's declared box far wider than its atoms: LAMMPS's read_data
# shrink-wraps at once and its ranks divide the atoms' box; so does md. With
# the declared box's division (the hook), the guard keeps it: all kept.
rm -f "$REC"
mpi 4 $MD -i tests/md/wide_box.ini --grid 4x1x1 --json "$REC"
check "md at 4 ranks, atoms in the first 30 of a 100-wide shrink-wrapped box: divided evenly from the start ($(json "$REC" '(r["results"]["atoms_per_rank_min"], r["results"]["atoms_per_rank_max"])' 2>&1); within 25%), PASS" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and 0 < r["results"]["atoms_per_rank_max"] <= 1.25 * r["results"]["atoms_per_rank_min"]')" = true ]
rm -f "$REC"
FABRICBENCH_TEST_HOOK=md_declared_split mpi 4 $MD -i tests/md/wide_box.ini --grid 4x1x1 --json "$REC"
check "md at 4 ranks, the same atoms over the declared box's division: every atom kept, PASS ($(json "$REC" '(r["results"]["atoms_per_rank_min"], r["results"]["atoms_per_rank_max"])' 2>&1))" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["atoms_per_rank_min"] == 0')" = true ]

# Per-atom output, as LAMMPS's dump custom: ids in order, every frame.
rm -f "$MDT/d.dump"
printf '[output]\ndump_every = 5\ndump_columns = id type x y z fx fy fz c_pe\n' | cat tests/md/small.ini - > "$MDT/dump.ini"
mpi 2 $MD -i "$MDT/dump.ini" -n 10 --dump "$MDT/d.dump" --quiet
check "md --dump: LAMMPS dump custom frames at steps 0, 5, 10, atoms in id order, per-atom energies summing to PotEng" \
  python3 -c "
lines = open('$MDT/d.dump').read().splitlines()
steps = [int(lines[i + 1]) for i, l in enumerate(lines) if l == 'ITEM: TIMESTEP']
i = lines.index('ITEM: ATOMS id type x y z fx fy fz c_pe')
rows = [l.split() for l in lines[i + 1:i + 5]]
ids = [int(r[0]) for r in rows]
pe = sum(float(r[8]) for r in rows)
# six pairs within the cutoff at 1.1 and 1.56 sigma (tests/md/small.data): 3 at 1.1, 3 at 1.556
e = lambda r: 4 * (r ** -12 - r ** -6)
want = 3 * e(1.1) + 3 * e((2 * 1.1 ** 2) ** 0.5)
raise SystemExit(0 if steps == [0, 5, 10] and ids == [1, 2, 3, 4] and 'ITEM: BOX BOUNDS pp pp pp' in lines and abs(pe - want) < 1e-12 else 1)"

# Data files as LAMMPS reads them (read_data): atoms past a periodic box
# wrapped in, ids with gaps kept (the dump names them), a zero-tilt line, a
# shrink-wrapped dimension's margin of 1e-4 of the box; refused as LAMMPS
# refuses them, with the line named. Made from tests/md/small.data.
layout() { # layout NAME ATOM-LINES [HEADER-LINE [BOUNDARY]]
  { sed -n '1,8p' tests/md/small.data; [ -n "${3:-}" ] && echo "$3"; printf '\nMasses\n\n1 1.0\n\nAtoms # atomic\n\n'; printf "$2"; } >"$MDT/$1.data"
  sed -e "s#tests/md/small.data#$MDT/$1.data#" -e "s/^periodic = 1 1 1$/boundary = ${4:-p p p}/" tests/md/small.ini >"$MDT/$1.ini"
}
layout ref '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n'
layout wrapped '1 1 11.0 1.0 1.0\n2 1 2.1 -19.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 32.5\n' '0.0 0.0 0.0 xy xz yz'
layout gaps '30 1 1.0 2.1 1.0\n7 1 2.1 1.0 1.0\n3 1 1.0 1.0 1.0\n12 1 1.0 1.0 2.5\n'
rm -f "$MDT/ref.jsonl" "$MDT/wrapped.jsonl" "$MDT/gaps.jsonl" "$MDT/gaps.dump"
mpi 2 $MD -i "$MDT/ref.ini" --json "$MDT/ref.jsonl"
mpi 2 $MD -i "$MDT/wrapped.ini" --json "$MDT/wrapped.jsonl"; rc=$?
check "md read_data: atoms 1 to 3 box lengths past a periodic box (x 11, y -19, z 32.5) and a 0 0 0 tilt line read as the box itself (exit $rc; thermo $(thermo_same "$MDT/ref.jsonl" "$MDT/wrapped.jsonl" 0 | cut -d' ' -f2) from the wrapped file)" \
  [ "$(thermo_same "$MDT/ref.jsonl" "$MDT/wrapped.jsonl" 0 | cut -d' ' -f1)" = true ]
layout extra '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n' '2 extra special per atom'
rm -f "$MDT/extra.jsonl"
mpi 2 $MD -i "$MDT/extra.ini" --json "$MDT/extra.jsonl"; rc=$?
check "md read_data: an 'N extra special per atom' header line (LAMMPS reads it for any style) changes nothing (exit $rc)" \
  [ "$(thermo_same "$MDT/ref.jsonl" "$MDT/extra.jsonl" 0 2>/dev/null | cut -d' ' -f1)" = true ]
printf '[output]\ndump_every = 10\ndump_columns = id x y z\n' >>"$MDT/gaps.ini"
mpi 2 $MD -i "$MDT/gaps.ini" --json "$MDT/gaps.jsonl" --dump "$MDT/gaps.dump"; rc=$?
same=$(thermo_same "$MDT/ref.jsonl" "$MDT/gaps.jsonl" 0 2>/dev/null | cut -d' ' -f1)
check "md read_data: ids 30 7 3 12 (gaps, any order): the same thermo, the dump lists 3 7 12 30 with their atoms (exit $rc, same thermo: ${same:-no record})" \
  sh -c "[ '$same' = true ] && python3 -c \"
lines = open('$MDT/gaps.dump').read().splitlines()
i = lines.index('ITEM: ATOMS id x y z')
rows = [l.split() for l in lines[i + 1:i + 5]]
raise SystemExit(0 if [r[0] for r in rows] == ['3', '7', '12', '30'] and rows[0][1:] == ['1', '1', '1'] and rows[3][1:3] == ['1', '2.1000000000000001'] else 1)\""
# a restart keeps those ids (H5MD's particles/all/id) and the masses (the
# data file's Masses: the deck gives none)
# restart_halves NAME: NAME.ini for 20 steps (NAME20.dump), and for 10
# (the restart NAME.h5) then 10 more from it (NAME10+10.dump); sets rc, and
# halves_same to yes when the two dumps end with the same frame
restart_halves() {
  rm -f "$MDT/$1.h5" "$MDT/${1}20.dump" "$MDT/${1}10+10.dump"
  mpi 2 $MD -i "$MDT/$1.ini" -n 20 --dump "$MDT/${1}20.dump" --quiet
  mpi 2 $MD -i "$MDT/$1.ini" --restart "$MDT/$1.h5" --quiet
  mpi 2 $MD -i "$MDT/$1.ini" -n 20 --read-restart "$MDT/$1.h5" --dump "$MDT/${1}10+10.dump" --quiet
  rc=$?
  halves_same=no
  [ -s "$MDT/${1}20.dump" ] && [ "$(sed -n '/^ITEM: ATOMS/,$p' "$MDT/${1}20.dump" | tail -n 5)" = \
    "$(sed -n '/^ITEM: ATOMS/,$p' "$MDT/${1}10+10.dump" | tail -n 5)" ] && halves_same=yes
}
restart_halves gaps
check "md restart of a data file's run: particles/all/id 3 7 12 30, its masses kept, and 10 + 10 steps dump what 20 do, ids and all (exit $rc)" \
  sh -c "h5dump -d /particles/all/id '$MDT/gaps.h5' | tr -d ' \n' | grep -q '(0):3,7,12,30}' && h5dump -d /parameters/fabricbench/mass '$MDT/gaps.h5' | tr -d ' \n' | grep -q '(0):1}' && [ $halves_same = yes ]"
# image flags: the file's (ix iy iz) plus the box lengths read_data wraps
# each atom by, as LAMMPS's; kept by a restart (H5MD's particles/all/image)
layout images '1 1 11.0 1.0 1.0 0 0 0\n2 1 2.1 -19.0 1.0 1 0 -1\n3 1 1.0 2.1 1.0 0 0 0\n4 1 1.0 1.0 32.5 0 5 0\n'
printf '[output]\ndump_every = 10\ndump_columns = id ix iy iz xu yu zu\n' >>"$MDT/images.ini"
restart_halves images
check "md read_data: image flags are the file's plus the wrapping (1 0 0, 1 -2 -1, 0 0 0, 0 5 3) and xu yu zu the unwrapped file positions (dump)" \
  sh -c "python3 -c \"
lines = open('$MDT/images20.dump').read().splitlines()
i = lines.index('ITEM: ATOMS id ix iy iz xu yu zu')
rows = [l.split() for l in lines[i + 1:i + 5]]
want = [['1', '1', '0', '0'], ['2', '1', '-2', '-1'], ['3', '0', '0', '0'], ['4', '0', '5', '3']]
xu = [[float(v) for v in r[4:]] for r in rows]
raise SystemExit(0 if [r[:4] for r in rows] == want and abs(xu[0][0] - 11.0) < 1e-12 and abs(xu[1][1] + 19.0) < 1e-12 and abs(xu[1][2] + 9.0) < 1e-12 and abs(xu[3][1] - 51.0) < 1e-12 and abs(xu[3][2] - 32.5) < 1e-12 else 1)\""
check "md restart keeps the image flags: particles/all/image, and 10 + 10 steps dump the flags and unwrapped positions 20 steps do (exit $rc)" \
  sh -c "h5dump -d /particles/all/image/value '$MDT/images.h5' | tr -d ' \n' | grep -q '(0,0):1,0,0,(1,0):1,-2,-1,(2,0):0,0,0,(3,0):0,5,3' && [ $halves_same = yes ]"
# a tilted (triclinic) box: atoms placed as LAMMPS's remap places them (in
# lamda coordinates, image flags counting edge vectors), the dump's box
# LAMMPS's triclinic one, the restart's H5MD edges a matrix, and a restart
# of it bit for bit (lammps_cases.py's triclinic cases: LAMMPS's numbers)
layout tilted '1 1 11.0 1.0 1.0 0 0 0\n2 1 2.1 -19.0 1.0 1 0 -1\n3 1 1.0 2.1 9.5 0 0 0\n4 1 -4.0 1.0 32.5 0 5 0\n' '2.0 -3.0 4.0 xy xz yz'
printf '[output]\ndump_every = 10\ndump_columns = id x y z ix iy iz xu yu zu\n' >>"$MDT/tilted.ini"
sed -i 's/^\[run\]$/[run]\nthermo_style = custom step temp pe lx ly lz xy xz yz/' "$MDT/tilted.ini"
restart_halves tilted
rm -f "$MDT/tilted.jsonl"
mpi 2 $MD -i "$MDT/tilted.ini" --json "$MDT/tilted.jsonl" --quiet
check "md's record of a tilted box: params tilt '2 -3 4', thermo xy xz yz 2 -3 4 and lx ly lz 10" \
  [ "$(json "$MDT/tilted.jsonl" 'r["params"]["tilt"] == "2 -3 4" and r["validation"]["status"] == "PASS" and all(row[4:] == [10, 10, 10, 2, -3, 4] for row in r["results"]["thermo"])' 2>/dev/null)" = true ]
check "md read_data, a tilted box (xy 2, xz -3, yz 4): atoms wrapped into it along its edge vectors, xu yu zu the file's unwrapped positions, a LAMMPS triclinic dump box (exit $rc)" \
  sh -c "python3 -c \"
lines = open('$MDT/tilted20.dump').read().splitlines()
i = lines.index('ITEM: ATOMS id x y z ix iy iz xu yu zu')
edges = [(10.0, 0.0, 0.0), (2.0, 10.0, 0.0), (-3.0, 4.0, 10.0)]
unmap = lambda p, n: [p[c] + sum(n[k] * edges[k][c] for k in range(3)) for c in range(3)]
given = [((11.0, 1.0, 1.0), (0, 0, 0)), ((2.1, -19.0, 1.0), (1, 0, -1)), ((1.0, 2.1, 9.5), (0, 0, 0)), ((-4.0, 1.0, 32.5), (0, 5, 0))]
ok = lines[i - 4:i] == ['ITEM: BOX BOUNDS xy xz yz pp pp pp', '-3 12 2', '0 14 -3', '0 10 4']
for row, (p, n) in zip(lines[i + 1:i + 5], given):
    r = [float(v) for v in row.split()]
    img = [int(v) for v in r[4:7]]
    lz = r[3] / 10.0; ly = (r[2] - 4.0 * lz) / 10.0; lx = (r[1] - 2.0 * ly + 3.0 * lz) / 10.0
    ok &= all(-1e-12 <= l < 1.0 for l in (lx, ly, lz)) and all(abs(a - b) < 1e-12 for a, b in zip(unmap(r[1:4], img), unmap(p, n)))
    ok &= all(abs(a - b) < 1e-12 for a, b in zip(r[7:10], unmap(p, n)))
raise SystemExit(0 if ok and lines[i + 4].split()[4:7] != ['0', '5', '0'] else 1)\""
check "md restart of a tilted box: H5MD edges the 3x3 matrix of edge vectors, the tilt kept, and 10 + 10 steps dump what 20 do" \
  sh -c "h5dump -d /particles/all/box/edges '$MDT/tilted.h5' | tr -d ' \n' | grep -q '(0,0):10,0,0,(1,0):2,10,0,(2,0):-3,4,10' && h5dump -d /parameters/fabricbench/tilt '$MDT/tilted.h5' | tr -d ' \n' | grep -q '(0):2,-3,4}' && [ $halves_same = yes ]"
# ... with a shrink-wrapped side (z, whose edge is tilted): LAMMPS wraps it
# in lamda coordinates and keeps the tilts; the dump's bounds are the
# wrapped box's, a restart keeps the box it had (its atoms' lamda
# coordinates are in it) and continues bit for bit. A tilt of x past half of
# x's length is LAMMPS's too, where x is not periodic.
layout tilted_s '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n' '2.0 -3.0 4.0 xy xz yz' 'p p s'
printf '[output]\ndump_every = 10\ndump_columns = id x y z ix iy iz\n' >>"$MDT/tilted_s.ini"
restart_halves tilted_s
check "md: a tilted box with a shrink-wrapped z (xz -3, yz 4): the dump's triclinic z bounds wrapped round the atoms (z 1 to 2.5; declared 0 to 10), and 10 + 10 steps from a restart (its box now kept) dump what 20 do (exit $rc)" \
  sh -c "[ $halves_same = yes ] && h5dump -d /parameters/fabricbench/simlo '$MDT/tilted_s.h5' >/dev/null && python3 -c \"
lines = open('$MDT/tilted_s20.dump').read().splitlines()
i = len(lines) - 1 - lines[::-1].index('ITEM: BOX BOUNDS xy xz yz pp pp ss')
zlo, zhi, yz = (float(v) for v in lines[i + 3].split())
rows = [l.split() for l in lines[i + 5:i + 9]]
z = [float(r[3]) for r in rows]
raise SystemExit(0 if 0.99 < zlo < min(z) and max(z) < zhi < 2.51 and yz == 4 and all(r[6] == '0' for r in rows) else 1)\""
layout tilt_large_open '1 1 6.0 1.0 1.0\n2 1 7.1 1.0 1.0\n3 1 6.0 2.1 1.0\n4 1 6.0 1.0 2.1\n' '5.5 0.0 0.0 xy xz yz' 'f p p'
rm -f "$MDT/tilt_large_open.jsonl"
mpi 2 $MD -i "$MDT/tilt_large_open.ini" --json "$MDT/tilt_large_open.jsonl"; rc=$?
check "md read_data: xy 5.5 of x's 10 in a box whose x is fixed (LAMMPS checks the skew of periodic dimensions only) runs (exit $rc)" \
  [ "$(json "$MDT/tilt_large_open.jsonl" 'r["validation"]["status"] == "PASS" and r["params"]["tilt"] == "5.5 0 0"' 2>/dev/null)" = true ]
# an atom a hair below a periodic box's lower face at a rebuild, on the rank
# at that face with another rank along the dimension: x + the box length
# rounds to the upper face, where LAMMPS's pbc puts it at the lower one.
# md sent it to the neighbour, which dropped it (Lost atoms; found with a
# tilted box, whose crystal faces sit at lamda -1e-17)
layout hair '1 1 0.0 5.0 5.0\n2 1 2.5 5.0 5.0\n3 1 7.0 2.0 5.0\n4 1 7.0 8.0 5.0\n'
printf '\nVelocities\n\n1 -1e-14 0 0\n2 0 0 0\n3 0 0 0\n4 0 0 0\n' >>"$MDT/hair.data"
printf 'neigh_every = 1\nneigh_check = false\n[output]\ndump_every = 10\ndump_columns = id x ix\n' >>"$MDT/hair.ini"
rm -f "$MDT/hair.jsonl" "$MDT/hair.dump"
mpi 2 $MD -i "$MDT/hair.ini" --grid 2x1x1 --json "$MDT/hair.jsonl" --dump "$MDT/hair.dump"; rc=$?
kept=$(json "$MDT/hair.jsonl" 'r["validation"]["status"] == "PASS" and r["results"]["atoms"] == 4' 2>/dev/null)
check "md: an atom moving -5e-17 a step from x 0 over 2 ranks along x stays, at x 0 with image 0, as in LAMMPS (exit $rc)" \
  sh -c "[ '$kept' = true ] && tail -n 4 '$MDT/hair.dump' | grep -qx '1 0 0'"
# the thermo row at its widest: every compute slot taken (thermo_temp and 7
# more) with the pressure tensor, fmax and the other sums (the sanitizer
# build sees a row that outgrows its buffer)
layout wide '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n'
{ printf 'thermo_style = custom step temp pe press pxx pyy pzz pxy pxz pyz density fmax fnorm enthalpy c_t1 c_t7\n[computes]\n'
  for c in 1 2 3 4 5 6 7; do printf 't%s = temp all\n' "$c"; done; } >>"$MDT/wide.ini"
rm -f "$MDT/wide.jsonl"
mpi 2 $MD -i "$MDT/wide.ini" --json "$MDT/wide.jsonl"; rc=$?
check "md thermo with all 8 temperature computes and the pressure tensor: PASS, pxx + pyy + pzz = 3 press, c_t7 = temp (exit $rc)" \
  [ "$(json "$MDT/wide.jsonl" 'r["validation"]["status"] == "PASS" and all(abs(row[5] + row[6] + row[7] - 3 * row[4]) <= 1e-12 * max(1.0, abs(row[4])) and row[-1] == row[2] for row in r["results"]["thermo"])' 2>/dev/null)" = true ]
# LAMMPS takes a line of atoms' angular velocity from its principal axes;
# md refuses the singular inertia tensor instead (exit 2, one line)
layout line '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 3.2 1.0 1.0\n4 1 4.3 1.0 1.0\n'
printf 'velocity = zero all angular\n' >>"$MDT/line.ini"
expect_exit "md velocity zero angular on four atoms in a line: the singular inertia tensor refused" 2 20 2 $MD -i "$MDT/line.ini"
check "md's singular-inertia error names the inertia tensor" grep -q "inertia tensor is singular" "$OUT_FILE"
layout s_margin '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 10.0009\n' '' 'p p s'
rm -f "$MDT/s_margin.jsonl"
mpi 2 $MD -i "$MDT/s_margin.ini" --json "$MDT/s_margin.jsonl"; rc=$?
check "md read_data: an atom 9e-4 past a shrink-wrapped zhi (inside LAMMPS's margin of 1e-4 x 10) is read (exit $rc)" \
  [ "$(json "$MDT/s_margin.jsonl" 'r["validation"]["status"] == "PASS" and r["results"]["atoms"] == 4' 2>/dev/null)" = true ]
layout s_out '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 10.0011\n' '' 'p p s'
layout f_hi '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 10.0\n' '' 'p p f'
layout far '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 1e6\n'
layout tilt_large '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.1\n' '5.5 0.0 0.0 xy xz yz'
# inside xlo..xhi, outside the tilted box (its lamda x is -0.26)
layout tilt_outside '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 9.0 1.0\n' '4.0 0.0 0.0 xy xz yz' 's p p'
layout dup '9 1 1.0 1.0 1.0\n5 1 2.1 1.0 1.0\n12 1 1.0 2.1 1.0\n5 1 1.0 1.0 2.1\n'
layout zero '0 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.1\n'
layout none ''
sed -i 's/^4 atoms$/0 atoms/' "$MDT/none.data"
layout blank '1 1 1.0 1.0 1.0\n\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n'
layout mixed '1 1 1.0 1.0 1.0 0 0 0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n'
layout hex '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 0x1p1\n'
layout types33 '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n'
sed -i 's/^1 atom types$/33 atom types/' "$MDT/types33.data"
layout ellipsoids '1 1 1.0 1.0 1.0\n2 1 2.1 1.0 1.0\n3 1 1.0 2.1 1.0\n4 1 1.0 1.0 2.5\n' '0 ellipsoids'
sed '15d' "$MDT/ref.data" >"$MDT/unskipped.data" # the atoms right below "Atoms"
sed "s#$MDT/ref.data#$MDT/unskipped.data#" "$MDT/ref.ini" >"$MDT/unskipped.ini"
for c in "s_out:$MDT/s_out.data:19: atom 4 is outside the box (a non-periodic dimension)" \
         "f_hi:$MDT/f_hi.data:19: atom 4 is outside the box (a non-periodic dimension)" \
         "far:$MDT/far.data:19: atom 4 is more than 10000 box lengths outside the box" \
         "tilt_large:$MDT/tilt_large.data:9: the box's tilt is too large: xy and xz at most half of xhi - xlo" \
         "tilt_outside:$MDT/tilt_outside.data:20: atom 4 is outside the box (a non-periodic dimension)" \
         "dup:$MDT/dup.data:19: atom id 5 appears twice" \
         "zero:$MDT/zero.data:16: atom id 0 is not a positive integer" \
         "none:$MDT/none.data:10: the header declares 0 atoms" \
         "blank:$MDT/blank.data:17: a blank or comment line inside the Atoms section" \
         "mixed:$MDT/mixed.data:17: this Atoms line has 5 columns and the first 8" \
         "hex:$MDT/hex.data:19: expected 'id type x y z [ix iy iz]'" \
         "ellipsoids:$MDT/ellipsoids.data:9: 'ellipsoids' in the header: LAMMPS allows it only with" \
         "unskipped:$MDT/unskipped.data:18: truncated: the Atoms section ends after 3 of 4 atoms (line 15, below the section name, is skipped as LAMMPS skips it"; do
  layout_case=${c%%:*} want=${c#*:}
  expect_exit "md read_data refuses $layout_case as LAMMPS does" 2 20 2 $MD -i "$MDT/$layout_case.ini"
  check "md read_data $layout_case: the error says '${want#"$MDT/"}'" grep -qF "md: error: $want" "$OUT_FILE"
done
# a limit of md's where LAMMPS has none: 32 atom types
expect_exit "md read_data refuses 33 atom types (md's limit, named)" 2 20 2 $MD -i "$MDT/types33.ini"
check "md read_data types33: the error says 'types33.data:4: 'atom types' must be 1 to 32 (md's limit)'" \
  grep -qF "md: error: $MDT/types33.data:4: 'atom types' must be 1 to 32 (md's limit)" "$OUT_FILE"

# The syntax read_data takes (Debian's lmp reads both files below to the
# same numbers): header lines matched by their first words, what follows
# ignored; words after a mass; "N extra ... per atom" anywhere in a line;
# lines of any length;
# another style named after "Atoms #" read as atomic, and the line below a
# section name skipped whatever it holds, both with a warning (LAMMPS
# 20220106 gives none).
long=$(printf '%05000d' 0) # a title and a comment of 5000 characters (LAMMPS cuts lines at 256)
sed -e 's/^4 atoms$/4 atoms in this cell/' -e 's/^1 atom types$/1 atom types (argon)/' \
  -e 's/ xlo xhi$/ xlo xhi sigma/' -e 's/^1 1.0$/1 1.0 Ar/' \
  -e '/ zlo zhi$/a 0 (none) extra bond per atom' -e "1s/\$/ $long/" \
  -e "/^2 1 2.1 1.0 1.0\$/s/\$/ # $long/" "$MDT/ref.data" >"$MDT/words.data"
sed -e 's/^Atoms # atomic$/Atoms # charge/' -e '15s/^$/id type x y z/' "$MDT/ref.data" >"$MDT/warned.data"
for layout_case in words warned; do
  sed "s#$MDT/ref.data#$MDT/$layout_case.data#" "$MDT/ref.ini" >"$MDT/$layout_case.ini"
  rm -f "$MDT/$layout_case.jsonl"
  mpi 2 $MD -i "$MDT/$layout_case.ini" --json "$MDT/$layout_case.jsonl"; rc=$?
  cp "$OUT_FILE" "$MDT/$layout_case.out"
  same=$(thermo_same "$MDT/ref.jsonl" "$MDT/$layout_case.jsonl" 0 2>/dev/null | cut -d' ' -f1)
  check "md read_data $layout_case: the thermo of the plain file (exit $rc, same: ${same:-no record})" \
    [ "$rc" = 0 ] && [ "$same" = true ]
done
check "md read_data words: no warning" sh -c "! grep -q warning '$MDT/words.out'"
# gzipped (a name ending in .gz), as read_data reads it through gzip -d
gzip -c "$MDT/words.data" >"$MDT/words.data.gz"
head -c 60 "$MDT/words.data.gz" >"$MDT/cut.data.gz"
cp "$MDT/ref.data" "$MDT/plain.data.gz"
for gz in words cut plain; do sed "s#$MDT/ref.data#$MDT/$gz.data.gz#" "$MDT/ref.ini" >"$MDT/${gz}gz.ini"; done
rm -f "$MDT/wordsgz.jsonl"
mpi 2 $MD -i "$MDT/wordsgz.ini" --json "$MDT/wordsgz.jsonl"; rc=$?
same=$(thermo_same "$MDT/ref.jsonl" "$MDT/wordsgz.jsonl" 0 2>/dev/null | cut -d' ' -f1)
check "md read_data words.data.gz: the thermo of the plain file (exit $rc, same: ${same:-no record})" \
  [ "$rc" = 0 ] && [ "$same" = true ]
expect_exit "md read_data: a .gz file cut short refused" 2 20 2 $MD -i "$MDT/cutgz.ini"
check "md read_data cut.data.gz: the error says the gzip data is damaged or cut short" \
  grep -qF "md: error: the deck's read_data: $MDT/cut.data.gz: the gzip data is damaged or cut short" "$OUT_FILE"
expect_exit "md read_data: a plain file named .gz refused, as gzip -d refuses it" 2 20 2 $MD -i "$MDT/plaingz.ini"
check "md read_data plain.data.gz: the error says not gzip data" \
  grep -qF "md: error: the deck's read_data: $MDT/plain.data.gz: not gzip data (its name ends in .gz)" "$OUT_FILE"
check "md read_data warned: one warning (rank 0), with the first line and the count" \
  sh -c "[ \$(grep -c 'warning' '$MDT/warned.out') = 1 ] && grep -qF 'md: warning: $MDT/warned.data:14: Atoms # charge: read as atom_style atomic' '$MDT/warned.out' && grep -qF '(2 such lines in the file)' '$MDT/warned.out'"

# An EAM file whose cutoff lies past its r table: LAMMPS reads it (the
# pairs past the table take its last knot's values; lammps_cases.py's
# eam_alloy_cut_past_table); more than 1% past, md calls it malformed.
sed '5s/ 4.7999999999999998e+00$/ 4.9/' inputs/md/Ni_zhou04.eam.alloy >"$MDT/far.eam.alloy"
sed "s#^file = .*#file = $MDT/far.eam.alloy#" inputs/md/shear.ini >"$MDT/far_eam.ini"
expect_exit "md: an EAM cutoff 2% past the r table is refused" 2 20 2 $MD -i "$MDT/far_eam.ini"
check "md: the far cutoff's error names the line and the table's end" \
  grep -qF "far.eam.alloy:5: malformed EAM file: cutoff 4.9 lies more than 1% past the r table's end (Nr - 1) dr = 4.8" "$OUT_FILE"

# EAM files as LAMMPS's PotentialFileReader reads them (lammps_cases.py's
# eam_held_out_* compare the numbers): what it refuses, md refuses, naming
# the line; a file in real units is converted, with one warning.
eam_variant() { # NAME SED-EDIT
  sed "$2" inputs/md/Ni_zhou04.eam.alloy >"$MDT/$1.eam.alloy"
  sed -e "s#^file = .*#file = $MDT/$1.eam.alloy#" inputs/md/shear.ini >"$MDT/$1.ini"
}
eam_variant units_lj '1s/$/ UNITS: lj/'
expect_exit "md: an EAM file in lj units under metal is refused, as LAMMPS refuses it" 2 20 2 $MD -i "$MDT/units_lj.ini"
check "md: the units error names the file's units and md's" \
  grep -qF "md: error: $MDT/units_lj.eam.alloy: the file says UNITS: lj but md runs in metal units" "$OUT_FILE"
eam_variant hex '7s/^[^ ]* /0x1p-3 /'
expect_exit "md: a hexadecimal number in an EAM table is refused (LAMMPS's is_double)" 2 20 2 $MD -i "$MDT/hex.ini"
check "md: the EAM number error names the line and the word" \
  grep -qF "hex.eam.alloy:7: malformed EAM file: '0x1p-3' in F(rho) of Ni is not a number" "$OUT_FILE"
eam_variant names '4s/$/ Cu/'
expect_exit "md: more element names than elements is refused, as LAMMPS refuses it" 2 20 2 $MD -i "$MDT/names.ini"
check "md: the element-line error counts the names" \
  grep -qF "names.eam.alloy:4: malformed EAM file: 2 element names for 1 elements" "$OUT_FILE"
eam_variant real '1s/$/ UNITS: real/'
mpi 2 $MD -i "$MDT/real.ini" -n 0
check "md: an EAM file in real units: one warning that it is converted, as LAMMPS converts it" \
  sh -c "[ \$(grep -c 'warning' '$OUT_FILE') = 1 ] && grep -qF 'md: warning: $MDT/real.eam.alloy is in real units: its energies are converted to metal units' '$OUT_FILE'"

# eam/fs: a one-element setfl file is a Finnis-Sinclair file too (its one
# element holds one density function), so pair_style eam/fs reads
# Ni_zhou04.eam.alloy through the Finnis-Sinclair reader and tables to
# eam/alloy's numbers (lammps_cases.py's eam_fs_* compare with LAMMPS)
sed 's#^pair_style = eam/alloy$#pair_style = eam/fs#' inputs/md/shear.ini >"$MDT/fs_one.ini"
rm -f "$MDT/fs_one.jsonl" "$MDT/alloy_one.jsonl"
mpi 2 $MD -i inputs/md/shear.ini -n 100 --no-output --json "$MDT/alloy_one.jsonl" --quiet
mpi 2 $MD -i "$MDT/fs_one.ini" -n 100 --no-output --json "$MDT/fs_one.jsonl" --quiet; rc=$?
same=$(thermo_same "$MDT/alloy_one.jsonl" "$MDT/fs_one.jsonl" 0 2>/dev/null)
style=$(json "$MDT/fs_one.jsonl" 'r["params"]["pair_style"]' 2>/dev/null)
check "md pair_style eam/fs on a one-element setfl file: eam/alloy's thermo bit for bit (exit $rc, ${same:-no record}, record's pair_style ${style:-none})" \
  [ "${same%% *}" = true -a "$style" = eam/fs ]

# Options and keys that shape the system.
rm -f "$REC"
mpi 2 $MD -i inputs/md/lj_bench.ini --replicate 2x1x1 --grid 1x1x2 -n 5 --json "$REC"
check "md --replicate 2x1x1 --grid 1x1x2: 64000 atoms on a 1x1x2 grid, PASS" \
  [ "$(json "$REC" 'r["results"]["atoms"] == 64000 and r["grid"] == "1x1x2" and r["validation"]["status"] == "PASS"')" = true ]
sed 's/^cutoff = 2.5$/cutoff = 2.5\nshift = true/' tests/md/small.ini > "$MDT/shift.ini"
rm -f "$MDT/plain.jsonl" "$MDT/shift.jsonl"
mpi 1 $MD -i tests/md/small.ini -n 0 --json "$MDT/plain.jsonl"
mpi 1 $MD -i "$MDT/shift.ini" -n 0 --json "$MDT/shift.jsonl"
# all six pairs lie within the cutoff (1.1 and 1.56 sigma); each is shifted by
# -4 ((1/2.5)^12 - (1/2.5)^6) = +0.0163169
check "md shift = true: E_pair per atom rises by 6 pairs x the cutoff energy / 4 atoms" \
  python3 -c "
import json
a = json.loads(open('$MDT/plain.jsonl').read().splitlines()[-1])['results']['thermo'][0][3]
b = json.loads(open('$MDT/shift.jsonl').read().splitlines()[-1])['results']['thermo'][0][3]
off = -4.0 * ((1 / 2.5) ** 12 - (1 / 2.5) ** 6)
raise SystemExit(0 if abs((b - a) - 6 * off / 4) < 1e-12 else 1)"
