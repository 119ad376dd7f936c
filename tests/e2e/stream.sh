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
done
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
