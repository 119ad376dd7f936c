# tests/e2e/run-slurm.sh: a real Slurm (Debian's slurmctld, slurmd, munged) on
# the emulated cluster, the campaign end to end, a cancelled job, and down
# leaving nothing (sourced by tests/run-tests; a run* script). Needs root,
# usable network namespaces (FB_NETNS) and run/install-deps --slurm.
if [ "$(id -u)" -ne 0 ]; then
  skip "Slurm on the emulated cluster" "needs root (network namespaces)"
elif [ "${FB_NETNS:-no}" != yes ]; then
  skip "Slurm on the emulated cluster" "network namespaces: ${FB_NETNS#no: }"
elif ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  skip "Slurm on the emulated cluster" "no slurmctld or munged (run/install-deps --slurm)"
elif ! awk '$2 ~ "^/sys/fs/cgroup" && $3 ~ /^cgroup2?$/ { f = 1 } END { exit !f }' /proc/self/mounts &&
  [ "$(slurmd -V | awk '{ split($NF, v, "."); print v[1] * 100 + v[2] }')" -lt 2405 ]; then
  skip "Slurm on the emulated cluster" "no cgroup file system under /sys/fs/cgroup, which $(slurmd -V) needs"
elif ! "$MPIRUN" --version 2>&1 | grep -q 'Open MPI'; then
  skip "Slurm on the emulated cluster" "srun --mpi=pmix starts Open MPI's ranks"
