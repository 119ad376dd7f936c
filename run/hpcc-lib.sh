# run/hpcc-lib.sh: runs hpcc (HPC Challenge) once in a scratch folder, for
# the side-by-side benchmark scripts. Sourced.
#   hpcc_run NP N NB P Q   -> sets HPCC_OUT to the hpccoutf.txt path
#                             (HPCC_BIN: the binary, Debian's hpcc by default)
#   hpcc_value NAME        -> a NAME=value line of hpcc's summary
#   hpcc_array_size        -> the STREAM arrays' length hpcc printed
#   hpcc_version           -> the benchmark version hpcc printed (e.g. 1.5.0)
#   hpcc_build_section SRC DIR CC CFLAGS FLAG -> builds hpcc from its source
#                             tree SRC in DIR with every section but one
#                             switched off (FLAG: its params.Run* name, as
#                             RunStarStream or RunLatencyBandwidth; DIR/hpcc;
#                             0 on success)
hpcc_run() {
  np=$1 n=$2 nb=$3 p=$4 q=$5
  hpcc_bin=${HPCC_BIN:-hpcc}
  command -v "$hpcc_bin" >/dev/null || { echo "hpcc not found: run run/install-deps" >&2; return 2; }
  HPCC_DIR=$(mktemp -d)
  template=/usr/share/doc/hpcc/examples/_hpccinf.txt
  [ -r "$template" ] || { echo "no hpcc input template at $template" >&2; return 2; }
  # lines 6, 8, 11 and 12 of the template hold N, NB, P and Q
  awk -v n="$n" -v nb="$nb" -v p="$p" -v q="$q" '
    NR == 6 { sub(/^[0-9]+/, n) } NR == 8 { sub(/^[0-9]+/, nb) }
    NR == 11 { sub(/^[0-9]+/, p) } NR == 12 { sub(/^[0-9]+/, q) } { print }' \
    "$template" > "$HPCC_DIR/hpccinf.txt"
  (cd "$HPCC_DIR" && $MPIRUN -np "$np" "$hpcc_bin" >/dev/null 2>&1)
  HPCC_OUT="$HPCC_DIR/hpccoutf.txt"
  [ -s "$HPCC_OUT" ]
}
hpcc_value() { sed -n "s/^$1=//p" "$HPCC_OUT" | head -n 1; }
hpcc_array_size() { sed -n 's/^Array size = \([0-9]*\).*/\1/p' "$HPCC_OUT" | head -n 1; }
hpcc_version() { sed -n 's/.*Benchmark version \([0-9][0-9.]*\).*/\1/p' "$HPCC_OUT" | head -n 1; }
# hpcc's main() reads its input (HPCC_Init), then runs each section whose
# params.Run* flag is set; one line after the flags are set (where main
# takes params.outFname) clears all but the one asked for. Nothing else of
# hpcc's is changed: that section's code, its sizes (from hpccinf.txt, as
# the STREAM arrays' length from HPL's N) and its timing are those of the
# full launch. Built with the caller's compiler and flags (HPL's
# Make.<arch> variables) and OpenBLAS.
HPCC_SECTIONS="RunHPL RunStarDGEMM RunSingleDGEMM RunPTRANS RunStarStream RunSingleStream
  RunMPIRandomAccess_LCG RunStarRandomAccess_LCG RunSingleRandomAccess_LCG RunMPIRandomAccess
  RunStarRandomAccess RunSingleRandomAccess RunStarFFT RunSingleFFT RunMPIFFT RunLatencyBandwidth"
hpcc_build_section() {
  hb_src=$1 hb_dir=$2 hb_cc=$3 hb_cflags=$4 hb_keep=$5
  hb_off="" hb_known=0
  for hb_flag in $HPCC_SECTIONS; do
    if [ "$hb_flag" = "$hb_keep" ]; then hb_known=1; else hb_off="$hb_off params.$hb_flag = 0;"; fi
  done
  [ "$hb_known" = 1 ] || return 1
  cp -R "$hb_src/." "$hb_dir/" &&
    find "$hb_dir" \( -name '*.o' -o -name '*.a' \) -exec rm -f {} + && rm -f "$hb_dir/hpcc" &&
    awk -v off="$hb_off" -v keep="$hb_keep" 'done != 1 && /outFname = params\.outFname;/ {
           print
           print " " off " /* run/hpcc-lib.sh: " keep " only */"
           done = 1; next }
         { print } END { exit done != 1 }' "$hb_src/src/hpcc.c" > "$hb_dir/src/hpcc.c" || return 1
  hb_blas=$(pkg-config --cflags openblas 2>/dev/null) hb_blaslib=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
  cat > "$hb_dir/hpl/Make.fb" <<MAKE
SHELL = /bin/sh
CD = cd
CP = cp
LN_S = ln -s
MKDIR = mkdir
RM = /bin/rm -f
TOUCH = touch
ARCH = fb
TOPdir = ../../..
INCdir = \$(TOPdir)/include
BINdir = \$(TOPdir)/bin/\$(ARCH)
LIBdir = \$(TOPdir)/lib/\$(ARCH)
HPLlib = \$(LIBdir)/libhpl.a
LAinc = $hb_blas
LAlib = $hb_blaslib
F2CDEFS = -DAdd_ -DF77_INTEGER=int -DStringSunStyle
HPL_INCLUDES = -I\$(INCdir) -I\$(INCdir)/\$(ARCH) \$(LAinc)
HPL_LIBS = \$(HPLlib) \$(LAlib) -lm
HPL_DEFS = \$(F2CDEFS) \$(HPL_INCLUDES)
CC = $hb_cc
CCNOOPT = \$(HPL_DEFS)
CCFLAGS = \$(HPL_DEFS) $hb_cflags
LINKER = \$(CC)
LINKFLAGS = $hb_cflags
ARCHIVER = ar
ARFLAGS = r
RANLIB = echo
MAKE
  (cd "$hb_dir" && make arch=fb -j2) >"$hb_dir/build.log" 2>&1 && [ -x "$hb_dir/hpcc" ]
}
