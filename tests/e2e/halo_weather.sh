# tests/e2e/halo_weather.sh: halo_weather/weather through mpirun (sourced by
# tests/run-tests): the same state on any process grid, thread count and halo
# mode; conservation; NetCDF history and restart; advection convergence.
WX=halo_weather/weather
REC="$TMPDIR_T/weather.jsonl"
WT="$TMPDIR_T/weather"
mkdir -p "$WT"

# tiny: PASS on 1-4 and 6 ranks with one checksum; then threads, per-field halos, overlap.
reference=""
wx_case() { # NAME NP [ENV=...] ARGS...
  name=$1 np=$2; shift 2
  rm -f "$REC"
  mpi "$np" $WX -i inputs/weather/tiny.ini --no-output --json "$REC" "$@"
  rc=$?
  sum=$(json "$REC" 'repr(r["results"]["checksum"])' 2>/dev/null)
  [ -z "$reference" ] && reference=$sum
  if [ $rc -eq 0 ] && [ "$(json "$REC" 'r["validation"]["status"]')" = PASS ] && [ "$sum" = "$reference" ]; then
    ok "weather tiny $name: PASS, checksum $sum"
  else
    not_ok "weather tiny $name: exit $rc, checksum $sum vs $reference" "$(cat "$OUT_FILE")"
  fi
}
wx_case "1 rank" 1
wx_case "2 ranks" 2
wx_case "3 ranks" 3
wx_case "4 ranks (2x2)" 4
cp "$REC" "$WT/aggregated4.jsonl"
wx_case "6 ranks (2x3)" 6
wx_case "3 ranks as 3x1" 3 --grid 3x1x1
check "weather record: FOM, simulation speed, phases dynamics/acoustic/halo, grid 3x1x1" \
  [ "$(json "$REC" 'r["fom"]["unit"] == "points*steps/s" and r["results"]["simulation_speed"] > 0 and {"dynamics","acoustic","halo","reductions","io"} <= set(r["phases"]) and r["grid"] == "3x1x1"')" = true ]
export OMP_NUM_THREADS=2
wx_case "2 ranks x 2 threads" 2
export OMP_NUM_THREADS=1
sed 's/^\[output\]/[parallel]\nhalo_mode = per_field\noverlap = true\n\n[output]/' inputs/weather/tiny.ini > "$WT/modes.ini"
rm -f "$REC"
mpi 4 $WX -i "$WT/modes.ini" --no-output --json "$REC"
check "weather tiny, one message per field and overlapped acoustic exchanges, 4 ranks: same checksum" \
  [ "$(json "$REC" 'repr(r["results"]["checksum"])')" = "$reference" ]
per_field=$(json "$REC" 'r["comm"]["halo"]["messages"]')
aggregated=$(json "$WT/aggregated4.jsonl" 'r["comm"]["halo"]["messages"]')
check "weather tiny: per-field halos send more messages than aggregated ones ($per_field > $aggregated)" \
  [ "$per_field" -gt "$aggregated" ]
check "weather prints the point-update rate and the simulation speed" \
  grep -Eq 'grid-point updates/s, simulation speed [0-9.]+ \(simulated s per wall s\)' "$OUT_FILE"

# History: parallel NetCDF-4 with CF attributes and WRF's names.
rm -rf "$WT/out"; mkdir -p "$WT/out"
mpi 3 $WX -i inputs/weather/tiny.ini -o "$WT/out" --restart restart20.nc -n 20 --json "$REC"
rc=$?
NC="$WT/out/wrfout_d01.nc"
check "weather history at 3 ranks: exit $rc, written, no temporary file left" \
  sh -c "[ $rc -eq 0 ] && [ -s '$NC' ] && ! ls '$WT/out'/*.tmp >/dev/null 2>&1"
if ! command -v ncdump >/dev/null; then
  skip "ncdump reads the history" "no ncdump (netcdf-bin)"
