# tests/fuzz.sh: a short bounded run of each parser fuzzer (libFuzzer with
# AddressSanitizer and UBSan): no crash, no hang, no sanitizer report. The
# corpus (seeds and every input that once failed) is replayed first; the
# mutations then follow a fixed seed, so a failure here recurs on rerun.
# Skipped, with the reason, where clang's fuzzer runtime is missing. An
# input that fails is kept under build/fuzz/artifacts/ (ignored by git),
# never in the checkout's root where libFuzzer would write it.
: "${FUZZ_SECONDS:=10}"
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
  skip "fuzzers" "no clang (run/install-deps installs it)"
elif ! ${FUZZ_BUILD:-make -s fuzzers} >"$OUT_FILE" 2>&1; then
  not_ok "fuzzers build" "$(tail -n 20 "$OUT_FILE")"
else
  mkdir -p build/fuzz/artifacts
  for f in build/fuzz/fuzz_*; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    corpus="$TMPDIR_T/corpus-$name"
    mkdir -p "$corpus"
    cp "tests/fuzz/corpus/${name#fuzz_}/"* "$corpus/" 2>/dev/null
    if timeout -k 5 $((FUZZ_SECONDS + 60)) "$f" -seed=1 -max_total_time="${FUZZ_SECONDS:=10}" -timeout=5 \
         -rss_limit_mb=2048 -artifact_prefix="build/fuzz/artifacts/$name-" "$corpus" >"$OUT_FILE" 2>&1; then
      ok "$name: $(grep -o 'Done [0-9]* runs' "$OUT_FILE" | tail -n 1) in ${FUZZ_SECONDS}s, no crash"
    else
      not_ok "$name found a problem (replay: FUZZ_SHOW=1 $f FILE)" \
        "$(grep -E 'ERROR|SUMMARY|crash|Test unit' "$OUT_FILE" | head -n 10)"
    fi
  done
fi
