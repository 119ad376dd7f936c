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
  check "ncdump: CF-1.8, float U with units and standard_name, a Times string" sh -c \
    "grep -q ':Conventions = \"CF-1.8\"' '$WT/header.txt' && grep -q 'float U(Time, bottom_top, south_north, west_east)' '$WT/header.txt' && grep -q 'U:standard_name = \"eastward_wind\"' '$WT/header.txt' && grep -q 'THETA:units = \"K\"' '$WT/header.txt' && ncdump -v Times '$NC' | grep -q '2000-01-01_00:01:00'"
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
check "weather record: history I/O in GB/s and frames" \
  [ "$(json "$REC" 'r["results"]["history_frames"] == 2 and r["results"]["io_gb_per_s"] > 0 and r["phases"]["io"]["calls"] > 0')" = true ]

# Restart: 40 steps = 20, restart (on another rank count), 20 more.
rm -f "$REC"
mpi 2 $WX -i inputs/weather/tiny.ini -n 40 --no-output --json "$REC"
full=$(json "$REC" 'repr(r["results"]["checksum"])')
rm -f "$REC"
mpi 4 $WX -i inputs/weather/tiny.ini -n 20 -o "$WT/out" --read-restart "$WT/out/restart20.nc" --json "$REC"
check "weather restart: 20 steps on 3 ranks, restart on 4, 20 more = 40 steps, bit for bit ($full)" \
  [ "$(json "$REC" 'repr(r["results"]["checksum"])')" = "$full" -a "$(json "$REC" 'r["results"]["start_step"]')" = 20 ]
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

# Density current (Straka): conserves mass exactly, loses energy.
rm -f "$REC"
mpi 2 $WX -i inputs/weather/density_current.ini -n 100 --no-output --json "$REC"
check "weather density current, 100 steps: PASS, mass exact, energy down, downdraft over 5 m/s" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["mass_change"] == 0 and r["results"]["energy_change"] < 0 and r["results"]["max_w"] > 5')" = true ]

# A leaking tracer fails the conservation check.
rm -f "$REC"
FABRICBENCH_TEST_HOOK=wx_lose_tracer mpi 2 $WX -i inputs/weather/tiny.ini -n 5 --no-output --json "$REC"
rc=$?
check "weather: a leaking tracer is a FAIL (exit $rc)" \
  [ $rc -eq 1 -a "$(json "$REC" 'any(c["name"].startswith("tracer 1") and not c["pass"] for c in r["validation"]["checks"])')" = true ]