else
  ncdump -h "$NC" > "$WT/header.txt" 2>&1
  check "ncdump: Time (unlimited, 2 frames), bottom_top 16, south_north 20, west_east 24" sh -c \
    "grep -q 'Time = UNLIMITED ; // (2 currently)' '$WT/header.txt' && grep -q 'bottom_top = 16 ;' '$WT/header.txt' && grep -q 'south_north = 20 ;' '$WT/header.txt' && grep -q 'west_east = 24 ;' '$WT/header.txt'"
  check "ncdump: CF-1.8, float U with units and x_wind (no map projection claimed), a Times string" sh -c \
    "grep -q ':Conventions = \"CF-1.8\"' '$WT/header.txt' && grep -q 'float U(Time, bottom_top, south_north, west_east)' '$WT/header.txt' && grep -q 'U:standard_name = \"x_wind\"' '$WT/header.txt' && grep -q 'V:standard_name = \"y_wind\"' '$WT/header.txt' && ! grep -q 'projection_x_coordinate\\|eastward_wind' '$WT/header.txt' && grep -q 'THETA:units = \"K\"' '$WT/header.txt' && ncdump -v Times '$NC' | grep -q '2000-01-01_00:01:00'"
  check "ncdump: Time is the Time dimension's coordinate (seconds since), cell bounds, the base state, the deck and every case parameter" sh -c \
    "grep -q 'double Time(Time)' '$WT/header.txt' && grep -q 'Time:units = \"seconds since 2000-01-01 00:00:00\"' '$WT/header.txt' && grep -q 'west_east:bounds = \"west_east_bnds\"' '$WT/header.txt' && grep -q 'double THETA_BASE(bottom_top)' '$WT/header.txt' && grep -q 'double PB(bottom_top)' '$WT/header.txt' && grep -q ':fabricbench_deck = ' '$WT/header.txt' && grep -q ':bubble_radius_z = 1500.' '$WT/header.txt' && grep -q ':history = ' '$WT/header.txt' && grep -q ':fabricbench_git = ' '$WT/header.txt'"
fi
if py_has xarray netCDF4; then
  res=$(/usr/bin/python3 - "$NC" <<'PY'
import sys, xarray as xr
ds = xr.open_dataset(sys.argv[1])
th = ds.THETA.isel(Time=-1)
print("true" if ds.sizes["Time"] == 2 and float(ds.W.isel(Time=-1).max()) > 0.5 and 300 < float(th.max()) < 303 and ds.U.attrs["units"] == "m s-1" else "false")
PY
)
  check "xarray opens the history: a rising warm bubble (w > 0.5 m/s, theta 300-303 K)" [ "$res" = true ]
else
  skip "xarray opens the history" "/usr/bin/python3 lacks xarray or netCDF4"
fi
if py_has xarray netCDF4; then
  res=$(/usr/bin/python3 - "$NC" <<'PY'
import sys, numpy as np, xarray as xr
ds = xr.open_dataset(sys.argv[1])
frame = ds.sel(Time=np.datetime64("2000-01-01T00:01:00"))      # time selection by date
pert = frame.THETA - ds.THETA_BASE                               # theta' from the file alone
ok = float(pert.max()) > 0.5 and float(pert.min()) > -0.5 and frame.XTIME.values == frame.Time.values
print("true" if ok else "false")
PY
)
  check "xarray: ds.sel(Time=date) picks a frame; theta' = THETA - THETA_BASE rebuilt without the deck" [ "$res" = true ]
fi
check "weather record: history I/O in GB/s and frames" \
  [ "$(json "$REC" 'r["results"]["history_frames"] == 2 and r["results"]["io_gb_per_s"] > 0 and r["phases"]["io"]["calls"] > 0')" = true ]

