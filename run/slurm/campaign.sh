#!/bin/bash
# run/slurm/campaign.sh: the A/B campaign of an interconnect report as Slurm
# jobs: one single-node job, one two-node job per fabric, and a last job,
# dependent on all of them (it runs even when one failed), that records each
# job's Slurm state and runs run/compare and run/report.
#
#   run/slurm/campaign.sh [options] FABRIC [FABRIC...]
#     --results DIR    where the records go (default results/campaign): DIR/single,
#                      DIR/FABRIC..., DIR/compare.txt, DIR/report.html
#     --profile P      the suite's problem sizes (default standard; tiny for tests)
#     --repeat N       runs per app in each job (default 5)
#     --apps LIST      comma-separated apps (default all)
#     --ranks-per-node N   tasks per node (default: the CPUs of a node, from sinfo)
#     --time T         each job's time limit (default 01:00:00)
#     --no-wait        submit and return (the default waits and prints the table)
#   On a real cluster a FABRIC is a label whose pinning variables two-node.sbatch
#   sets (ib, roce: UCX_NET_DEVICES; 1gbe, 10gbe, iwarp: OMPI_MCA_btl_tcp_if_include
#   from IFACE, FI_PROVIDER); on the emulated cluster (run/emu-slurm) it is an
#   emulation profile (loopback, 1gbe, 10gbe, 25gbe) that the job applies first.
#   LAUNCHER (default "srun -n {np}"; "srun --mpi=pmix -n {np}" on the emulated
#   cluster) is how the jobs start MPI.
set -euo pipefail
export LC_ALL=C  # decimal points in printf, awk and sort, whatever the user's locale
cd "$(dirname "$0")/../.."
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "campaign: error: $1" >&2; exit "${2:-2}"; }
results=results/campaign profile=standard repeat=5 apps="" rpn="" limit=01:00:00 wait=1
fabrics=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --no-wait) wait=0; shift; continue ;;
    --results|--profile|--repeat|--apps|--ranks-per-node|--time)
      [ $# -ge 2 ] || die "$1 needs a value" ;;
    -*) die "unknown option '$1' (see --help)" ;;
  esac
  case "$1" in
    --results) results=$2 ;;
    --profile) profile=$2 ;;
    --repeat) repeat=$2 ;;
    --apps) apps=$2 ;;
    --ranks-per-node) rpn=$2 ;;
    --time) limit=$2 ;;
    *) fabrics+=("$1"); shift; continue ;;
  esac
  shift 2
done
[ ${#fabrics[@]} -ge 1 ] || die "name at least one fabric (see --help)"
for f in "${fabrics[@]}"; do
  [[ "$f" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] && [ "$f" != single ] || die "fabric '$f' is not a plain label"
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat '$repeat' is not a count"
command -v sbatch >/dev/null || die "no sbatch: this needs Slurm (run/install-deps --slurm; run/emu-slurm up to try one)" 3
emulated=0
[ -r /run/fabricbench-emu/config ] && [ "${SLURM_CONF:-}" = /run/fabricbench-emu/slurm/slurm.conf ] && emulated=1
if [ -z "$rpn" ]; then
  rpn=$(sinfo -h -o '%c' | sort -n | head -n 1)
  [[ "$rpn" =~ ^[1-9][0-9]*$ ]] || die "cannot read the CPUs per node from sinfo; give --ranks-per-node" 3
fi
[[ "$rpn" =~ ^[1-9][0-9]*$ ]] || die "--ranks-per-node '$rpn' is not a count"
if [ $emulated = 1 ]; then
  export LAUNCHER="${LAUNCHER:-"srun --mpi=pmix -n {np}"}" FB_EMULATED=1
else
  export LAUNCHER="${LAUNCHER:-"srun -n {np}"}"
fi
mkdir -p "$results"
export PROFILE=$profile REPEAT=$repeat APPS=$apps RESULTS=$results RANKS_PER_NODE=$rpn
common=(--parsable --export=ALL --time="$limit" --ntasks-per-node="$rpn" --exclusive)
single=$(sbatch "${common[@]}" --nodes=1 --job-name=fb-single --output="$results/slurm-single-%j.out" \
  run/slurm/single-node.sbatch)
ids=("single:$single") deps=$single
for f in "${fabrics[@]}"; do
  id=$(FABRIC=$f sbatch "${common[@]}" --nodes=2 --job-name="fb-$f" --output="$results/slurm-$f-%j.out" \
    run/slurm/two-node.sbatch)
  ids+=("$f:$id")
  deps="$deps:$id"
done
finish=$(sbatch --parsable --export=ALL --nodes=1 --ntasks=1 --time="$limit" --job-name=fb-compare \
  --dependency=afterany:"$deps" --output="$results/compare.txt" run/slurm/finish.sh "$results" "${ids[@]}")
echo "campaign: submitted ${ids[*]} compare:$finish"
echo "campaign: the table will be in $results/compare.txt and the report in $results/report.html"
echo "${ids[*]} compare:$finish" > "$results/jobs"
[ $wait = 1 ] || exit 0
while squeue -h -j "$finish" -o '%T' 2>/dev/null | grep -q .; do sleep 2; done
cat "$results/compare.txt"
grep -q '^campaign: complete' "$results/compare.txt"
