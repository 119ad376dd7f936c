# tests/e2e/himeno.sh: himeno/bmt through mpirun (sourced by tests/run-tests).
BMT=himeno/bmt
REC="$TMPDIR_T/himeno.jsonl"

# Same checksum, PASS and the original's gosa at every rank count, grid and
# thread count.
reference_sum=""
himeno_case() { # NAME NP THREADS ARGS...
  name=$1 np=$2 threads=$3; shift 3
  rm -f "$REC"
  OMP_NUM_THREADS=$threads mpi "$np" $BMT -s XS -n 200 --json "$REC" "$@"
  rc=$?
  if [ $rc -ne 0 ] || [ ! -s "$REC" ]; then not_ok "himeno XS $name: exit $rc" "$(cat "$OUT_FILE")"; return; fi
  status=$(json "$REC" 'r["validation"]["status"]')
  gosa_ok=$(json "$REC" 'any(c["name"] == "gosa_final_vs_original" and c["pass"] for c in r["validation"]["checks"])')
  sum=$(json "$REC" '"%r %r" % (r["results"]["checksum"], r["results"]["checksum_weighted"])')
  [ -z "$reference_sum" ] && reference_sum=$sum
  if [ "$status" = PASS ] && [ "$gosa_ok" = true ] && [ "$sum" = "$reference_sum" ]; then
    ok "himeno XS $name: PASS, original's gosa, checksum $sum"
  else
    not_ok "himeno XS $name: status $status, gosa vs original $gosa_ok, checksum $sum (first run $reference_sum)" "$(cat "$OUT_FILE")"
  fi
}
for np in 1 2 3 4 6; do himeno_case "$np ranks" "$np" 1; done
himeno_case "1 rank x 2 threads" 1 2
himeno_case "2 ranks x 2 threads" 2 2
himeno_case "grid 1x2x2" 4 1 --grid 1x2x2
himeno_case "grid 2x2x2" 8 1 --grid 2x2x2
himeno_case "grid 1x1x3" 3 1 --grid 1x1x3
himeno_case "grid 3x2x1" 6 1 --grid 3x2x1

# The coefficients' two layouts and the sweep with and without its
# prefetches (kernel.c): the field must not depend on either, and each record
# must say which ran.
split_case() { # NP LAYOUT [PREFETCH [WIDTH [NT]]]: prints STATUS:CHECKSUM of a 62x62x66 run on NP ranks
  rm -f "$REC"
  OMP_NUM_THREADS=1 mpi "$1" $BMT -s 62x62x66 -n 20 --layout "$2" --prefetch "${3:-on}" \
    --vector-width "${4:-auto}" --nt-stores "${5:-auto}" --json "$REC"
  json "$REC" '"%s:%r" % (r["validation"]["status"], r["results"]["checksum_weighted"])'
}
layout() { json "$REC" 'r["params"]["coefficients"]'; }
split_1=$(split_case 1 split on 256); layout_1=$(layout)
split_2=$(split_case 2 stream); layout_2=$(layout)
stream_1=$(split_case 1 stream off); layout_3=$(layout)
split_off=$(split_case 2 split off 256); layout_4=$(layout)
check "himeno 62x62x66: the same field in three arrays, prefetched (1 rank: $layout_1), in one stream (2 ranks: $layout_2; 1 rank: $layout_3) and in three arrays, not prefetched (2 ranks: $layout_4): $split_1 $split_2 $stream_1 $split_off" \
  sh -c '[ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] && [ "${1%%:*}" = PASS ] && [ "$5" = "three arrays, prefetched into L2 and then L1" ] && [ "$6" = "one stream, prefetched into L1" ] && [ "$7" = "one stream, hardware prefetchers alone" ] && [ "$8" = "three arrays, hardware prefetchers alone" ]' \
  _ "$split_1" "$split_2" "$stream_1" "$split_off" "$layout_1" "$layout_2" "$layout_3" "$layout_4"
