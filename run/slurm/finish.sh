#!/bin/bash
# run/slurm/finish.sh RESULTS LABEL:JOBID...: the last job of campaign.sh. For
# each job that did not complete it appends its Slurm state, exit code and the
# apps it was to run to RESULTS/LABEL/runs.jsonl (so run/compare shows each
# app that job did not score as missing, never compares partial data), then
# runs run/compare and run/report.
#SBATCH --job-name=fb-compare
set -u
cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")/../..}"
results=$1; shift
# the apps a job of NP ranks was to run (APPS from campaign.sh, else every app
# built; less pingpong on one rank, as the suite does), so an app the job never
# reached is reported missing, not left out, and none it would have skipped
planned() {
  APPS=${APPS:-} NP=$1 python3 -c 'import json, os, sys; sys.path.insert(0, "run"); import fblib
apps = [a for a in os.environ["APPS"].split(",") if a] or fblib.built_apps()
print(json.dumps(fblib.apps_for_ranks(apps, int(os.environ["NP"]))))'
}
# RANKS_PER_NODE from campaign.sh: the single-node job has that many ranks,
# each fabric's two-node job twice as many
rpn=${RANKS_PER_NODE:-2}
folders=()
for pair in "$@"; do
  label=${pair%%:*} id=${pair#*:} np=$((2 * rpn))
  [ "$label" = single ] && np=$rpn
  mkdir -p "$results/$label"
  line=$(scontrol show job -o "$id" 2>/dev/null)
  state=$(sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p' <<<"$line")
  code=$(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<<"$line")
  echo "job $id ($label): ${state:-unknown}, exit code ${code:-unknown}"
  if [ "$state" != COMPLETED ]; then
    printf '{"slurm_job": %s, "slurm_state": "%s", "exit_code": "%s", "status": "job %s", "apps": %s}\n' \
      "$id" "${state:-unknown}" "${code:-unknown}" "${state:-unknown}" "$(planned "$np")" >> "$results/$label/runs.jsonl"
  fi
  folders+=("$results/$label")
done
run/compare "${folders[@]}"; c=$?
run/report "${folders[@]}" -o "$results/report.html"; r=$?
if [ $c -eq 0 ] && [ $r -eq 0 ]; then echo "campaign: complete"; else echo "campaign: incomplete (compare exit $c, report exit $r)"; fi
