# tests/e2e/run-validation.sh: validation/run, the cross-rank-count checker
# (sourced by tests/run-tests; a run* script, so left out with FB_SKIP_TOOL_TESTS=1).
vrun() { timeout -k 5 300 validation/run "$@" >"$OUT_FILE" 2>&1; }

vrun --np 1,2,3; rc=$?
check "validation/run at 1, 2, 3 ranks: every app PASS and agrees, exit 0 (got $rc)" \
  sh -c "[ $rc -eq 0 ] && grep -q 'all PASS and agree' '$OUT_FILE' && [ \$(grep -cE '^(himeno|weather|hpl|md|pingpong) .* PASS' '$OUT_FILE') -eq 14 ]"
check "validation/run: himeno's checksums are the same bits on 1, 2 and 3 ranks" \
  sh -c "[ \$(grep '^himeno' '$OUT_FILE' | awk '{print \$4, \$5}' | sort -u | wc -l) -eq 1 ]"

FABRICBENCH_TEST_HOOK=himeno_perturb vrun --apps himeno --np 1,2; rc=$?
check "validation/run with a perturbed coefficient: FAIL, names the check, exit 1 (got $rc)" \
  sh -c "[ $rc -eq 1 ] && grep -q 'gosa_final_vs_original' '$OUT_FILE' && grep -q '2 failed or differ' '$OUT_FILE'"

vrun --apps himeno --np 1 --launcher "false {np}"; rc=$?
check "validation/run when the launcher fails: ERROR, exit 3 (got $rc)" \
  sh -c "[ $rc -eq 3 ] && grep -q 'ERROR' '$OUT_FILE'"
vrun --apps foo; rc=$?
check "validation/run --apps foo: one line, exit 2" sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$OUT_FILE') -eq 1 ]"
vrun --np 0,2; rc=$?
check "validation/run --np 0,2: exit 2" [ $rc -eq 2 ]
