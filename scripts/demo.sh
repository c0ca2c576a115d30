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
# The main job. Today: a machine program on the reference interpreter. Once the CUDA front
# end and the compiled model exist, this line becomes:
#   "$qgpu" run kernels/vecadd.cu --engine model "$@"
"$qgpu" asm examples/vecadd.qasm --run --trace "$@"
