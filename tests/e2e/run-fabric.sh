# tests/e2e/run-fabric.sh: the MPI-level injector, run/suite --emulate,
# run/predict, and the network-namespace cluster (sourced by tests/run-tests).
EMU="$SPACED/run/fabric-emu"  # through a path with a space (tests/lib.sh)
REC="$TMPDIR_T/fabric.jsonl"

# The injector: alpha = 50 us and beta = 125 MB/s between two virtual nodes,
# seen by pingpong within 10%. Noise on a shared machine only adds time, so
# up to three tries: one clean run shows what the injector does.
for try in 1 2 3; do
  rm -f "$REC"
  "$EMU" inject --alpha 50 --beta 125 --ranks-per-node 1 -- \
    timeout -k 5 120 "$MPIRUN" -np 2 pingpong/pingpong --test latency -m 1:1M -i 20 -x 2 --json "$REC" >"$OUT_FILE" 2>&1 </dev/null
  fit=$(json "$REC" '"%.2f us %.1f MB/s" % (r["results"]["fit"]["alpha_us"], r["results"]["fit"]["beta_mbs"])' 2>/dev/null)
  within=$(json "$REC" 'abs(r["results"]["fit"]["alpha_us"] - 50) <= 5 and abs(r["results"]["fit"]["beta_mbs"] - 125) <= 12.5' 2>/dev/null)
  [ "$within" = true ] && break
done
check "injector at alpha 50 us, beta 125 MB/s: pingpong fits $fit, both within 10% (try $try of 3)" [ "$within" = true ]

# The user's locale does not change the numbers: under one with a decimal
# comma (de_DE, built here by localedef), the 1gbe profile's beta still
# reaches the injector as 117.0 (awk wrote "117,0", which it read as 117).
LOC="$TMPDIR_T/locale"
mkdir -p "$LOC"
if localedef -i de_DE -f UTF-8 "$LOC/de_DE.UTF-8" >/dev/null 2>&1 &&
   [ "$(LOCPATH="$LOC" LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null)" = , ]; then
  # shellcheck disable=SC2016
  beta=$(LOCPATH="$LOC" LC_ALL=de_DE.UTF-8 "$EMU" inject --profile 1gbe -- sh -c 'echo "$FB_INJECT_BETA_MBS"')
  check "fabric-emu inject under a decimal-comma locale: beta '$beta' MB/s, with a point" [ "$beta" = 117.0 ]
else
  skip "a decimal-comma locale" "localedef cannot build de_DE.UTF-8 here (Debian's locales package)"
fi

# Set by hand, a value the injector cannot read is refused, not misread
# ("12,5" was read as 12): exit 2, one line naming the variable.
FB_INJECT_ALPHA_US=50 FB_INJECT_BETA_MBS=12,5 timeout -k 5 60 "$MPIRUN" -np 2 -x LD_PRELOAD=libfbinject.so \
  -x LD_LIBRARY_PATH="$PWD/build" -x FB_INJECT_ALPHA_US -x FB_INJECT_BETA_MBS himeno/bmt -s XS -n 5 --quiet \
  >"$OUT_FILE" 2>&1 </dev/null; rc=$?
check "injector with FB_INJECT_BETA_MBS=12,5: exit 2 (got $rc), one line naming it" \
  sh -c "[ $rc -eq 2 ] && [ \$(grep -c '^fbinject: error' '$OUT_FILE') -eq 1 ] && grep -q \"FB_INJECT_BETA_MBS='12,5' is not a number\" '$OUT_FILE'"

# The same answer with and without it.
rm -f "$REC"
mpi 2 himeno/bmt -s XS -n 100 --json "$REC" --quiet
plain=$(json "$REC" 'r["results"]["checksum"]')
plain_halo=$(json "$REC" 'r["phases"]["halo"]["max"]')
"$EMU" inject --profile 1gbe --ranks-per-node 1 -- \
  timeout -k 5 120 "$MPIRUN" -np 2 himeno/bmt -s XS -n 100 --json "$REC" --quiet >"$OUT_FILE" 2>&1 </dev/null