# Restart: 40 steps = 20, restart (on another rank count), 20 more; the
# second segment appends its frames to the first's history, whose frames
# stay as they were.
rm -f "$REC"
mpi 2 $WX -i inputs/weather/tiny.ini -n 40 --no-output --json "$REC"
full=$(json "$REC" 'repr(r["results"]["checksum"])')
rm -f "$REC"
cp "$NC" "$WT/first_segment.nc"
mpi 4 $WX -i inputs/weather/tiny.ini -n 20 -o "$WT/out" --read-restart "$WT/out/restart20.nc" --json "$REC"
check "weather restart: 20 steps on 3 ranks, restart on 4, 20 more = 40 steps, bit for bit ($full)" \
  [ "$(json "$REC" 'repr(r["results"]["checksum"])')" = "$full" -a "$(json "$REC" 'r["results"]["start_step"]')" = 20 ]
if py_has netCDF4; then
  res=$(/usr/bin/python3 - "$NC" "$WT/first_segment.nc" <<'PY'
import sys, netCDF4, numpy as np
a, b = netCDF4.Dataset(sys.argv[1]), netCDF4.Dataset(sys.argv[2])
same = all(np.array_equal(a[v][:2], b[v][:2]) for v in ("THETA", "U", "W", "Time"))
print("true" if list(a["Time"][:]) == [0.0, 60.0, 120.0] and same else "false")
PY
)
  check "weather restart appends: the history holds 0, 60 and 120 s, its first two frames unchanged" [ "$res" = true ]
else
  skip "weather restart appends to the history" "/usr/bin/python3 lacks netCDF4"
fi
# Interval restarts keep every file (the step in the name), and the end's.
rm -rf "$WT/iv"; mkdir -p "$WT/iv"
{ cat inputs/weather/tiny.ini; printf 'restart_interval = 10\nrestart_file = wx.nc\n'; } > "$WT/interval.ini"  # [output] is the last section
mpi 2 $WX -i "$WT/interval.ini" -n 20 -o "$WT/iv" --quiet
check "weather restart_interval 10: wx.000010.nc, wx.000020.nc and wx.nc kept, nothing else left" \
  sh -c "cd '$WT/iv' && [ -s wx.000010.nc ] && [ -s wx.000020.nc ] && [ -s wx.nc ] && [ \$(ls -A | wc -l) -eq 4 ]"
expect_exit "weather refuses a restart from another grid" 2 20 2 $WX -i inputs/weather/advection.ini --read-restart "$WT/out/restart20.nc"
head -c 20000 "$WT/out/restart20.nc" > "$WT/damaged.nc"
expect_exit "weather refuses a damaged restart" 2 20 2 $WX -i inputs/weather/tiny.ini --read-restart "$WT/damaged.nc"

# Advection: error under the bound, third order or better when refined.
rm -f "$REC" "$WT/adv.jsonl"
mpi 2 $WX -i inputs/weather/advection.ini --json "$WT/adv.jsonl"
sed -e 's/^nx = 20/nx = 40/; s/^ny = 20/ny = 40/; s/^dx = 1000.0/dx = 500.0/; s/^dy = 1000.0/dy = 500.0/; s/^dt = 25.0/dt = 12.5/; s/^steps = 80/steps = 160/' inputs/weather/advection.ini > "$WT/adv2.ini"
mpi 2 $WX -i "$WT/adv2.ini" --json "$WT/adv2.jsonl"
e1=$(json "$WT/adv.jsonl" 'r["results"]["advection_errors"]["l2"]')
e2=$(json "$WT/adv2.jsonl" 'r["results"]["advection_errors"]["l2"]')
order=$(python3 -c "import math; print('%.2f' % math.log2($e1 / $e2))")
check "weather advection: PASS, L2 error $e1 under the bound, printed with L1 and Linf" \
  sh -c "[ '$(json "$WT/adv.jsonl" 'r["validation"]["status"]')' = PASS ] && grep -q 'advection error after 2000 s: L1 ' '$OUT_FILE'"
check "weather advection: halving dx and dt divides the error by 2^$order (order >= 2.7)" \
  python3 -c "import sys; sys.exit(0 if $order >= 2.7 else 1)"

