#!/bin/bash
# run/slurm/finish.sh RESULTS LABEL:JOBID...: the last job of campaign.sh. For
# each job that did not complete it appends its Slurm state and exit code to
# RESULTS/LABEL/runs.jsonl (so run/compare shows that configuration as
# missing, never compares partial data), then runs run/compare and run/report.
#SBATCH --job-name=fb-compare
set -u
cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")/../..}"
results=$1; shift
folders=()
for pair in "$@"; do
  label=${pair%%:*} id=${pair#*:}
  mkdir -p "$results/$label"
  line=$(scontrol show job -o "$id" 2>/dev/null)
  state=$(sed -n 's/.* JobState=\([A-Z_]*\).*/\1/p' <<<"$line")
  code=$(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<<"$line")
  echo "job $id ($label): ${state:-unknown}, exit code ${code:-unknown}"
  if [ "$state" != COMPLETED ]; then
    printf '{"slurm_job": %s, "slurm_state": "%s", "exit_code": "%s", "status": "job %s"}\n' \
      "$id" "${state:-unknown}" "${code:-unknown}" "${state:-unknown}" >> "$results/$label/runs.jsonl"
  fi
  folders+=("$results/$label")
done
run/compare "${folders[@]}"; c=$?
run/report "${folders[@]}" -o "$results/report.html"; r=$?
if [ $c -eq 0 ] && [ $r -eq 0 ]; then echo "campaign: complete"; else echo "campaign: incomplete (compare exit $c, report exit $r)"; fi
