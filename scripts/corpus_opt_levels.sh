#!/usr/bin/env bash
# Runs every corpus kernel's cases on the interpreter at each clang optimisation level and
# compares with the oracle's outputs (kernels/expected/): a barrier, an alias or a lowering
# that is right at one level and wrong at another shows up as a wrong output at that level.
# A kernel that clang compiles differently at a level may also be refused there (more
# registers or predicates than the machine has): that is counted, and listed, apart.
# Usage: scripts/corpus_opt_levels.sh [--levels "1 s 2 3 z"] [--preset dev | --build DIR] [NAME ...]
# Exit 1 when any output is wrong; the last line is "N passed, N failed" (failed: wrong).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
levels="1 s 2 3 z" build=build/dev
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --levels) levels=$2; shift 2 ;;
    --preset) build=build/$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    -h|--help) sed -n 2,6p "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
qgpu=$build/qgpu check=$build/tests/corpus_check
[ -x "$qgpu" ] && [ -x "$check" ] || { echo "corpus_opt_levels: no $qgpu or $check: build first (cmake --build --preset dev)" >&2; exit 2; }
[ ${#names[@]} -gt 0 ] || for f in kernels/*.cu; do names+=("$(basename "$f" .cu)"); done
passed=0 wrong=0 refused=0
for name in "${names[@]}"; do
  for level in $levels; do
    out=$("$check" "$qgpu" "kernels/$name.cu" "kernels/expected/$name.json" --engine interp -O "$level" 2>&1)
    if grep -q MISMATCH <<<"$out"; then
      wrong=$((wrong + 1))
      echo "== WRONG: $name at -O$level:"
      grep -v "^  ok\|^[0-9]* passed" <<<"$out" | head -12
    elif grep -q "qgpu failed" <<<"$out"; then
      refused=$((refused + 1))
      echo "== refused: $name at -O$level: $(grep -m1 "qgpu: error" <<<"$out" | cut -c1-200)"
    else
      passed=$((passed + 1))
    fi
  done
done
echo "corpus_opt_levels: levels $levels; $refused kernel-levels refused with an error (listed above)"
echo "$passed passed, $wrong failed"
[ "$wrong" -eq 0 ]