# The split layout's sweep in 512-bit vectors: built where the compiler is
# GCC and the build's flags give AVX-512 (kernel.c), refused elsewhere.
flags=$($BMT --version | sed -n 's/^flags: //p')
cc=$(make -s --no-print-directory print-mpicc 2>/dev/null); cc=${cc:-mpicc}
defines=$($cc $flags -dM -E -x c /dev/null 2>/dev/null)
wide=false
case "$defines" in *__clang__*) ;; *__AVX512F__*) wide=true ;; esac
split_512=$(split_case 2 split on 512)
if [ "$wide" = true ]; then
  check "himeno 62x62x66 in three arrays in 512-bit vectors (2 ranks: $(layout), vector_width $(json "$REC" 'r["params"]["vector_width"]')): the same field, $split_512" \
    [ "$split_512" = "$split_1" -a "$(layout)" = "three arrays in 512-bit vectors, prefetched into L2 and then L1" -a "$(json "$REC" 'r["params"]["vector_width"]')" = 512 ]
else
  OMP_NUM_THREADS=1 mpi 2 $BMT -s XS -n 1 --layout split --vector-width 512; rc=$?
  check "himeno --vector-width 512 without AVX-512 in the build ($flags): exit 2 (got $rc), the reason named" \
    sh -c "[ $rc -eq 2 ] && grep -q '^bmt: error: option --vector-width: 512 needs a build by GCC for x86 with AVX-512' '$OUT_FILE'"
fi
# The new field's non-temporal stores (kernel.c): built where the build's
# flags give AVX, refused elsewhere; the field is the same with and without.
nt=false
case "$defines" in *__AVX__*) nt=true ;; esac
if [ "$nt" = true ]; then
  nt_on=$(split_case 2 split on 256 on); stores_on=$(json "$REC" 'r["params"]["stores"]')
  nt_stream=$(split_case 1 stream off auto on); stores_stream=$(json "$REC" 'r["params"]["stores"]')
  nt_off=$(split_case 2 split on 256 off); stores_off=$(json "$REC" 'r["params"]["stores"]')
  check "himeno 62x62x66 with non-temporal stores (three arrays on 2 ranks: $stores_on, one stream on 1: $stores_stream) and without ($stores_off): the same field, $nt_on $nt_stream $nt_off" \
    [ "$nt_on" = "$split_1" -a "$nt_stream" = "$split_1" -a "$nt_off" = "$split_1" -a "$stores_on" = non-temporal -a "$stores_stream" = non-temporal -a "$stores_off" = "through the caches" ]
else
  OMP_NUM_THREADS=1 mpi 2 $BMT -s XS -n 1 --nt-stores on; rc=$?
  check "himeno --nt-stores on without AVX in the build ($flags): exit 2 (got $rc), the reason named" \
    sh -c "[ $rc -eq 2 ] && grep -q '^bmt: error: option --nt-stores: on needs a build for x86 with AVX' '$OUT_FILE'"
fi
# --layout, --vector-width, --prefetch and --nt-stores auto (the defaults)
# time each variant they leave open and keep the fastest: the record gives
# the times of those, and only those, the variant that won, its width and
# its stores; the field is the same.
TRIALS='{k[6:-2]: v for k, v in r["params"].items() if k.startswith("trial_")}'
WORDS='{"stream_hardware": ("one stream, hardware", "native"), "stream_prefetched": ("one stream, prefetched", "native"), "split_hardware": ("three arrays, hardware", "256"), "split_prefetched": ("three arrays, prefetched", "256"), "split512_hardware": ("three arrays in 512-bit vectors, hardware", "512"), "split512_prefetched": ("three arrays in 512-bit vectors, prefetched", "512")}'
# the winner's words, width and stores, from its key (a _nt suffix: non-temporal)
WON="(lambda w, nt: $WORDS[w[:-3] if nt else w] + (('non-temporal' if nt else 'through the caches'),))(min($TRIALS, key=$TRIALS.get), min($TRIALS, key=$TRIALS.get).endswith('_nt'))"
for args in "1 auto auto auto auto" "2 auto auto auto auto" "1 split auto auto auto" "2 auto off auto auto" "1 split auto 256 off" "2 stream auto auto on"; do
  set -- $args
  wide_pair=""; [ "$wide" = true ] && wide_pair=" split512_hardware split512_prefetched"
  case "$2 $3 $4" in
    "auto auto auto") base="split_hardware split_prefetched$wide_pair stream_hardware stream_prefetched" ;;
    "split auto auto") base="split_hardware split_prefetched$wide_pair" ;;
    "auto off auto") base="split_hardware${wide_pair:+ split512_hardware} stream_hardware" ;;
    "split auto 256") base="split_hardware split_prefetched" ;;
    "stream auto auto") base="stream_hardware stream_prefetched" ;;
  esac
  want=""
  for v in $base; do
    case "$5 $nt" in
      "auto true") want="$want $v ${v}_nt" ;;
      "on true") want="$want ${v}_nt" ;;
      *) want="$want $v" ;;
    esac
  done
  [ "$5" = on ] && [ "$nt" = false ] && continue # refused above
  auto=$(split_case "$1" "$2" "$3" "$4" "$5")
  check "himeno 62x62x66 --layout $2 --prefetch $3 --vector-width $4 --nt-stores $5, $1 rank(s):$want timed, the fastest kept ($(layout), $(json "$REC" 'r["params"]["stores"]'); $(json "$REC" "$TRIALS")), field $auto" \
    [ "$(json "$REC" "(lambda t, won: sorted(t) == sorted('$want'.split()) and min(t.values()) > 0 and r['params']['coefficients'].startswith(won[0]) and r['params']['vector_width'] == won[1] and r['params']['stores'] == won[2])($TRIALS, $WON)")" = true -a "$auto" = "$split_1" ]