# Straka et al. (1993)'s density current, as published, at 200 m (CI's
# budget; run/weather-cases runs 200, 100 and 50 m). The table in
# docs/apps/weather.md: 200 m gives theta' min -10.9 K and the front at
# 15.36 km; 100 m -9.75 K, 15.42 km; 50 m -9.78 K, 15.44 km; the published
# converged values are about -9.7 K and 15.4-15.5 km. 200 m is coarse: its
# minimum is 1.1 K colder than the converged one. The bounds, +-0.5 K and
# +-0.25 km around the 200 m answer, hold any rank count (the state is the
# same to the bit) and fail the ways the case has been wrong: no viscosity
# gives -13.2 K, a 15 K theta instead of temperature amplitude puts the
# front at 14.67 km, the old 25.6 km periodic domain has no front at all.
# 4 ranks on 256 x 1 columns: the automatic grid must be 4 x 1. The two
# longest runs here (this and the 500 m gravity wave) run on 2 ranks under
# MPICH on fewer than 4 cores: its ranks poll without yielding, and on 4
# ranks on 2 cores they took 48 and 54 s instead of 8 and 14 (the state is
# the same on any grid; the small cases above still run MPICH at 3-6 ranks).
wx_np=4
polls_oversubscribed "$wx_np" && wx_np=2
sed 's/^nx = 512/nx = 256/; s/^nz = 64/nz = 32/; s/^dx = 100.0/dx = 200.0/; s/^dy = 100.0/dy = 200.0/; s/^dt = 1.0/dt = 2.0/; s/^steps = 900/steps = 450/; s/^history_interval = 300/history_interval = 450/' \
  inputs/weather/density_current.ini > "$WT/straka200.ini"
rm -rf "$WT/straka"; mkdir -p "$WT/straka"; rm -f "$REC"
mpi "$wx_np" $WX -i "$WT/straka200.ini" -o "$WT/straka" --json "$REC"
check "weather Straka density current at 200 m, $wx_np ranks (auto grid ${wx_np}x1x1): PASS, mass exact, energy down" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["grid"] == "'"$wx_np"'x1x1" and r["results"]["mass_change"] == 0 and r["results"]["energy_change"] < 0')" = true ]
check "weather Straka at 200 m: theta' min $(json "$REC" 'r["results"]["theta_pert_min"]') K in [-11.4, -10.4], front $(json "$REC" 'r["results"]["front_m"]') m in [15110, 15610]" \
  [ "$(json "$REC" '-11.4 <= r["results"]["theta_pert_min"] <= -10.4 and 15110 <= r["results"]["front_m"] <= 15610')" = true ]
if py_has netCDF4 numpy matplotlib; then
  run/weather-plot "$WT/straka/wrfout_d01.nc" -o "$WT/straka.png" --format json >"$OUT_FILE" 2>&1
  check "run/weather-plot draws theta' from the history and finds the same front and minimum as the run" \
    python3 -c "
import json
m = json.loads(open('$OUT_FILE').read()); r = json.loads(open('$REC').read().splitlines()[-1])['results']
raise SystemExit(0 if abs(m['front_m'] - r['front_m']) < 1.0 and abs(m['theta_pert_min'] - r['theta_pert_min']) < 1e-3 and open('$WT/straka.png', 'rb').read(4) == b'\\x89PNG' else 1)"
else
  skip "run/weather-plot" "/usr/bin/python3 lacks netCDF4, numpy or matplotlib"
fi
# The thermal of Bryan and Fritsch (2002) at 200 m: it rises to about 8 km.
sed 's/^nx = 200/nx = 100/; s/^nz = 100/nz = 50/; s/^dx = 100.0/dx = 200.0/; s/^dy = 100.0/dy = 200.0/; s/^dt = 1.0/dt = 2.0/; s/^steps = 1000/steps = 500/' \
  inputs/weather/thermal.ini > "$WT/thermal200.ini"
