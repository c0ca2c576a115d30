#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses (fuzz/*.cpp) with ASan + UBSan.
#
#   scripts/fuzz.sh [--seconds N] [--runs R] [--jobs J] [--build-dir DIR] [--out DIR] [--no-build] [HARNESS...]
#
# The build is the `fuzz` preset (build/fuzz: the asan preset at -O1, several times the
# executions per second of -O0); the asan suite's short runs pass --build-dir build/asan.
# Each harness runs N seconds (default 60) or R executions, whichever ends first, on its
# committed seeds (fuzz/corpus/NAME/, read only) plus a work corpus of what it found
# (OUT/NAME/corpus, default OUT BUILD/fuzz-out),
# J at a time (default: the cores), with -timeout=10 (a slow input is a hang) and
# -rss_limit_mb=2048 (a memory blow-up). A crash, sanitizer report, timeout or OOM is a
# finding: the reproducer is OUT/NAME/crash-* (or timeout-*, oom-*), its log OUT/NAME/log,
# and the script exits 1. Reproduce one with `build/fuzz/fuzz/fuzz_NAME FILE`. A finding
# fixed gets its input committed into fuzz/corpus/NAME/ as a regression seed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=60 runs=-1 jobs=$(nproc) build=build/fuzz out="" do_build=1 names=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
out=${out:-$build/fuzz-out}
if [ ${#names[@]} -eq 0 ]; then
  for f in fuzz/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
for n in "${names[@]}"; do
  [ -f "fuzz/$n.cpp" ] || { echo "fuzz.sh: no harness '$n' (fuzz/$n.cpp); the harnesses: $(cd fuzz && ls ./*.cpp | sed 's|./||; s|\.cpp||' | tr '\n' ' ')" >&2; exit 2; }
done

if [ $do_build = 1 ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake --preset fuzz >/dev/null
  cmake --build "$build" --target $(printf 'fuzz_%s ' "${names[@]}")
fi

# run_one NAME: fuzz it, then print one summary line; exit status 1 on a finding.
run_one() {
  local n=$1 dir=$out/$1 seeds=fuzz/corpus/$1
  mkdir -p "$dir/corpus" "$seeds"
  local status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$build/fuzz/fuzz_$n" "$dir/corpus" "$seeds" \
      -max_total_time="$seconds" -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$dir/" >"$dir/log" 2>&1 || status=$?
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2)
  if [ $status = 0 ]; then
    printf 'fuzz %-18s ok       %10s execs  cov %6s  corpus %5s\n' "$n" "${execs:-?}" "${cov:-?}" \
      "$(ls "$dir/corpus" | wc -l)"
  else
    printf 'fuzz %-18s FINDING  (exit %s) %s\n' "$n" "$status" "$(ls "$dir" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' | head -1)"
    grep -E 'ERROR|SUMMARY|fuzz: |terminate|what\(\)' "$dir/log" | head -8 | sed 's/^/    /'
    echo "    log: $dir/log"
    return 1
  fi
}
export -f run_one
export seconds runs build out

echo "== fuzz.sh: ${#names[@]} harnesses, ${seconds} s each, $jobs at a time"
if printf '%s\n' "${names[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'; then
  echo "== fuzz.sh: no findings"
else
  echo "== fuzz.sh: findings (above)"
  exit 1
fi
