#!/usr/bin/env bash
# Runs every corpus kernel's cases on the interpreter at each clang optimisation level and
# compares with the oracle's outputs (kernels/expected/): a barrier, an alias or a lowering
# that is right at one level and wrong at another shows up as a mismatch at that level.
# Usage: scripts/corpus_opt_levels.sh [--levels "1 s 2 3 z"] [--preset dev] [NAME ...]
# Exit 1 when any case differs or fails to compile; prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
levels="1 s 2 3 z" preset=dev
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --levels) levels=$2; shift 2 ;;
    --preset) preset=$2; shift 2 ;;
    -h|--help) sed -n 2,6p "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
qgpu=build/$preset/qgpu check=build/$preset/tests/corpus_check
[ -x "$qgpu" ] && [ -x "$check" ] || { echo "corpus_opt_levels: build the $preset preset first (cmake --build --preset $preset)" >&2; exit 2; }
[ ${#names[@]} -gt 0 ] || for f in kernels/*.cu; do names+=("$(basename "$f" .cu)"); done
passed=0 failed=0
for name in "${names[@]}"; do
  for level in $levels; do
    if out=$("$check" "$qgpu" "kernels/$name.cu" "kernels/expected/$name.json" --engine interp -O "$level" 2>&1); then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "== $name at -O$level:"
      echo "$out" | grep -v "^  ok\|^case" | head -8
    fi
  done
done
echo "corpus_opt_levels: levels $levels"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