rm -f "$REC"
mpi 2 $WX -i "$WT/thermal200.ini" --no-output --json "$REC"
check "weather Bryan-Fritsch thermal at 200 m: PASS, theta' max $(json "$REC" 'r["results"]["theta_pert_max"]') K in [1.5, 2.05], top $(json "$REC" 'r["results"]["top_m"]') m in [7500, 8600]" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and 1.5 <= r["results"]["theta_pert_max"] <= 2.05 and 7500 <= r["results"]["top_m"] <= 8600')" = true ]
# A 2-D case on one row (ny = 1: no y halo, no V, no y terms) against the
# same case on 3 rows (the 3-D path, y-independent to the bit): every
# field of the restart the same to the last bit, on every row. The thermal
# with the hyperviscosity on (its y part then reads the cell itself) and
# Straka's with its diffusion, on 3 ranks for one row, 2 for three.
# Reading the y neighbour's stride on one row, or dropping a y term that is
# not exactly zero, fails it.
if py_has netCDF4 numpy; then
  sed 's/^hyperviscosity = 0.0/hyperviscosity = 0.05/; s/^steps = 500/steps = 150/' "$WT/thermal200.ini" > "$WT/row_th.ini"
  sed 's/^steps = 450/steps = 100/' "$WT/straka200.ini" > "$WT/row_st.ini"
  rows_ok=true rows_out=""
  for c in th st; do
    sed 's/^ny = 1/ny = 3/' "$WT/row_$c.ini" > "$WT/rows3_$c.ini"
    rm -f "$WT/row_$c.nc" "$WT/rows3_$c.nc" "$WT/row_$c.jsonl"
    mpi 3 $WX -i "$WT/row_$c.ini" -o "$WT" --restart "$WT/row_$c.nc" --json "$WT/row_$c.jsonl" --quiet || rows_ok=false
    rows_out="$rows_out$(cat "$OUT_FILE")"
    mpi 2 $WX -i "$WT/rows3_$c.ini" -o "$WT" --restart "$WT/rows3_$c.nc" --quiet || rows_ok=false
    rows_out="$rows_out$(cat "$OUT_FILE")"
    [ "$(json "$WT/row_$c.jsonl" 'r["grid"] == "3x1x1" and r["params"]["grid_points"].split("x")[1] == "1"')" = true ] || rows_ok=false
  done
  rm -f "$WT"/wrfout*
  $rows_ok && /usr/bin/python3 - "$WT" >"$OUT_FILE" 2>&1 <<'PY' || rows_ok=false
import sys, netCDF4, numpy as np
d, bad = sys.argv[1], []
for c in ("th", "st"):
    with netCDF4.Dataset(f"{d}/row_{c}.nc") as one, netCDF4.Dataset(f"{d}/rows3_{c}.nc") as three:
        assert one.dimensions["south_north"].size == 1 and three.dimensions["south_north"].size == 3
        for v in three.variables:
            a = np.asarray(one[v][:, 0, :])
            for j in range(3):
                if not np.array_equal(a, np.asarray(three[v][:, j, :])):
                    bad.append(f"{c} {v} row {j}")
        if not np.array_equal(np.asarray(one["V"][:]), 0 * np.asarray(one["V"][:])):
            bad.append(f"{c} V not zero")
print("different:", bad)
sys.exit(1 if bad else 0)
PY
  check "weather 2-D on one row (3 ranks) and on 3 rows (2 ranks): every field the same bits, on every row (thermal with hyperviscosity, Straka with diffusion)" $rows_ok
  $rows_ok || echo "$rows_out$(cat "$OUT_FILE")" | head -n 10 | sed 's/^/    # /'
else
  skip "weather 2-D one row against three" "/usr/bin/python3 lacks netCDF4 or numpy"
