# tests/e2e/pingpong.sh: pingpong/pingpong through mpirun (sourced by tests/run-tests).
PP=pingpong/pingpong
REC="$TMPDIR_T/pingpong.jsonl"
FAST="-m 1:64K -i 50 -x 5"

for np in 2 4; do
  rm -f "$REC"
  mpi "$np" $PP $FAST --json "$REC"
  rc=$?
  if [ $rc -eq 0 ] && [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and all(t in r["results"] for t in ("latency", "bw", "bibw", "allreduce")) and len(r["results"]["latency"]) == 17')" = true ]; then
    ok "pingpong all tests at $np ranks: PASS, curves in the record"
    # the measurements themselves are checked on 2 ranks: 4 on a 2-core host
    # time-share the cores (MPICH's waiting ranks spin), and CI saw the
    # curve's shape go with it
    [ "$np" = 2 ] && cp "$REC" "$REC.2"
  else
    not_ok "pingpong all tests at $np ranks: exit $rc" "$(cat "$OUT_FILE")"
  fi
done
check "pingpong prints OSU-style columns" sh -c "grep -q '^# Size       Latency (us)' '$OUT_FILE' && grep -q '^# Size      Bandwidth (MB/s)' '$OUT_FILE'"
check "pingpong record (2 ranks): the fit, the pair, bandwidths that grow with size" \
  [ "$(json "$REC.2" 'r["results"]["fit"]["alpha_us"] > 0 and r["results"]["fit"]["beta_mbs"] > 0 and r["results"]["pair"]["rank_b"] == 1 and r["results"]["bw"][-1]["mbs"] > r["results"]["bw"][0]["mbs"] and r["comm"]["latency"]["messages"] > 0')" = true ]
check "pingpong record: percentiles are ordered" \
  [ "$(json "$REC" 'all(p["min_us"] <= p["median_us"] <= p["p99_us"] <= p["max_us"] for p in r["results"]["latency"])')" = true ]

# Latency samples are whole round trips (pp_comm.c reads the clock once per
# round trip, after the leader's send): with no warm-up, 2 x the mean x the
# samples is the timed phase less its one closing round trip, so 0.9-1.0 of
# it, and no sample is empty.
rm -f "$REC"
mpi 2 $PP --test latency -m 8:8 -x 0 -i 2000 --json "$REC"
share=$(json "$REC" '"%.4f %g" % (r["results"]["latency"][0]["avg_us"] * 2 * 2000 / 1e6 / r["phases"]["latency"]["max"], r["results"]["latency"][0]["min_us"])')
check "pingpong latency: the samples cover the timed loop (share and shortest sample: $share)" \
  python3 -c "import sys; s, m = map(float, sys.argv[1:3]); raise SystemExit(0 if 0.9 <= s <= 1.0 and m > 0 else 1)" $share

# --handshake: hpcc's PingPong protocol, each sample a round trip after a
# handshake and an untimed round trip (2 per sample, warm-up included);
# back to back, one round trip a sample and one closing round trip
rm -f "$REC" "$REC.b2b"
mpi 2 $PP --test latency -m 8:8 --handshake -x 2 -i 20 --json "$REC"
rc=$?
check "pingpong --handshake names hpcc's protocol above its columns" grep -q "^# latency: .*(--handshake: hpcc's protocol, loops of 1)" "$OUT_FILE"
mpi 2 $PP --test latency -m 8:8 -x 2 -i 20 --json "$REC.b2b"
check "pingpong --handshake: 2 round trips a sample (88 messages against 46 back to back), protocol in the record (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["latency_protocol"] == "handshake" and r["comm"]["latency"]["messages"] == 2 * 2 * 22')$(json "$REC.b2b" 'r["params"]["latency_protocol"] == "back to back" and r["comm"]["latency"]["messages"] == 2 * 23')" = truetrue ]
# --loop 8: hpcc's latency loops, 8 timed round trips a sample after the
# untimed one, each sample their mean
rm -f "$REC"
mpi 2 $PP --test latency -m 8:8 --handshake --loop 8 -x 2 -i 20 --json "$REC"
rc=$?
check "pingpong --handshake --loop 8: 9 round trips a sample (396 messages), the loop in the record, PASS (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["latency_loop"] == 8 and r["comm"]["latency"]["messages"] == 2 * 9 * 22 and r["results"]["latency"][0]["min_us"] > 0')" = true ]
mpi 2 $PP --test latency --loop 8
rc=$?
check "pingpong --loop without --handshake: refused, naming both (exit $rc)" \
  [ $rc -eq 2 -a "$(grep -c 'option --loop: a loop of 8 round trips needs --handshake' "$OUT_FILE")" -ge 1 ]

