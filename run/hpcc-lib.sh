# run/hpcc-lib.sh: runs Debian's hpcc (HPC Challenge) once in a scratch
# folder, for the side-by-side benchmark scripts. Sourced.
#   hpcc_run NP N NB P Q   -> sets HPCC_OUT to the hpccoutf.txt path
#   hpcc_value NAME        -> a NAME=value line of hpcc's summary
hpcc_run() {
  np=$1 n=$2 nb=$3 p=$4 q=$5
  command -v hpcc >/dev/null || { echo "hpcc not found: run run/install-deps" >&2; return 2; }
  HPCC_DIR=$(mktemp -d)
  template=/usr/share/doc/hpcc/examples/_hpccinf.txt
  [ -r "$template" ] || { echo "no hpcc input template at $template" >&2; return 2; }
  # lines 6, 8, 11 and 12 of the template hold N, NB, P and Q
  awk -v n="$n" -v nb="$nb" -v p="$p" -v q="$q" '
    NR == 6 { sub(/^[0-9]+/, n) } NR == 8 { sub(/^[0-9]+/, nb) }
    NR == 11 { sub(/^[0-9]+/, p) } NR == 12 { sub(/^[0-9]+/, q) } { print }' \
    "$template" > "$HPCC_DIR/hpccinf.txt"
  (cd "$HPCC_DIR" && $MPIRUN -np "$np" hpcc >/dev/null 2>&1)
  HPCC_OUT="$HPCC_DIR/hpccoutf.txt"
  [ -s "$HPCC_OUT" ]
}
hpcc_value() { sed -n "s/^$1=//p" "$HPCC_OUT" | head -n 1; }