fi
# One row allocates one row: no y halo (nothing crosses y there). Straka's
# cells at 50 m (1024 x 128), one rank, two steps: one row's peak memory
# under half of three rows' (53 against 370 MB on a Zen 4 VM, 129 against
# 435 on the sanitizer build; with the 3-deep y halo one row held 7 rows,
# 262 MB).
sed 's/^nx = 512/nx = 1024/; s/^nz = 64/nz = 128/; s/^dx = 100.0/dx = 50.0/; s/^dy = 100.0/dy = 50.0/; s/^dt = 1.0/dt = 0.5/' \
  inputs/weather/density_current.ini > "$WT/straka50.ini"
sed 's/^ny = 1/ny = 3/' "$WT/straka50.ini" > "$WT/straka50x3.ini"
row_mb=$(peak_mb 1 $WX -i "$WT/straka50.ini" -n 2 --no-output --quiet)
rows3_mb=$(peak_mb 1 $WX -i "$WT/straka50x3.ini" -n 2 --no-output --quiet)
check "weather 2-D on one row holds one row: peak memory $row_mb MB, under half of 3 rows' $rows3_mb MB" \
  sh -c "[ '$row_mb' != failed ] && [ '$rows3_mb' != failed ] && [ \$((2 * $row_mb)) -lt $rows3_mb ]" 2>/dev/null
# Skamarock and Klemp (1994)'s inertia-gravity wave, at 1 km (the preset)
# and 500 m, against the exact linear answer of the compressible equations
# (run/fbwaves.py with 100 levels, itself within 1.1e-3 of the converged
# answer). The relative L2 errors are 0.112 and 0.032 (order 1.8). While
# theta0 was interpolated across the floor and lid they were 0.210 and 0.075
# (order 1.4), which these bounds fail; the history's THETA alone (float32
# of 300 K) misses the wave's detail, THETA_PERT keeps it.
if py_has netCDF4 numpy; then
  rm -rf "$WT/gw1" "$WT/gw2"; mkdir -p "$WT/gw1" "$WT/gw2"
  sed 's/^nx = 300/nx = 600/; s/^nz = 10/nz = 20/; s/^dx = 1000.0/dx = 500.0/; s/^dy = 1000.0/dy = 500.0/; s/^dt = 12.0/dt = 6.0/; s/^steps = 250/steps = 500/; s/^history_interval = 250/history_interval = 500/' \
    inputs/weather/gravity_wave.ini > "$WT/gw500.ini"
  rm -f "$WT/gw1.jsonl" "$WT/gw2.jsonl"
  mpi 2 $WX -i inputs/weather/gravity_wave.ini -o "$WT/gw1" --json "$WT/gw1.jsonl"
  mpi "$wx_np" $WX -i "$WT/gw500.ini" -o "$WT/gw2" --json "$WT/gw2.jsonl"
  check "weather gravity wave at 1 km on 2 ranks and 500 m on $wx_np: PASS, mass exact, energy down (it rose while theta0 was interpolated across floor and lid)" \
    [ "$(json "$WT/gw1.jsonl" 'r["validation"]["status"] == "PASS" and r["results"]["mass_change"] == 0 and r["results"]["energy_change"] < 0')$(json "$WT/gw2.jsonl" 'r["validation"]["status"] == "PASS"')" = truetrue ]
  /usr/bin/python3 - "$WT/gw1/wrfout_d01.nc" "$WT/gw2/wrfout_d01.nc" > "$WT/gw.json" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, "run")
import netCDF4, numpy as np, fbwaves
out, refs = [], {}
for path in sys.argv[1:]:
    with netCDF4.Dataset(path) as ds:
        pert = np.asarray(ds["THETA_PERT"][-1, :, 0, :], dtype=float)
        full = np.asarray(ds["THETA"][-1, :, 0, :], dtype=float) - np.asarray(ds["THETA_BASE"][:])[:, None]
        x, z, t = np.asarray(ds["west_east"][:]), np.asarray(ds["bottom_top"][:]), float(ds["Time"][-1])
        case = fbwaves.case_of(ds, len(x))
    ref = refs.setdefault(t, fbwaves.Linear(t, case, levels=100))
    row = fbwaves.compare(pert, x, z, ref)
    row["t"], row["pert_vs_theta"] = t, float(np.abs(full - pert).max())
    out.append(row)