done

# The smallest grids, one interior point a rank, every option auto: the
# trial of the sweeps is capped in sweeps as well as points (it asked for 4
# million sweeps a variant there: minutes of set-up before 5 iterations)
for c in "1 3x3x3" "3 5x3x3"; do
  set -- $c
  rm -f "$REC"
  LIMIT=60 mpi "$1" $BMT -s "$2" -n 5 --json "$REC"; rc=$?
  check "himeno -s $2 on $1 rank(s), one interior point a rank, every option auto: PASS within 60 s (exit $rc)" \
    [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] + str(r["results"]["iterations"])' 2>&1)" = PASS5 ]
done

# OMP_NUM_THREADS unset: the node's cores are shared out among its ranks
# (never one thread per core in every rank), with a warning when the ranks
# alone oversubscribe the node. Unbound, so each rank may use every core.
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
for np in 1 2 4; do
  rm -f "$REC"
  (unset OMP_NUM_THREADS; export OMPI_MCA_hwloc_base_binding_policy=none
   mpi "$np" $BMT -s XS -n 3 --json "$REC")
  want=$((cores / np)); [ "$want" -lt 1 ] && want=1
  warned=false; grep -q 'warning: .* oversubscribe it (OMP_NUM_THREADS unset)' "$OUT_FILE" && warned=true
  expect_warn=false; [ "$np" -gt "$cores" ] && expect_warn=true
  # with more ranks than cores, MPICH's polling ranks are named as the cost
  polls=false; grep -q "oversubscribe it (OMP_NUM_THREADS unset); MPICH's ranks poll without yielding" "$OUT_FILE" && polls=true
  expect_polls=false; [ "$np" -gt "$cores" ] && [ "${FB_MPI:-openmpi}" = mpich ] && expect_polls=true
  check "himeno, $np ranks, OMP_NUM_THREADS unset: $want threads per rank on $cores cores, warning $expect_warn, MPICH's polling named $expect_polls" \
    [ "$(json "$REC" "r['threads'] == $want and r['validation']['status'] == 'PASS'")" = true -a "$warned" = "$expect_warn" -a "$polls" = "$expect_polls" ]
done

# One timing protocol for every FOM: the loop's time is the slowest rank's.
# A rank held back 0.5 s on purpose (test hook slow_rank) raises the
# reported time and lowers the FOM; the record keeps the fastest rank's too.
rm -f "$REC" "$TMPDIR_T/slow.jsonl"
mpi 2 $BMT -s XS -n 50 --json "$REC" --quiet
FABRICBENCH_TEST_HOOK=slow_rank mpi 2 $BMT -s XS -n 50 --json "$TMPDIR_T/slow.jsonl" --quiet
check "timing protocol: a rank delayed 0.5 s raises the loop time (max over ranks) by it, the fastest rank stays fast" \
  python3 -c "
import json
a = json.loads(open('$REC').read().splitlines()[-1]); b = json.loads(open('$TMPDIR_T/slow.jsonl').read().splitlines()[-1])
ok = b['loop_s']['max'] - a['loop_s']['max'] > 0.45 and b['loop_s']['max'] - b['loop_s']['min'] > 0.45 and b['fom']['value'] < a['fom']['value'] and b['wall_s'] == b['loop_s']['max']
raise SystemExit(0 if ok else 1)"