else
  SRES="$TMPDIR_T/slurm"
  rm -rf "$SRES"
  timeout 120 run/emu-slurm up --hosts 2 --profile loopback >"$OUT_FILE" 2>&1; rc=$?
  export SLURM_CONF=/run/fabricbench-emu/slurm/slurm.conf
  check "emu-slurm up: sinfo shows h0 and h1 idle (exit $rc)" \
    sh -c "[ $rc -eq 0 ] && [ \"\$(sinfo -h -N -t idle -o %N | sort -u | tr '\n' ' ')\" = 'h0 h1 ' ]"
  check "emu-slurm up: its config under /run/fabricbench-emu, /etc/slurm untouched" \
    sh -c "grep -q 'ProctrackType=proctrack/linuxproc' \$SLURM_CONF && grep -q 'TaskPlugin=task/none' \$SLURM_CONF && ! grep -rqs fabricbench /etc/slurm"
  check "srun -N 2 hostname prints h0 and h1" \
    sh -c "[ \"\$(timeout 60 srun -N 2 hostname | sort | tr '\n' ' ')\" = 'h0 h1 ' ]"

  # The campaign at the tiny profile, loopback against 1gbe, from the
  # checkout through a path with a space (the jobs' injector, tests/lib.sh).
  timeout 900 "$SPACED/run/slurm/campaign.sh" --profile tiny --repeat 2 --apps himeno,pingpong \
    --results "$SRES/c" loopback 1gbe >"$OUT_FILE" 2>&1; rc=$?
  check "campaign.sh: single-node, loopback and 1gbe jobs, then compare and report (exit $rc)" \
    sh -c "[ $rc -eq 0 ] && grep -q '^campaign: complete' '$SRES/c/compare.txt' && [ -s '$SRES/c/report.html' ]"
  facts=$(python3 - "$SRES/c" <<'PY'
import glob, json, sys
bad = []
for label in ("loopback", "1gbe"):
    for path in glob.glob("%s/%s/*.jsonl" % (sys.argv[1], label)):
        if path.endswith("runs.jsonl"):
            continue
        for line in open(path):
            r = json.loads(line)
            if r["hosts"] != ["h0", "h1"] or r["validation"]["status"] != "PASS":
                bad.append("%s: %s %s" % (path, r["hosts"], r["validation"]["status"]))
print("; ".join(bad) or "ok")
PY
)
  check "campaign: every two-node record came from h0 and h1 and PASSed ($facts)" [ "$facts" = ok ]
  timeout 60 run/compare "$SRES/c/single" "$SRES/c/loopback" "$SRES/c/1gbe" --format json >"$OUT_FILE" 2>&1
  check "campaign: 1gbe below loopback in pingpong bandwidth ($(json "$OUT_FILE" '"%.0f vs %.0f MB/s" % (r["apps"]["pingpong"]["labels"]["1gbe"]["median"], r["apps"]["pingpong"]["labels"]["loopback"]["median"])' 2>&1))" \
    [ "$(json "$OUT_FILE" 'r["apps"]["pingpong"]["labels"]["1gbe"]["median"] < r["apps"]["pingpong"]["labels"]["loopback"]["median"]')" = true ]
  check "campaign: 1gbe traffic crossed the emulated links (eth0 byte counters of h1)" \
    [ "$(json "$SRES/c/1gbe/pingpong.jsonl" 'r["fabric"]["interfaces"]["h1"]["eth0"]["tx_bytes"] > 100000')" = true ]

  # run/suite --slurm submits itself.
  timeout 30 run/suite --slurm --nodes 2 --np 2 --label self --profile tiny --apps himeno \
    --results "$SRES" --launcher "srun --mpi=pmix -n {np}" >"$OUT_FILE" 2>&1; rc=$?
  job=$(sed -n 's/^suite: submitted job \([0-9]*\).*/\1/p' "$OUT_FILE")
  for _ in $(seq 300); do squeue -h -j "$job" 2>/dev/null | grep -q . || break; sleep 0.2; done
  check "suite --slurm: a batch job on h0 and h1, PASS (exit $rc, job ${job:-none})" \
    [ -n "$job" -a "$(json "$SRES/self/himeno.jsonl" 'r["hosts"] == ["h0", "h1"] and r["validation"]["status"] == "PASS"' 2>/dev/null)" = true ]

  # Cancelled jobs are reported, each app they did not score as missing, never
  # compared partly: loopback cancelled while it waits for the single-node job
  # (it never ran: finish.sh's entry names its apps), the single-node job and
  # then 1gbe while their himeno runs (the suite records himeno interrupted
  # and pingpong not run; the single-node job skips pingpong on one rank a
  # node, and finish.sh's entry then does not list it).
  timeout 60 run/slurm/campaign.sh --no-wait --profile quick --repeat 1 --apps himeno,pingpong \
    --results "$SRES/k" 1gbe loopback >"$OUT_FILE" 2>&1
  victim=$(sed -n 's/.*1gbe:\([0-9]*\).*/\1/p' "$SRES/k/jobs")
  pending=$(sed -n 's/.*loopback:\([0-9]*\).*/\1/p' "$SRES/k/jobs")
  finish=$(sed -n 's/.*compare:\([0-9]*\).*/\1/p' "$SRES/k/jobs")
  pending_state=$(squeue -h -j "$pending" -o %T 2>/dev/null) failed_before=$FAILED
  single=$(sed -n 's/.*single:\([0-9]*\).*/\1/p' "$SRES/k/jobs")
  rpn=$(sinfo -h -o '%c' | sort -n | head -n 1)
  scancel "$pending"
  for _ in $(seq 600); do pgrep -f "himeno/bmt .*$SRES/k/single/himeno.jsonl" >/dev/null && break; sleep 0.2; done
  scancel "$single"
  for _ in $(seq 600); do pgrep -f "himeno/bmt .*$SRES/k/1gbe/himeno.jsonl" >/dev/null && break; sleep 0.2; done
  scancel "$victim"
  for _ in $(seq 600); do squeue -h -j "$finish" 2>/dev/null | grep -q . || break; sleep 0.2; done
  check "a job cancelled while $pending_state: its Slurm state recorded, compare reports both its apps missing" \
    sh -c "[ '$pending_state' = PENDING ] && grep -q '\"slurm_state\": \"CANCELLED\"' '$SRES/k/loopback/runs.jsonl' && grep -q 'missing: loopback has no score for himeno: Slurm job $pending CANCELLED' '$SRES/k/compare.txt' && grep -q 'missing: loopback has no score for pingpong: Slurm job $pending CANCELLED' '$SRES/k/compare.txt'"
  check "a job cancelled during its first app: that app interrupted, the next not run, both missing, campaign incomplete" \
    sh -c "grep -q 'missing: 1gbe has no score for himeno: interrupted (exit 143)' '$SRES/k/compare.txt' && grep -q 'missing: 1gbe has no score for pingpong: not run: the suite was stopped by signal 15 during himeno' '$SRES/k/compare.txt' && grep -q '^campaign: incomplete' '$SRES/k/compare.txt'"
  if [ "$rpn" = 1 ]; then
    check "the single-node job (1 rank a node) cancelled during himeno: himeno missing, pingpong not listed for it" \
      sh -c "grep -q 'missing: single has no score for himeno: interrupted (exit 143)' '$SRES/k/compare.txt' && grep -q '\"slurm_state\": \"CANCELLED\", .*\"apps\": \[\"himeno\"\]' '$SRES/k/single/runs.jsonl' && ! grep -q 'single has no score for pingpong' '$SRES/k/compare.txt'"
  else
    check "the single-node job ($rpn ranks a node) cancelled during himeno: himeno missing, pingpong not run" \
      sh -c "grep -q 'missing: single has no score for himeno: interrupted (exit 143)' '$SRES/k/compare.txt' && grep -q 'missing: single has no score for pingpong: not run' '$SRES/k/compare.txt'"
  fi
  [ "$FAILED" -gt "$failed_before" ] && sed 's/^/    # /' "$SRES/k/compare.txt" "$SRES/k"/*/runs.jsonl 2>/dev/null | head -n 30

  timeout 60 run/emu-slurm down >"$OUT_FILE" 2>&1
  sleep 1
  # its daemons by their files' folder (munged's too: a machine's own munged,
  # which Debian's package starts where systemd runs, is not ours)
  left=$(pgrep -af 'fabricbench-em[u]/slurm'; ip netns list | grep '^fb-'
    [ -e /run/fabricbench-emu ] && find /run/fabricbench-emu | head -n 10)
  if [ -z "$left" ]; then
    ok "emu-slurm down: no daemon, namespace or file left"
  else
    not_ok "emu-slurm down: no daemon, namespace or file left" "$left
$(cat "$OUT_FILE")"
  fi
  unset SLURM_CONF
fi
