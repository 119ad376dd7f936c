# tests/e2e/stream.sh: stream/stream through mpirun (sourced by tests/run-tests).
STREAM=stream/stream
REC="$TMPDIR_T/stream.jsonl"

for np in 1 2 4; do
  rm -f "$REC"
  mpi "$np" $STREAM -n 200000 -r 5 --json "$REC"
  rc=$?
  if [ $rc -eq 0 ] && [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["fom"]["value"] > 0 and len(r["validation"]["checks"]) == 3 and r["ranks"] == '$np)" = true ]; then
    ok "stream at $np ranks: PASS, Triad $(json "$REC" 'round(r["fom"]["value"], 2)') GB/s"
  else
    not_ok "stream at $np ranks: exit $rc" "$(cat "$OUT_FILE")"
  fi
  # the cache-line handoff between the node's ranks (common/nodes.c): taken
  # before the timed loop and at the report, where 2 or more ranks share the
  # node and have a core each; absent otherwise. The cores are those the
  # ranks were given (the record's binding): Open MPI 4.1 binds to every core
  # of the node even under `taskset -c 0`
  given=$(json "$REC" 'len(set().union(*({c for p in b["cpus"].split(",") for c in (range(int(p.split("-")[0]), int(p.split("-")[-1]) + 1))} for b in r["binding"])))' 2>/dev/null)
  if [ "$np" -ge 2 ] && [ "$np" -le "${given:-0}" ]; then
    handoff=$(json "$REC" 'all(5 < r["params"][k] < 1e5 for k in ("handoff_ns_before", "handoff_ns_after"))')
    check "stream at $np ranks on $given cores: the cache-line handoff before and after the loop in the record and the summary" \
      sh -c "[ '$handoff' = true ] && grep -q '^  handoff_ns_before ' '$OUT_FILE'"
  else
    check "stream at $np ranks on ${given:-?} cores: no cache-line handoff in the record (no pair, or more ranks than cores)" \
      [ "$(json "$REC" '"handoff_ns_before" not in r["params"] and "handoff_ns_after" not in r["params"]')" = true ]
  fi
done
# the default length: each array 4x the last-level cache over the ranks
# that share one (the node's ranks over its instances of that cache, from
# sysfs; getconf's L3, else L2, and one instance where sysfs lists none),
# rounded up to 8 elements; so 2 ranks on one cache get half of 1 rank's
# (one vector width: the length does not depend on it, and auto's trial was
# 10 of the 25 s of the 1-rank run under AddressSanitizer on a 508 MiB L3)
for np in 1 2; do mpi "$np" $STREAM -r 2 --vector-width native --json "$REC.default$np"; done
check "stream's default length: 4x the last-level cache over the ranks sharing it, at 1 and 2 ranks ($(getconf LEVEL3_CACHE_SIZE 2>/dev/null) B of L3 by getconf)" \
  python3 - "$REC.default1" "$REC.default2" "$(getconf LEVEL3_CACHE_SIZE 2>/dev/null)" "$(getconf LEVEL2_CACHE_SIZE 2>/dev/null)" <<'PY'
import glob, json, re, sys
def size(path):
    m = re.match(r"(\d+)([KM]?)", open(path).read().strip())
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20}[m.group(2)]
sizes = {int(re.search(r"index(\d+)/", p).group(1)): size(p)
         for p in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size")}
if sizes:
    index = max(sizes, key=lambda k: (sizes[k], -k))
    cache = sizes[index]
    caches = len({open(p).read() for p in
                  glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cache/index%d/shared_cpu_list" % index)})
else:
    cache = next((int(x) for x in sys.argv[3:5] if x.strip().isdigit() and int(x) > 0), 32 << 20)
    caches = 1
ok = True
for path, ranks in ((sys.argv[1], 1), (sys.argv[2], 2)):
    rec = json.loads(open(path).readline())
    want = -(-(4 * cache // 8 // -(-ranks // caches)) // 8) * 8
    got = rec["params"]["elements_per_rank"]
    print("%d rank(s): %d elements a rank, %d expected (%d B cache, %d instance(s))" % (ranks, got, want, cache, caches))
    ok = ok and got == want and rec["validation"]["status"] == "PASS"
raise SystemExit(0 if ok else 1)
PY
check "stream prints stream.c's table" sh -c "grep -q '^Function    Best Rate MB/s  Avg time     Min time     Max time' '$OUT_FILE' && grep -q '^Triad ' '$OUT_FILE'"
check "stream record: per-rank minimum, the synchronisation mode, the loop's spread over ranks" \
  [ "$(json "$REC" 'r["results"]["rank_min_mbs"]["Triad"] > 0 and r["results"]["synchronised_per_kernel"] and r["phases"]["kernels"]["calls"] > 0 and r["loop_s"]["max"] >= r["loop_s"]["avg"] >= r["loop_s"]["min"] > 0')" = true ]
stagger=$(sed -n 's/^#define STREAM_STAGGER_BYTES \([0-9]*\)$/\1/p' stream/stream.h)
check "stream record: a, b and c start 0, $stagger and twice that into a page (STREAM_STAGGER_BYTES)" \
  [ "$(json "$REC" 'r["results"]["page_offsets_bytes"] == {"a": 0, "b": '"${stagger:-0}"', "c": 2 * '"${stagger:-0}"'} and '"${stagger:-0}"' > 0')" = true ]

rm -f "$REC"
OMP_NUM_THREADS=2 mpi 2 $STREAM -n 100003 -r 3 --nt --repeat 2 --json "$REC"
check "stream --nt, 2 threads, odd length, --repeat 2: PASS, named as non-temporal" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["fom"]["name"] == "Triad (non-temporal)" and len(r["repeats"]) == 2 and r["results"]["non_temporal"]')" = true ]
# The plain kernels' two vector widths (kernels.c): each fixed one validates
# and is recorded; auto times a Triad pass in each (the trial leaves the
# arrays where the closed form starts) and keeps the faster. Odd lengths and
# 2 threads: each thread's share ends in a scalar remainder.
for w in 128 native; do
  rm -f "$REC"
  OMP_NUM_THREADS=2 mpi 2 $STREAM -n 100003 -r 3 --vector-width "$w" --json "$REC"
  check "stream --vector-width $w: PASS, recorded, no trial" \
    [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["vector_width"] == "'"$w"'" and "trial_128_s" not in r["params"]')" = true ]
  words=native; [ "$w" = 128 ] && words=128-bit
  check "stream --vector-width $w prints it" grep -q "^Vector width: $words (--vector-width $w)" "$OUT_FILE"
done
rm -f "$REC"
mpi 2 $STREAM -n 300001 -r 3 --json "$REC"
check "stream --vector-width auto (the default): PASS, both widths timed, the faster kept" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["vector-width"] == "auto" and r["params"]["trial_128_s"] > 0 and r["params"]["trial_native_s"] > 0 and r["params"]["vector_width"] == ("128" if r["params"]["trial_128_s"] < r["params"]["trial_native_s"] else "native")')" = true ]
check "stream prints the auto trial's times" grep -q "^Vector width: .* (--vector-width auto; ms a Triad pass: 128-bit [0-9.]*, native [0-9.]*)" "$OUT_FILE"
# the two loops as built: 128-bit registers alone in the narrow one
narrow_regs=$(objdump -d --no-show-raw-insn "${BUILD:-build}/stream/kernels.o" 2>/dev/null |
  awk '/^[0-9a-f]+ <plain_narrow>:/ { f = 1; next } /^[0-9a-f]+ </ { f = 0 } f' |
  grep -oE '%[xyz]mm' | sort -u | tr '\n' ' ')
if [ -z "$narrow_regs" ]; then
  skip "stream's 128-bit loop in the build" "no plain_narrow in ${BUILD:-build}/stream/kernels.o (not GCC on x86, or no objdump)"
else
  check "stream's 128-bit loop in the build uses 128-bit registers alone (found: $narrow_regs)" [ "$narrow_regs" = "%xmm " ]
fi
rm -f "$REC"
mpi 1 $STREAM -n 1000 -r 3 --nt --json "$REC"
check "stream --nt: its kernels recorded as 128-bit, no trial" \
  [ "$(json "$REC" 'r["params"]["vector_width"] == "128" and "trial_native_s" not in r["params"]')" = true ]

rm -f "$REC"
mpi 2 $STREAM -n 100000 -r 3 --no-sync --json "$REC"
check "stream --no-sync: PASS, recorded as unsynchronised" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and not r["results"]["synchronised_per_kernel"]')" = true ]

# the arrays' pages: 2 x 3 arrays of 16 MB, 8 huge pages each
rm -f "$REC" "$REC.4k"
mpi 2 $STREAM -n 2000000 -r 3 --json "$REC"
mpi 2 $STREAM -n 2000000 -r 3 --no-huge-pages --json "$REC.4k"
check_pages "stream's arrays" "$REC" "$REC.4k"

rm -f "$REC"
FABRICBENCH_TEST_HOOK=stream_corrupt mpi 2 $STREAM -n 100000 -r 3 --json "$REC"
rc=$?
check "stream with a corrupted array exits 1 (got $rc) and records FAIL" \
  [ "$rc" -eq 1 -a "$(json "$REC" 'r["validation"]["status"]')" = FAIL ]

# Long runs: each pass multiplies the values by 15, so stream.c's arrays
# overflow after about 260 passes; ours are rescaled (exactly) and still
# checked. 2 threads with an odd length: the rescaling uses the kernels' shares.
rm -f "$REC"
OMP_NUM_THREADS=2 mpi 2 $STREAM -n 1001 -r 300 --repeat 2 --json "$REC"
rc=$?
check "stream with 600 passes (-r 300 --repeat 2): exit $rc, PASS, every error 0" \
  [ "$rc" -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and all(c["value"] == 0 for c in r["validation"]["checks"])')" = true ]
rm -f "$REC"
FABRICBENCH_TEST_HOOK=stream_corrupt mpi 2 $STREAM -n 1001 -r 300 --json "$REC"
rc=$?
check "stream with 300 passes and a corrupted array exits 1 (got $rc) and records FAIL" \
  [ "$rc" -eq 1 -a "$(json "$REC" 'r["validation"]["status"]')" = FAIL ]
