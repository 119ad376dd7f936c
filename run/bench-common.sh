# run/bench-common.sh: what every run/bench-* script does first (sourced).
#   bench_usage SCRIPT ARGS...   -h/--help prints the script's header comment
#                                and exits 0; another option is an error (exit 2)
#   bench_count SCRIPT WHAT VALUE   VALUE must be a whole number of 1 or more
export LC_ALL=C  # decimal points in printf, awk and sort, whatever the user's locale
bench_usage() {
  script=$1; shift
  for arg in "$@"; do
    case "$arg" in
      -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"; exit 0 ;;
      -*) echo "$(basename "$script"): error: unknown option '$arg' (see --help)" >&2; exit 2 ;;
    esac
  done
}
bench_count() {
  case "$3" in
    ''|*[!0-9]*|0) echo "$(basename "$1"): error: $2 '$3' is not a whole number of 1 or more" >&2; exit 2 ;;
  esac
}
