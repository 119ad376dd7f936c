#!/bin/bash
# The standard A/B campaign: one single-node job, one two-node job per fabric,
# then the comparison table once they have all finished.
#   run/slurm/campaign.sh ib 1gbe            (IFACE=eth1 for the TCP fabrics)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: run/slurm/campaign.sh FABRIC [FABRIC...]" >&2; exit 2; }
mkdir -p results
jobs=$(sbatch --parsable run/slurm/single-node.sbatch)
for fabric in "$@"; do
  jobs="$jobs:$(FABRIC=$fabric sbatch --parsable --export=ALL run/slurm/two-node.sbatch)"
done
labels=""
for fabric in "$@"; do labels="$labels results/$fabric"; done
sbatch --dependency=afterany:"$jobs" --job-name=fb-compare --nodes=1 --ntasks=1 \
  --output=results/compare-%j.txt \
  --wrap="run/compare results/single$labels --plot results/compare.png"
echo "submitted; the table will be in results/compare-<jobid>.txt"