rm -f "$REC"
mpi 1 $PP --test allreduce -m 4:1K -i 20 -x 2 --json "$REC"
check "pingpong allreduce on 1 rank: PASS, sizes from 4 B" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["allreduce"][0]["size"] == 4')" = true ]
rm -f "$REC"
mpi 4 $PP --test bw --pairs all -m 1K:1K -i 20 -x 2 --json "$REC"
check "pingpong --pairs all on 4 ranks: 2 pairs measured" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["results"]["pair"]["pairs"] == 2')" = true ]
rm -f "$REC"
mpi 3 $PP --test latency -m 0:3M -i 10 -x 1 --validate --json "$REC"
check "pingpong --validate, sizes 0 to 3M (MIN, powers of two, MAX): PASS" \
  [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and [p["size"] for p in r["results"]["latency"]][:3] == [0, 1, 2] and r["results"]["latency"][-1]["size"] == 3145728 and any(c["name"] == "message_bytes_wrong" for c in r["validation"]["checks"])')" = true ]
# -m as OSU's: MAX alone from the default MIN (1), MIN: alone to the default MAX (8M)
rm -f "$REC" "$REC.max"
mpi 2 $PP --test latency -m 16 -i 10 -x 1 --json "$REC.max"
mpi 2 $PP --test latency -m 2M: -i 10 -x 1 --json "$REC"
check "pingpong -m 16 measures 1 to 16 B, -m 2M: 2M to 8M (OSU's [MIN:]MAX)" \
  [ "$(json "$REC.max" '[p["size"] for p in r["results"]["latency"]] == [1, 2, 4, 8, 16]')$(json "$REC" '[p["size"] for p in r["results"]["latency"]] == [2097152, 4194304, 8388608]')" = truetrue ]
# --test takes a list; 'all' in it means every test
rm -f "$REC.list"
mpi 2 $PP --test bw,all -m 8 -i 10 -x 1 --json "$REC.list"
check "pingpong --test bw,all runs the four tests" \
  [ "$(json "$REC.list" 'sorted(k for k in ("latency", "bw", "bibw", "allreduce") if r["results"].get(k))' 2>&1)" = "['allreduce', 'bibw', 'bw', 'latency']" ]
# the buffers' pages (two of 8 MiB and 2 MiB more a rank), the messages checked
rm -f "$REC.4k"
mpi 2 $PP --test latency -m 2M: -i 10 -x 1 --validate --no-huge-pages --json "$REC.4k"
check_pages "pingpong's buffers" "$REC" "$REC.4k"

# -W as OSU's window size: 8 messages in flight up to 8 MiB per window,
# fewer past it (each message has its own receive buffer); validated data
rm -f "$REC"
mpi 2 $PP --test bw,bibw -m 1M:16M -W 8 -i 4 -x 1 --validate --json "$REC"
rc=$?
check "pingpong -W 8: windows of 8 at 1 MiB to 8 MiB, 4 at 16 MiB, in bw and bibw, PASS (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["window"] == 8 and all([p["window"] for p in r["results"][t]] == [8, 8, 8, 8, 4] for t in ("bw", "bibw"))')" = true ]

# Above 8 KiB a tenth of -i (at least 10) and of -x, or --large-iterations
# and --large-warmup (OSU's counts in one launch): 4 and 8 KiB 3 + 30 + 1
# round trips each, 16 KiB 0 + 10 + 1, or 1 + 7 + 1; resolved in the record
rm -f "$REC" "$REC.large"
mpi 2 $PP --test latency -m 4K:16K -i 30 -x 3 --json "$REC"
mpi 2 $PP --test latency -m 4K:16K -i 30 -x 3 --large-iterations 7 --large-warmup 1 --json "$REC.large"
check "pingpong above 8 KiB: a tenth of -i and -x by default, --large-iterations and --large-warmup when given, resolved in the record" \
  [ "$(json "$REC" 'r["comm"]["latency"]["messages"] == 2 * (34 + 34 + 11) and r["params"]["large-iterations"] == 10 and r["params"]["large-warmup"] == 0')$(json "$REC.large" 'r["comm"]["latency"]["messages"] == 2 * (34 + 34 + 9) and r["params"]["large-iterations"] == 7')" = truetrue ]

# --receive-buffers one, as OSU's osu_bw and osu_bibw: every receive of a
# window into one buffer, so -W holds at every size; data still validated
rm -f "$REC"
mpi 2 $PP --test bw,bibw -m 1M:16M -W 8 -i 4 -x 1 --validate --receive-buffers one --json "$REC"
rc=$?
check "pingpong --receive-buffers one: windows of 8 up to 16 MiB in bw and bibw, named in the record, PASS (exit $rc)" \
  [ $rc -eq 0 -a "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["params"]["receive_buffers"] == "one" and all([p["window"] for p in r["results"][t]] == [8] * 5 for t in ("bw", "bibw"))')" = true ]

for t in latency bw bibw allreduce "latency --handshake" "latency --handshake --loop 4" \
  "bw --receive-buffers one" "bibw --receive-buffers one"; do
  rm -f "$REC"
  FABRICBENCH_TEST_HOOK=pingpong_corrupt mpi 2 $PP --test $t -m 64:64 -i 10 -x 1 --validate --json "$REC"
  rc=$?
  check "pingpong --validate catches a corrupted $t message (exit $rc, FAIL)" \
    [ "$rc" -eq 1 -a "$(json "$REC" 'r["validation"]["status"]')" = FAIL ]
done


# Memory: a latency run holds its largest message, not the bandwidth
# windows (2 x 64 MiB a rank at 4 MiB messages). The ranks' peak resident
# memory (peak_mb, tests/lib.sh).
lat_mb=$(LIMIT=120 peak_mb 2 $PP --test latency -m 4M:4M -i 5 --quiet)
bw_mb=$(LIMIT=120 peak_mb 2 $PP --test bw -m 4M:4M -i 5 --quiet)
one_mb=$(LIMIT=120 peak_mb 2 $PP --test bw -m 4M:4M -i 5 --receive-buffers one --quiet)
check "pingpong's peak memory a rank: latency at 4 MiB $lat_mb MB, at least 100 MB under bw's $bw_mb MB" \
  sh -c "[ '$lat_mb' != failed ] && [ '$bw_mb' != failed ] && [ \$(($bw_mb - $lat_mb)) -ge 100 ]" 2>/dev/null
check "pingpong's peak memory a rank: bw with one receive buffer at 4 MiB $one_mb MB, at least 100 MB under $bw_mb MB" \
  sh -c "[ '$one_mb' != failed ] && [ '$bw_mb' != failed ] && [ \$(($bw_mb - $one_mb)) -ge 100 ]" 2>/dev/null