zero = fbwaves.Linear(0.0, case, levels=len(z))  # the exact answer at t = 0: the anomaly itself
anomaly = np.outer(np.sin(np.pi * z / case["depth"]), case["dtheta"] / (1 + ((x - case["xc"]) / case["a"]) ** 2))
out.append({"t0_error": float(np.abs(zero.theta(x, z) - anomaly).max() / anomaly.max())})
print(json.dumps(out))
PY
  gw() { /usr/bin/python3 -c "import json, sys; r = json.load(open('$WT/gw.json')); print($1)" 2>/dev/null; }
  check "weather gravity wave: L2 error against the exact linear answer $(gw 'round(r[0]["l2_error"], 4)') at 1 km (< 0.13), $(gw 'round(r[1]["l2_error"], 4)') at 500 m (< 0.04), at 3000 s" \
    [ "$(gw 'r[0]["t"] == r[1]["t"] == 3000 and r[0]["l2_error"] < 0.13 and r[1]["l2_error"] < 0.04')" = True ]
  check "weather gravity wave: halving dx, dz and dt divides the error by $(gw 'round(r[0]["l2_error"] / r[1]["l2_error"], 2)') (> 3)" \
    [ "$(gw 'r[0]["l2_error"] / r[1]["l2_error"] > 3')" = True ]
  check "weather gravity wave at 500 m: theta' max $(gw 'r[1]["max"]') and min $(gw 'r[1]["min"]') K within 2% of the exact $(gw 'r[1]["ref_max"]'), $(gw 'r[1]["ref_min"]')" \
    [ "$(gw 'abs(r[1]["max"] / r[1]["ref_max"] - 1) < 0.02 and abs(r[1]["min"] / r[1]["ref_min"] - 1) < 0.02')" = True ]
  check "run/fbwaves.py at t = 0 gives the initial anomaly back (largest difference $(gw 'r[2]["t0_error"]') of its amplitude, < 1e-3: the seam of the channel's Lorentzian)" \
    [ "$(gw 'r[2]["t0_error"] < 1e-3')" = True ]
  check "weather history: THETA_PERT is THETA - THETA_BASE to float32's 3e-5 K (largest difference $(gw 'r[1]["pert_vs_theta"]') K)" \
    [ "$(gw '0 < r[1]["pert_vs_theta"] < 4e-5')" = True ]
else
  skip "weather gravity wave against the linear answer" "/usr/bin/python3 lacks netCDF4 or numpy"
fi
# The 2-D check on 3 rows can fail: a state made y-dependent on purpose
# (test hook).
rm -f "$REC"
sed 's/^ny = 1/ny = 3/' "$WT/thermal200.ini" > "$WT/thermal200x3.ini"
FABRICBENCH_TEST_HOOK=wx_break_2d mpi 2 $WX -i "$WT/thermal200x3.ini" -n 20 --no-output --json "$REC"
rc=$?
check "weather: a 2-D case on 3 rows that is not y-independent is a FAIL (exit $rc)" \
  [ $rc -eq 1 -a "$(json "$REC" 'any(c["name"] == "y_independent" and not c["pass"] for c in r["validation"]["checks"])')" = true ]

# A leaking tracer fails the conservation check.
rm -f "$REC"
FABRICBENCH_TEST_HOOK=wx_lose_tracer mpi 2 $WX -i inputs/weather/tiny.ini -n 5 --no-output --json "$REC"
rc=$?
check "weather: a leaking tracer is a FAIL (exit $rc)" \
  [ $rc -eq 1 -a "$(json "$REC" 'any(c["name"] == "tracer1_mass_change" and not c["pass"] for c in r["validation"]["checks"])')" = true ]
