#!/usr/bin/env bash
# A launch generated inside the compiled GPU-only model: our engine (qgpu asm --engine
# model, one thread) against llama.cpp (node-llama-cpp, one thread, greedy) on the same
# model's GGUF, in the same run. Both generate the program's records from its image; the
# script checks that llama.cpp's records are ours, then prints decode tokens/s and the ratio.
#   bench/run_launch_bench.sh [PROGRAM.qasm | KERNEL.cu] [--dtype bf16|f32]   (default examples/loops.qasm, bf16)
# A CUDA kernel runs with its first `// run:` line (the corpus format, kernels/README.md).
# Ours runs on the GPU-only model built in memory; llama.cpp on its export, written on the
# first run (release build, `qgpu compile-model`) under build/bench/ (a minute).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
program=examples/loops.qasm dtype=bf16
while [ $# -gt 0 ]; do
  case $1 in
    --dtype) dtype=$2; shift 2 ;;
    *.qasm|*.cu) program=$1; shift ;;
    *) echo "run_launch_bench: unknown argument $1 (expected PROGRAM.qasm, KERNEL.cu or --dtype)" >&2; exit 2 ;;
  esac
done

source bench/common.sh
build_release
gpu_model_export "$dtype"

echo "== qgpu engine: $program" >&2
if [[ $program == *.cu ]]; then
  launch=$(sed -n 's#^// run: ##p' "$program" | head -1)
  [ -n "$launch" ] || { echo "run_launch_bench: $program has no '// run:' line" >&2; exit 2; }
  # shellcheck disable=SC2086  # the run line is a list of arguments, unquoted in the corpus
  ours=$("$qgpu" run "$program" $launch --engine model --dtype "$dtype" --json --trace)
else
  ours=$("$qgpu" asm "$program" --run --engine model --dtype "$dtype" --json)  # the in-memory model
fi
prompt=$(python3 -c 'import json,sys; print(",".join(map(str, json.loads(sys.argv[1])["prompt_ids"])))' "$ours")
n=$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["record_ids"]))' "$ours")
echo "== llama.cpp: $n records from the same image" >&2
theirs=$(node tests/llamacpp/llama_run.mjs --model "$dir/model.gguf" --tokens "$prompt" --generate "$n" --greedy-only --threads 1)

python3 - "$ours" "$theirs" "$program" "$dtype" <<'PY'
import json, sys
ours, theirs, program, dtype = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
same = ours["record_ids"] == theirs["generated"]
theirs_tps = 1000.0 / theirs["timing_ms"]["generate_per_token"]
print(f"{program} ({dtype}): {len(ours['record_ids'])} records; llama.cpp's records {'equal' if same else 'DIFFER FROM'} ours")
print(f"  qgpu engine: {ours['tokens_per_second']:.1f} tokens/s (1 thread)")
print(f"  llama.cpp:   {theirs_tps:.2f} tokens/s (1 thread)")
print(f"  ratio:       {ours['tokens_per_second'] / theirs_tps:.1f}x")
sys.exit(0 if same else 1)
PY
