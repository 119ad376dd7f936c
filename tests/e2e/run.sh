# tests/e2e/run.sh: run/suite, run/compare and run/scaling on real records
# (sourced by tests/run-tests).
RES="$TMPDIR_T/results"
rm -rf "$RES"
suite() { timeout -k 5 300 run/suite --results "$RES" --profile tiny "$@" >"$OUT_FILE" 2>&1; }
compare() { timeout -k 5 120 run/compare "$@" >"$OUT_FILE" 2>"$OUT_FILE.err"; }

suite --label one --np 1 --repeat 2; rc1=$?
suite --label two --np 2 --repeat 3; rc2=$?
check "suite at 1 and 2 ranks exits 0 and writes every record" \
  [ $rc1 -eq 0 -a $rc2 -eq 0 -a -s "$RES/one/himeno.jsonl" -a -s "$RES/two/pingpong.jsonl" ]
check "suite keeps the exact command of each run" \
  [ "$(json "$RES/two/runs.jsonl" 'len(lines) == 3 * len({json.loads(l)["app"] for l in lines}) >= 9 and all("--json" in json.loads(l)["command"] for l in lines)')" = true ]

compare "$RES/one" "$RES/two" --format json; rc=$?
expected=$(python3 - "$RES" <<'PY'
import json, statistics, sys
fom = lambda p: [json.loads(l)["fom"]["value"] for l in open(p) if l.strip()]
for app in ("himeno", "stream"):
    one = statistics.median(fom("%s/one/%s.jsonl" % (sys.argv[1], app)))
    two = statistics.median(fom("%s/two/%s.jsonl" % (sys.argv[1], app)))
    print("%s %.9f" % (app, 100 * two / (2 * one)))
PY
)
got=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for app in ("himeno", "stream"):
    print("%s %.9f" % (app, r["apps"][app]["labels"]["two"]["percent_of_2x"]))' "$OUT_FILE" 2>&1)
check "compare: percent of 2x equals the hand computation from the records ($got)" \
  [ $rc -eq 0 -a -n "$expected" -a "$got" = "$expected" ]
check "compare: CI over 3 repeats and the phase split" \
  [ "$(json "$OUT_FILE" 'r["apps"]["himeno"]["labels"]["two"]["ci95"] is not None and abs(sum(r["apps"]["himeno"]["labels"]["two"]["split"].values()) - 1) < 1e-9 and r["apps"]["himeno"]["labels"]["two"]["split"]["comm"] > 0')" = true ]
for fmt in text markdown csv; do
  compare "$RES/one" "$RES/two" --format $fmt
  check "compare --format $fmt names both apps" sh -c "[ $? -eq 0 ] && grep -q himeno '$OUT_FILE' && grep -q stream '$OUT_FILE'"
done
rm -f "$TMPDIR_T/plot.png"
if py_has matplotlib; then
  compare "$RES/one" "$RES/two" --plot "$TMPDIR_T/plot.png"
  check "compare --plot writes a PNG" sh -c "head -c 8 '$TMPDIR_T/plot.png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
else
  skip "compare --plot" "/usr/bin/python3 lacks matplotlib"
fi

# Refusals, each naming the file and line.
FABRICBENCH_TEST_HOOK=himeno_perturb suite --label bad --np 2 --apps himeno; rc=$?
check "suite with a failing app exits non-zero (got $rc)" [ $rc -ne 0 ]
compare "$RES/one" "$RES/bad"; rc=$?
check "compare refuses a FAIL record (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'bad/himeno.jsonl:1: validation FAIL' '$OUT_FILE.err'"
compare "$RES/one" "$RES/bad" --skip-invalid; rc=$?
check "compare --skip-invalid leaves it out and says so" sh -c "grep -q 'left out' '$OUT_FILE.err'"
mkdir -p "$RES/other"
python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).readline()); r["params"]["size"] = "S"
open(sys.argv[2], "w").write(json.dumps(r) + "\n")' "$RES/two/himeno.jsonl" "$RES/other/himeno.jsonl"
compare "$RES/one" "$RES/other"; rc=$?
check "compare refuses records of a different problem (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'other/himeno.jsonl:1: himeno problem' '$OUT_FILE.err'"
mkdir -p "$RES/empty" "$RES/corrupt"
: > "$RES/empty/himeno.jsonl"
compare "$RES/one" "$RES/empty"; rc=$?
check "compare refuses an empty file (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'empty/himeno.jsonl: no records' '$OUT_FILE.err'"
{ head -n 1 "$RES/two/himeno.jsonl"; echo '{"schema": "fabricbench.run/1", "app": "himeno", "trunc'; } > "$RES/corrupt/himeno.jsonl"
compare "$RES/one" "$RES/corrupt"; rc=$?
check "compare refuses a corrupt line (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'corrupt/himeno.jsonl:2: not a JSON record' '$OUT_FILE.err'"

