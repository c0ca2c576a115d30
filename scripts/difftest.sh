#!/usr/bin/env bash
# Differential testing of the CUDA compiler (docs/reliability.md, "Differential testing"):
# random, well-defined kernels (tests/difftest/gen.py) run by qgpu's interpreter at every clang
# optimisation level, and with every clang installed, against a reference that shares no code
# with qgpu (the same source compiled by g++ with tests/oracle/cuda_emu.h); --model N runs N of
# them inside the model too (bf16, --check at every token). Exit 1 on any wrong answer, crash
# or hang; refusals (a kernel that does not fit the machine) are counted by their message.
# Usage: scripts/difftest.sh [--count N] [--seed S] [--levels "1 s 2 3 z"] [--clangs all|"clang-15 ..."]
#                            [--model N] [--reduce] [--save] [--report FILE] [--jobs J]
#                            [--preset dev | --build DIR]
#   --reduce  shrinks each wrong kernel to a small one (tests/difftest/reduce.py)
#   --save    with --reduce: writes it into kernels/ as difftest_SEED.cu (then run
#             scripts/gen_expected.py --only difftest_SEED for its oracle outputs)
# Seed S runs kernels S, S+1, ..., S+N-1: `--seed K --count 1` reproduces kernel dkK alone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=build/dev
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --preset) build=build/$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --save) args+=(--save kernels); shift ;;
    -h|--help) sed -n 2,15p "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -x "$build/qgpu" ] || { echo "difftest: no $build/qgpu: build first (cmake --build --preset dev)" >&2; exit 2; }
command -v "${CXX:-g++}" >/dev/null || { echo "difftest: the reference needs g++ (apt-get install g++)" >&2; exit 2; }
exec python3 tests/difftest/difftest.py --qgpu "$build/qgpu" "${args[@]}"