# The run record holds every field of the schema.
rm -f "$REC"
mpi 2 $BMT -s XS -n 20 --repeat 3 --json "$REC" --quiet
fields='schema app version git started params ranks threads nodes hosts grid mpi build fom wall_s phases comm validation repeats cpu fabric'
missing=$(json "$REC" "' '.join(k for k in '$fields'.split() if k not in r)")
check "himeno record has every schema field (missing: '${missing}')" [ -z "$missing" ]
check "himeno record: schema fabricbench.run/1, 2 ranks, grid of 2" \
  [ "$(json "$REC" 'r["schema"] == "fabricbench.run/1" and r["ranks"] == 2 and r["nodes"] >= 1 and eval(r["grid"].replace("x","*")) == 2')" = true ]
check "himeno record: fom, phases and comm counters" \
  [ "$(json "$REC" 'r["fom"]["name"] == "MFLOPS" and r["fom"]["value"] > 0 and r["fom"]["higher_is_better"] and set(r["phases"]) == {"compute","halo","allreduce"} and r["comm"]["halo"]["bytes"] > 0 and r["phases"]["compute"]["max"] >= r["phases"]["compute"]["min"] > 0')" = true ]
check "himeno --repeat 3: three repeats, FOM is the best" \
  [ "$(json "$REC" 'len(r["repeats"]) == 3 and r["fom"]["value"] == max(r["repeats"])')" = true ]
check "himeno record: cpu and fabric sections, params echo the options" \
  [ "$(json "$REC" '"user_s" in r["cpu"] and "interfaces" in r["fabric"] and r["params"]["size"] == "XS" and r["params"]["iterations"] == 20 and r["params"]["repeat"] == 3')" = true ]
# The record's git revision is this checkout's: the build's own, and
# "unknown" for a copy without .git inside another repository (a tarball
# unpacked in a home under git), never that repository's revision.
check "himeno record: git is this checkout's revision ($(json "$REC" 'r["git"]'))" \
  [ "$(json "$REC" 'r["git"]' | cut -d- -f1)" = "$( { [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ] &&
    git rev-parse --short=12 HEAD; } 2>/dev/null || echo unknown)" ]
OUTER="$TMPDIR_T/outer"
mkdir -p "$OUTER/fb/common" && cp common/gen-build-info "$OUTER/fb/common/" && cp VERSION "$OUTER/fb/"
git -C "$OUTER" init -q && git -C "$OUTER" -c user.name=t -c user.email=t@t commit -q --allow-empty -m outer
check "a copy without .git inside another repository builds as git unknown" \
  sh -c "'$OUTER/fb/common/gen-build-info' cc '' | grep -qx '#define FB_BUILD_GIT \"unknown\"'"
mpi 1 $BMT -s XS -n 5 --json "$REC" --quiet
check "himeno --json appends one JSON line per run" [ "$(json "$REC" 'len(lines) == 2 and all(json.loads(l)["app"] == "himeno" for l in lines)')" = true ]

# The familiar lines of the original, for the scripts that parse them.
mpi 2 $BMT -s XS -t 0.2
check "himeno -t prints the original's lines" grep -q '^MFLOPS measured : [0-9]' "$OUT_FILE"
check "himeno -t run passes" grep -q '^Validation : PASS' "$OUT_FILE"

# A wrong answer is caught: exit 1 and a FAIL record.
rm -f "$REC"
FABRICBENCH_TEST_HOOK=himeno_perturb mpi 2 $BMT -s XS -n 200 --json "$REC"
rc=$?
check "himeno with a perturbed coefficient exits 1 (got $rc)" [ "$rc" -eq 1 ]
check "himeno with a perturbed coefficient records FAIL" [ "$(json "$REC" 'r["validation"]["status"]')" = FAIL ]

# Help and version.
mpi 1 $BMT --help
check "himeno --help lists every option" sh -c "grep -q -- '--size' '$OUT_FILE' && grep -q -- '--grid' '$OUT_FILE' && grep -q -- '--timeout' '$OUT_FILE' && grep -q -- '--json' '$OUT_FILE'"
mpi 2 $BMT --version
check "himeno --version names the build" grep -q 'fabricbench' "$OUT_FILE"

# --timeout: the watchdog ends an overlong run with exit 3, naming the phase.
PER_RANK_ERRORS=1 expect_exit "himeno --timeout 1 on a long run" "$(timeout_status)" 15 2 $BMT -s S -t 60 --timeout 1
check "himeno --timeout names the phase of each rank" [ "$(grep -c "exceeded in phase '" "$OUT_FILE")" -eq 2 ]