# A suite with one failing app still writes the others.
FABRICBENCH_TEST_HOOK=stream_corrupt suite --label mixed --np 2; rc=$?
check "suite with a FAIL app exits non-zero (got $rc) and still writes the others" \
  [ $rc -ne 0 -a "$(json "$RES/mixed/himeno.jsonl" 'r["validation"]["status"]')" = PASS -a "$(json "$RES/mixed/runs.jsonl" 'all((json.loads(l)["status"] == "FAIL") == (json.loads(l)["app"] == "stream") for l in lines) and len(lines) >= 3')" = true ]

rm -f "$TMPDIR_T/scaling.png"
plot=""; py_has matplotlib && plot="--plot $TMPDIR_T/scaling.png"
timeout 300 run/scaling --app himeno --np 1,2 --size XS --iterations 20 --results "$RES" $plot >"$OUT_FILE" 2>&1; rc=$?
if [ -n "$plot" ]; then
  check "scaling --plot writes a PNG" sh -c "head -c 8 '$TMPDIR_T/scaling.png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
else
  skip "scaling --plot" "/usr/bin/python3 lacks matplotlib"
fi
check "scaling: strong sweep at 1 and 2 ranks, speedup 1 at 1 rank, fitted serial fraction" \
  [ $rc -eq 0 -a "$(json "$RES/scaling-himeno-strong/summary.json" 'len(r["points"]) == 2 and r["points"][0]["speedup"] == 1 and 0 <= r["serial_fraction"] <= 1')" = true ]
timeout 300 run/scaling --app himeno --np 1,2 --weak --size XS --iterations 20 --results "$RES" >"$OUT_FILE" 2>&1; rc=$?
check "scaling --weak: the problem grows with the ranks (Gustafson)" \
  [ $rc -eq 0 -a "$(json "$RES/scaling-himeno-weak/summary.json" 'r["law"] == "Gustafson"')" = true ]

for tool in suite compare scaling; do
  check "run/$tool --help" sh -c "run/$tool --help >/dev/null"
done
run/suite --label x --np 0 >"$OUT_FILE" 2>&1; rc=$?
check "suite --np 0: one line, exit 2" sh -c "[ $rc -eq 2 ] && [ \$(grep -c 'error:' '$OUT_FILE') -eq 1 ]"
run/suite --label x --apps foo >"$OUT_FILE" 2>&1; rc=$?
check "suite --apps foo: exit 2" [ $rc -eq 2 ]
run/scaling --app himeno --np 1,x >"$OUT_FILE" 2>&1; rc=$?
check "scaling --np 1,x: exit 2" [ $rc -eq 2 ]
run/suite --label x --np 2 --emulate 1gbe --emulate-nodes 3 >"$OUT_FILE" 2>&1; rc=$?
check "suite --emulate-nodes 3 with --np 2: one line, exit 2" sh -c "[ $rc -eq 2 ] && grep -q 'does not split over 3 nodes' '$OUT_FILE'"
run/suite --label x --np 2 --emulate 40gbe >"$OUT_FILE" 2>&1; rc=$?
check "suite --emulate 40gbe: exit 2 naming the profiles" sh -c "[ $rc -eq 2 ] && grep -q 'not loopback, 1gbe' '$OUT_FILE'"
run/suite --label x --np 2 --hosts "$TMPDIR_T/no-hostfile" >"$OUT_FILE" 2>&1; rc=$?
check "suite --hosts with a missing file: exit 2" sh -c "[ $rc -eq 2 ] && grep -q 'no such file' '$OUT_FILE'"
