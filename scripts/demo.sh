#!/usr/bin/env bash
# The main job: build the release qgpu and run the project's headline demo.
# Extra arguments are passed to the qgpu command, e.g. scripts/demo.sh --json
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh >&2
# Setup and build output go to stderr so that stdout is the main job's alone (e.g. for --json).
cmake --preset release >&2
cmake --build --preset release --target qgpu >&2

qgpu=build/release/qgpu
launch=(kernels/vecadd.cu --grid 3 --block 4
  --arg 'a=[1,2,3,4,5,6,7,8,9,10]' --arg 'b=[10,20,30,40,50,60,70,80,90,100]'
  --arg 'c=[0,0,0,0,0,0,0,0,0,0]' --arg n=10)
# The main job: a CUDA kernel compiled for the machine and launched. Until the compiled
# model generates records it runs on the reference interpreter; then --engine model
# replaces interp.
"$qgpu" run "${launch[@]}" --engine interp "$@"
# The compiled model (built into the cache on first use) fed the same launch record by
# record: its state (step, registers, lanes, ...) equals the interpreter's at every token.
"$qgpu" run "${launch[@]}" --engine model --check --dtype bf16 >&2