check "himeno XS through the injector: PASS, same checksum ($plain)" \
  [ "$(json "$REC" 'r["validation"]["status"]')" = PASS -a "$(json "$REC" 'r["results"]["checksum"]')" = "$plain" ]
check "injector: the halo exchange takes longer than without it" \
  [ "$(json "$REC" "r['phases']['halo']['max'] > 2 * $plain_halo")" = true ]

# Two virtual nodes on 1gbe give a lower percent of 2x than on loopback.
ERES="$TMPDIR_T/emulated"
rm -rf "$ERES"
# Medians over three runs each: one slow run on a busy CI machine must not decide it.
for spec in one:1: loop:2:inject:loopback gbe:2:inject:1gbe; do
  label=${spec%%:*}; rest=${spec#*:}; np=${rest%%:*}; emu=${rest#*:}
  timeout -k 5 300 "$SPACED/run/suite" --results "$ERES" --label "$label" --np "$np" --profile tiny --apps himeno --repeat 3 \
    ${emu:+--emulate "$emu"} >"$OUT_FILE" 2>&1 </dev/null || not_ok "suite $label" "$(cat "$OUT_FILE")"
done
timeout 60 run/compare "$ERES/one" "$ERES/loop" "$ERES/gbe" --format json >"$OUT_FILE" 2>&1
check "emulated 1gbe gives a lower percent of 2x than loopback ($(json "$OUT_FILE" '"%.1f%% vs %.1f%%" % (r["apps"]["himeno"]["labels"]["gbe"]["percent_of_2x"], r["apps"]["himeno"]["labels"]["loop"]["percent_of_2x"])'))" \
  [ "$(json "$OUT_FILE" 'r["apps"]["himeno"]["labels"]["gbe"]["percent_of_2x"] < r["apps"]["himeno"]["labels"]["loop"]["percent_of_2x"]')" = true ]

# predict: a synthetic case with a known answer. Loop 1.2 s, halo 0.2 s on
# the slowest rank and 0.1 s on the fastest (the transfer), 1000 messages and
# 1e8 bytes per rank; on alpha = 100 us, beta = 1e8 B/s the transfer costs
# 0.1 + 1.0 = 1.1 s, so the loop takes 1.2 - 0.1 + 1.1 = 2.2 s.
# The synthetic records are real ones (they must validate) with the numbers set.
python3 - "$TMPDIR_T" "$ERES/one/himeno.jsonl" <<'PY'
import copy, json, sys
d = sys.argv[1]
real = json.loads(open(sys.argv[2]).readline())
def rec(**kw):
    r = copy.deepcopy(real)
    for k, v in kw.items():
        if isinstance(v, dict) and isinstance(r.get(k), dict) and k not in ("phases", "comm"):
            r[k].update(v)
        else:
            r[k] = v
    return r
pp = rec(app="pingpong", ranks=2, fom={"value": 1.0, "unit": "MB/s"}, phases={}, comm={},
         results={"fit": {"alpha_us": 100.0, "beta_mbs": 100.0}})
app = rec(ranks=2, wall_s=1.2, fom={"value": 1200.0},
          phases={"compute": {"min": 0.9, "avg": 0.95, "max": 1.0, "calls": 1},
                  "halo": {"min": 0.1, "avg": 0.15, "max": 0.2, "calls": 1}},
          comm={"halo": {"messages": 2000, "bytes": 200000000}})
single = rec(ranks=1, fom={"value": 700.0})
# the recorded fabric: 1 us and 2e9 B/s, so the record's transfer was
# 1000 x 1 us + 1e8 / 2e9 = 0.051 s of its 0.1 s halo (the rest packing)
source = rec(app="pingpong", ranks=2, fom={"value": 1.0, "unit": "MB/s"}, phases={}, comm={},
             results={"fit": {"alpha_us": 1.0, "beta_mbs": 2000.0}})
# critical path twice the messages sent (ranks that wait for one they do not send)
path = rec(ranks=2, wall_s=1.2, fom={"value": 1200.0}, phases=app["phases"],
           comm={"halo": {"messages": 2000, "bytes": 200000000, "path_messages": 4000,
                          "path_bytes": 400000000}})
# a measured latency curve that bends (a shaper's burst: 50 us flat to 4 KiB,
# then 5 us a KB), with a fit that is not it; the app's halo at a mean size
# of 150000 bytes (halfway between two measured sizes) and of 400000 (twice
# the largest)
curve = [(1, 50.0), (4096, 50.0), (100000, 600.0), (200000, 1100.0)]
ppc = rec(app="pingpong", ranks=2, fom={"value": 1.0, "unit": "MB/s"}, phases={}, comm={},
          results={"fit": {"alpha_us": 100.0, "beta_mbs": 100.0},
                   "latency": [{"size": n, "avg_us": t} for n, t in curve]})
mid = rec(ranks=2, wall_s=1.2, fom={"value": 1200.0}, phases=app["phases"],
          comm={"halo": {"messages": 2000, "bytes": 300000000}})
beyond = rec(ranks=2, wall_s=1.2, fom={"value": 1200.0}, phases=app["phases"],
             comm={"halo": {"messages": 2000, "bytes": 800000000}})
# a curve that stops in the latency-bound sizes (the tiny profile's, to
# 1 KiB: almost flat), and the halo at 8192 bytes a message past it
flat = [(1, 50.0), (512, 50.5), (1024, 51.0)]
ppf = rec(app="pingpong", ranks=2, fom={"value": 1.0, "unit": "MB/s"}, phases={}, comm={},
          results={"fit": {"alpha_us": 50.0, "beta_mbs": 100.0},
                   "latency": [{"size": n, "avg_us": t} for n, t in flat]})
small = rec(ranks=2, wall_s=1.2, fom={"value": 1200.0}, phases=app["phases"],
            comm={"halo": {"messages": 2000, "bytes": 16384000}})
for name, r in (("pp", pp), ("app", app), ("single", single), ("source", source), ("path", path),
                ("ppc", ppc), ("mid", mid), ("beyond", beyond), ("ppf", ppf), ("small", small)):
    open("%s/predict-%s.jsonl" % (d, name), "w").write(json.dumps(r) + "\n")
# several runs a file (the suite's repeats): their medians, not the last
for name, r, foms in (("singles", single, (700.0, 100.0, 900.0)), ("apps", app, (1200.0, 100.0, 5000.0))):
    with open("%s/predict-%s.jsonl" % (d, name), "w") as f:
        for v in foms:
            f.write(json.dumps(dict(r, fom=dict(r["fom"], value=v))) + "\n")
PY
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-app.jsonl" \
  --baseline "$TMPDIR_T/predict-single.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict: 2.2 s loop, FOM 1200 x 1.2 / 2.2, percent of 2x from it" \
  [ "$(json "$OUT_FILE" 'abs(r["prediction"]["loop_s_predicted"] - 2.2) < 1e-9 and abs(r["prediction"]["fom"] - 1200 * 1.2 / 2.2) < 1e-6 and abs(r["percent_of_2x_predicted"] - 100 * 1200 * 1.2 / 2.2 / 1400) < 1e-6')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-app.jsonl" \
  --source-pingpong "$TMPDIR_T/predict-source.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict --source-pingpong: only the recorded fabric's modeled transfer leaves the loop (1.2 - 0.051 + 1.1 = 2.249 s)" \
  [ "$(json "$OUT_FILE" 'abs(r["prediction"]["loop_s_predicted"] - 2.249) < 1e-9 and r["prediction"]["recorded_transfer_from"] == "source fabric model"')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-path.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict costs the critical path, not the messages sent (1.2 - 0.1 + 0.2 + 2.0 = 3.3 s)" \
  [ "$(json "$OUT_FILE" 'abs(r["prediction"]["loop_s_predicted"] - 3.3) < 1e-9')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-ppc.jsonl" --record "$TMPDIR_T/predict-mid.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict reads a message's time off the pingpong's latency curve, linear between sizes (850 us at 150000 bytes: 1.2 - 0.1 + 0.85 = 1.95 s)" \
  [ "$(json "$OUT_FILE" 'abs(r["prediction"]["loop_s_predicted"] - 1.95) < 1e-9 and "latency curve (4 sizes" in r["model"]')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-ppc.jsonl" --record "$TMPDIR_T/predict-beyond.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict past the curve's largest size, bandwidth-bound there: its last segment's slope (1100 us + 200000 x 5 ns = 2100 us at 400000 bytes: 3.2 s), and says so" \
  [ "$(json "$OUT_FILE" 'abs(r["prediction"]["loop_s_predicted"] - 3.2) < 1e-9 and r["prediction"]["past_curve"] == {"halo": 400000}')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-ppf.jsonl" --record "$TMPDIR_T/predict-small.jsonl" >"$OUT_FILE" 2>&1
loop=$(sed -n 's/.*(predicted), loop \([0-9.]*\) s$/\1/p' "$OUT_FILE")
check "predict past a curve that stops latency-bound: the fit's beta, not the largest size's bandwidth (1.2 - 0.1 + 1000 x (51 us + 7168 x 10 ns) at 8192 bytes: 1.2227 s, not 1.508 at 1 KiB's 20 MB/s), and the words say so (loop $loop s)" \
  sh -c "[ '$loop' = 1.2227 ] && grep -q \"halo's messages (8192 bytes) lie past the curve's largest size (1024 bytes): each byte more costed at 100.0 MB/s\" '$OUT_FILE'"
run/predict --model fit --pingpong "$TMPDIR_T/predict-ppc.jsonl" --record "$TMPDIR_T/predict-mid.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict --model fit: the same messages by the fit alpha + n / beta (1000 x (100 us + 1.5 ms) = 1.6 s: 2.7 s)" \
  [ "$(json "$OUT_FILE" 'abs(r["prediction"]["loop_s_predicted"] - 2.7) < 1e-9 and "fit T(n)" in r["model"]')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-app.jsonl" \
  --baseline "$TMPDIR_T/predict-single.jsonl" --measured "$TMPDIR_T/predict-app.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict --measured puts the measurement beside the prediction" \
  [ "$(json "$OUT_FILE" 'r["measured_fom"] == 1200 and abs(r["percent_of_2x_measured"] - 100 * 1200 / 1400) < 1e-9')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-apps.jsonl" \
  --baseline "$TMPDIR_T/predict-singles.jsonl" --measured "$TMPDIR_T/predict-apps.jsonl" --format json >"$OUT_FILE" 2>&1
check "predict on files of three runs takes their medians, as run/compare does (700 and 1200, not the last, 900 and 5000)" \
  [ "$(json "$OUT_FILE" 'r["baseline_fom"] == 700 and r["measured_fom"] == 1200 and abs(r["percent_of_2x_measured"] - 100 * 1200 / 1400) < 1e-9 and abs(r["prediction"]["fom"] - 1200 * 1.2 / 2.2) < 1e-6')" = true ]
run/predict --pingpong "$TMPDIR_T/predict-app.jsonl" --record "$TMPDIR_T/predict-app.jsonl" >"$OUT_FILE" 2>&1; rc=$?
check "predict refuses a non-pingpong fabric record (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'not pingpong' '$OUT_FILE'"
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --source-pingpong "$TMPDIR_T/predict-app.jsonl" \
  --record "$TMPDIR_T/predict-app.jsonl" >"$OUT_FILE" 2>&1; rc=$?
check "predict refuses a --source-pingpong that is not a pingpong record: one line naming it (exit $rc)" \
  sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$OUT_FILE') -eq 1 ] && grep -q -- '--source-pingpong .*not pingpong' '$OUT_FILE'"
sed 's/"app": "himeno"/"app": "stream"/' "$TMPDIR_T/predict-single.jsonl" > "$TMPDIR_T/predict-other.jsonl"
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-app.jsonl" \
  --baseline "$TMPDIR_T/predict-other.jsonl" >"$OUT_FILE" 2>&1; rc=$?
check "predict refuses a baseline of another app, in one line (exit $rc)" \
  sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$OUT_FILE') -eq 1 ] && grep -q 'a stream record, not himeno' '$OUT_FILE'"
run/predict --pingpong "$TMPDIR_T/predict-pp.jsonl" --record "$TMPDIR_T/predict-nothing.jsonl" >"$OUT_FILE" 2>&1; rc=$?
check "predict with a missing file: one line, exit 2 (got $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'no such file' '$OUT_FILE'"

# run/bench-predict end to end: md's shear box (open in x, so its end ranks
# wait for messages they do not send) predicted for the injector's 1gbe from
# a shared-memory record. Counting only the messages sent, the prediction
# was 53% optimistic on this case; the critical path brings it within 10%
# here, within 25% allowed for a busy host, and a second try when the first
# is off (one CI run measured the emulated run 56% slower than predicted,
# where alone, before and after, it was within 2.1%).
for try in 1 2; do
  timeout 300 env REPEAT=1 PROFILES=1gbe run/bench-predict md >"$OUT_FILE" 2>&1; rc=$?
  err=$(awk '$1 == "md" && $2 == "1gbe" { e = $(NF - 2); sub(/%/, "", e); print e }' "$OUT_FILE")
  within=$(awk -v rc="$rc" -v e="${err:-none}" 'BEGIN { print (rc == 0 && e != "none" && e > -25 && e < 25) ? "true" : "false" }')
  [ "$within" = true ] || [ $try -eq 2 ] || continue
  check "bench-predict md on 1gbe: predicted FOM within 25% of the measured (error ${err:-none}%, exit $rc, try $try of 2)" \
    [ "$within" = true ]
  break
done
run/bench-predict stream >"$OUT_FILE" 2>&1; rc=$?
check "bench-predict with an app it does not know: one line, exit 2 (got $rc)" \
  sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$OUT_FILE') -eq 1 ] && grep -q \"unknown app 'stream'\" '$OUT_FILE'"

# The network-namespace cluster, where this machine allows it (FB_NETNS from
# tests/host-facts: run/fabric-emu probe).
if ! "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
  skip "network-namespace cluster" "it launches with Open MPI's rsh agent"
elif [ "$(id -u)" -ne 0 ]; then
  skip "network-namespace cluster" "needs root (CAP_NET_ADMIN)"
  "$EMU" up >"$OUT_FILE" 2>&1; rc=$?
  check "fabric-emu up without privilege: one line naming the injector, exit 2" \
    sh -c "[ $rc -eq 2 ] && grep -q 'inject' '$OUT_FILE'"
elif [ "${FB_NETNS:-no}" != yes ]; then
  skip "network-namespace cluster" "${FB_NETNS#no: }"
else
  "$EMU" up --profile 1gbe >"$OUT_FILE" 2>&1
  check "fabric-emu up: two hosts with their addresses and a 1 Gbit/s tbf" \
    sh -c "ip -n fb-h0 -4 addr show eth0 | grep -q 10.213.0.1/24 && ip -n fb-h1 -4 addr show eth0 | grep -q 10.213.0.2/24 && tc -n fb-h1 qdisc show dev eth0 | grep -q 'tbf.*rate 1Gbit'"
  args=$("$EMU" mpirun-args)
  rm -f "$REC"
  # shellcheck disable=SC2086
  timeout -k 5 120 "$MPIRUN" -np 2 $args himeno/bmt -s XS -n 100 --json "$REC" >"$OUT_FILE" 2>&1 </dev/null
  check "himeno XS across the emulated hosts: PASS, same checksum, 2 nodes, bytes on eth0" \
    [ "$(json "$REC" 'r["validation"]["status"] == "PASS" and r["nodes"] == 2 and r["fabric"]["interfaces"]["h1"]["eth0"]["tx_bytes"] > 100000')" = true -a "$(json "$REC" 'r["results"]["checksum"]')" = "$plain" ]
  rm -f "$REC"
  # shellcheck disable=SC2086
  timeout -k 5 120 "$MPIRUN" -np 2 $args -x LD_PRELOAD=libfbinject.so -x LD_LIBRARY_PATH="$PWD/build" -x FB_INJECT_ALPHA_US=50 -x FB_INJECT_BETA_MBS=0 \
    pingpong/pingpong --test latency -m 1:4M -i 20 -x 2 --json "$REC" >"$OUT_FILE" 2>&1 </dev/null
  gbe=$(json "$REC" '"%.1f %.1f" % (r["results"]["latency"][0]["avg_us"], 4194304 / r["results"]["latency"][-1]["avg_us"])')
  # a 256 KiB message pays its time on a 1 Gbit/s wire (2097 us) less
  # tbf's burst: at least 85% of it (with the 1 ms burst of before 7
  # December 2026, about 1100 us)
  wire=$(json "$REC" '"%.0f" % next(x["avg_us"] for x in r["results"]["latency"] if x["size"] == 262144)')
  "$EMU" up --profile loopback >"$OUT_FILE" 2>&1
  rm -f "$REC"
  # shellcheck disable=SC2086
  timeout -k 5 120 "$MPIRUN" -np 2 $args pingpong/pingpong --test latency -m 1:4M -i 20 -x 2 --json "$REC" >"$OUT_FILE" 2>&1 </dev/null
  loop=$(json "$REC" '"%.1f %.1f" % (r["results"]["latency"][0]["avg_us"], 4194304 / r["results"]["latency"][-1]["avg_us"])')
  check "emulated 1gbe: latency above loopback's, bandwidth capped near 125 MB/s, 256 KiB as slow as on a wire (1gbe: $gbe, loopback: $loop us MB/s; 256 KiB: $wire us)" \
    python3 -c "g=[float(x) for x in '$gbe'.split()]; l=[float(x) for x in '$loop'.split()]; exit(not (g[0] > l[0] and 80 < g[1] <= 135 and l[1] > 200 and float('$wire') >= 0.85 * 262144 / 125e6 * 1e6))"
  "$EMU" up --hosts 3 --slots 2 --rate 500 --delay 0 >"$OUT_FILE" 2>&1
  check "fabric-emu up --hosts 3 --slots 2 --rate 500: three hosts, 500 Mbit/s, two slots each" \
    sh -c "[ \$('$EMU' status | grep -c '^fb-h') -eq 3 ] && tc -n fb-h2 qdisc show dev eth0 | grep -q 'rate 500Mbit' && grep -q 'h2 slots=2' /run/fabricbench-emu/hostfile"
  "$EMU" down
  check "fabric-emu down leaves no namespace, veth or bridge" \
    sh -c "! ip netns list | grep -q '^fb-' && ! ip link | grep -qE 'fb-(v|br)' && [ ! -e /run/fabricbench-emu ]"
  # Ctrl-C of a suite over the emulated cluster brings the cluster down and leaves no rank.
  timeout 120 run/suite --results "$ERES" --label sigint --np 2 --apps pingpong --profile standard \
    --emulate 1gbe >"$OUT_FILE" 2>&1 &
  spid=$!
  for _ in $(seq 100); do pgrep -f 'sigin[t]/pingpong.jsonl' >/dev/null && break; sleep 0.2; done
  sleep 1
  kill -INT $spid 2>/dev/null
  wait $spid; rc=$?
  check "suite --emulate on SIGINT: exit 130, the emulated cluster down, no rank left (exit $rc)" \
    sh -c "[ $rc -eq 130 ] && ! ip netns list | grep -q '^fb-' && [ ! -e /run/fabricbench-emu ] && ! pgrep -f 'sigin[t]/pingpong.jsonl' >/dev/null"
fi
