#!/usr/bin/env bash
# The main job: build the release qgpu and run the project's headline demo.
# Extra arguments are passed to the qgpu command, e.g. scripts/demo.sh --json
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/install-deps.sh --no-llamacpp >&2  # Debian packages only: the demo needs no Node.js
# Setup and build output go to stderr so that stdout is the main job's alone (e.g. for --json).
cmake --preset release >&2
cmake --build --preset release --target qgpu >&2

qgpu=build/release/qgpu
# The main job: a CUDA kernel (a 3x3 integer matrix product, one thread per element)
# compiled for the machine and launched inside the compiled model: the GPU-only model
# (constructed in memory at start, in about half a second; nothing is written to disk)
# generates every execution record greedily, and the
# host reads c out of the model's recurrent state. bf16 weights, llama.cpp's rounding.
"$qgpu" run kernels/matmul_3x3.cu --grid 1 --block 3,3 \
  --arg 'a=[1,2,3,4,5,6,7,8,9]' --arg 'b=[9,8,7,6,5,4,3,2,1]' --arg 'c=[0,0,0,0,0,0,0,0,0]' \
  --engine model --dtype bf16 "$@"
# The divergence finder (--check) on another kernel (vector add over 3 CUDA blocks, two
# waves): the interpreter's records fed one by one, the state the model holds (step,
# registers, lanes, multiplier, ...) and its greedy choice equal the interpreter's at
# every token.
"$qgpu" run kernels/vecadd.cu --grid 3 --block 4 \
  --arg 'a=[1,2,3,4,5,6,7,8,9,10]' --arg 'b=[10,20,30,40,50,60,70,80,90,100]' \
  --arg 'c=[0,0,0,0,0,0,0,0,0,0]' --arg n=10 --engine model --check --dtype bf16 >&2
echo "demo: the binary is $qgpu (put it on PATH: export PATH=\"$PWD/build/release:\$PATH\", or cmake --install build/release --prefix ~/.local)" >&2
