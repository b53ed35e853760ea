# ci_lib.sh — the bookkeeping of scripts/test.sh, sourced by it (and by
# tests/e2e/test_lanes.py, which drives it with stub steps): summary lines,
# lane and step times, and the parsers of each suite's own output.
#
# Every suite prints one summary line "NAME: N passed, N failed[, NOTE],
# T s, cpu C s" (also appended to $L/summary.txt); a lane prints "lane
# NAME: T s, cpu C s" when it ends; ci_finish prints the summary again and
# ends with exactly one line "N passed, N failed" totalled over all
# suites, and returns 1 when anything failed.  T is wall seconds (date
# +%s); C the CPU seconds (user + system) of every process the step ran,
# from the shell's `times`: on a shared machine the wall time says how
# loaded it was, the CPU time what the step costs (C / cores: its wall
# time on an idle machine, at best).
#
# Needs: $L, a folder for the logs (build-logs/ in test.sh).

TOTAL_PASS=0
TOTAL_FAIL=0
ci_now() { date +%s; }
# ci_cpu: CI_CPU = CPU seconds of the shell's children so far (times'
# second line, "XmY.YYYs XmY.YYYs"; `times` in a $(...) subshell would
# see the subshell's children only, hence the file)
ci_cpu() {
  times > "$L/times.txt"
  CI_CPU=$(awk 'NR == 2 {
    s = 0
    for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] }
    printf "%d\n", s + 0.5 }' "$L/times.txt")
}
CI_T0=$(ci_now)
CI_LANE=""
STEP_T0=$CI_T0
STEP_C0=0

# ci_init: an empty summary (the folder $L is made when missing)
ci_init() {
  mkdir -p "$L"
  : > "$L/summary.txt"
}

# count NAME PASSED FAILED [NOTE]: one summary line with the time since
# the step began (step_begin), added to the totals
count() {
  TOTAL_PASS=$((TOTAL_PASS + $2))
  TOTAL_FAIL=$((TOTAL_FAIL + $3))
  line="$1: $2 passed, $3 failed${4:+, $4}, $(( $(ci_now) - STEP_T0 )) s,"
  ci_cpu; line="$line cpu $((CI_CPU - STEP_C0)) s"
  echo "$line" | tee -a "$L/summary.txt"
}

# step_begin: the time a step's summary line counts from
step_begin() { STEP_T0=$(ci_now); ci_cpu; STEP_C0=$CI_CPU; }

# lane_begin NAME: end the lane running, if any, and start NAME
lane_begin() {
  [ -n "$CI_LANE" ] && lane_end
  CI_LANE=$1
  CI_LANE_T0=$(ci_now)
  ci_cpu; CI_LANE_C0=$CI_CPU
  echo "== lane $1"
}

# lane_end: the running lane's time, on the console and in the summary
lane_end() {
  line="lane $CI_LANE: $(( $(ci_now) - CI_LANE_T0 )) s,"
  ci_cpu; line="$line cpu $((CI_CPU - CI_LANE_C0)) s"
  echo "$line" | tee -a "$L/summary.txt"
  CI_LANE=""
}

# log_name NAME: the log file of a step (any character but letters,
# digits, dot and dash made "_")
log_name() { echo "$L/$(printf '%s' "$1" | tr -c 'A-Za-z0-9.-' '_').log"; }

# step NAME COMMAND...: a pass/fail step, counted 1; its output goes to the
# console and to $L/NAME.log; returns 1 when it failed
step() {
  name=$1; shift
  log=$(log_name "$name")
  step_begin
  if { "$@"; echo $? > "$log.rc"; } 2>&1 | tee "$log"; [ "$(cat "$log.rc")" = 0 ]
  then count "$name" 1 0
  else count "$name" 0 1 "see $log"; return 1
  fi
}

# suite NAME KIND COMMAND...: run a suite whose output has its own counts
# (KIND: check, e2e, unittest, browser, fuzz); output to the console and
# $L/NAME.log; a non-zero exit with no failure counted still fails it
suite() {
  name=$1; kind=$2; shift 2
  log=$(log_name "$name")
  step_begin
  { "$@"; echo $? > "$log.rc"; } 2>&1 | tee "$log"
  suite_counts "$name" "$kind" "$(cat "$log.rc")" < "$log"
}

# suite_counts NAME KIND RC < OUTPUT: parse OUTPUT, count the suite
suite_counts() {
  name=$1; kind=$2; rc=$3
  out=$(cat)
  note=""
  p=0; f=0
  case $kind in
    check)     # Check: "NN%: Checks: N, Failures: F, Errors: E"
      # shellcheck disable=SC2046  # the three numbers, split on purpose
      set -- $(echo "$out" | sed -n \
        's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' \
        | tail -1)
      skips=$(echo "$out" | grep -c 'SKIP: ')
      [ "$skips" -gt 0 ] && note="$skips checks SKIPPED their real fixtures (../shared missing)"
      if [ $# = 3 ]; then p=$(($1 - $2 - $3)); f=$(($2 + $3)); fi ;;
    e2e)       # run_all.py: "e2e: N passed, N failed, N skipped"
      # shellcheck disable=SC2046
      set -- $(echo "$out" | sed -n \
        's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' \
        | tail -1)
      if [ $# = 3 ]; then p=$1; f=$2
        [ "$3" -gt 0 ] && note="$3 SKIPPED (see the e2e: SKIP lines in the log)"
      fi ;;
    unittest)  # "Ran N tests" and "FAILED (failures=F, errors=E)"
      n=$(echo "$out" | sed -n 's/^Ran \([0-9]*\) tests\{0,1\} .*/\1/p' | tail -1)
      f=$(echo "$out" | sed -n 's/^FAILED (\(.*\))$/\1/p' | tr -c '0-9\n' ' ' \
          | awk '{s=0; for(i=1;i<=NF;i++) s+=$i; print s}')
      f=${f:-0}; p=$(( ${n:-0} - f )) ;;
    browser)   # "browser: N pages, M problems"
      # shellcheck disable=SC2046
      set -- $(echo "$out" | sed -n \
        's/^browser: \([0-9]*\) pages, \([0-9]*\) problems.*/\1 \2/p' | tail -1)
      if [ $# = 2 ]; then p=$(($1 - $2)); f=$2; fi ;;
    fuzz)      # scripts/fuzz.sh: after the header "harness ...", one line
               # per harness "NAME EXECS EXEC/S COV FT ok", or the harness
               # name and what went wrong
      p=$(echo "$out" | awk '/^harness /{h=1; next} h && $NF=="ok"' | wc -l)
      f=$(echo "$out" | awk '/^harness /{h=1; next} h && $1 ~ /^[a-z]+$/ && $NF!="ok"' \
          | wc -l) ;;
  esac
  # a crash, a timeout or an unparsed output still fails the suite
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    f=1; note="${note:+$note, }exit status $rc"
  fi
  if [ "$p" = 0 ] && [ "$f" = 0 ]; then
    f=1; note="${note:+$note, }no count in its output"
  fi
  count "$name" "$p" "$f" "$note"
}

# ci_finish: the summary, the whole run's time, the closing line; returns
# 1 when anything failed
ci_finish() {
  [ -n "$CI_LANE" ] && lane_end
  echo "== summary"
  cat "$L/summary.txt"
  ci_cpu; echo "all lanes: $(( $(ci_now) - CI_T0 )) s, cpu $CI_CPU s"
  echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
  [ "$TOTAL_FAIL" = 0 ]
}
