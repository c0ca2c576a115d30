#!/usr/bin/env bash
# `qgpu build` on a random-weight base with Qwen3.5-2B's exact config (hidden 2048, 24 layers
# LLLF x 6, MLP 6144, vocabulary 248,320, tied, bf16), then decode in our engine: the merged
# checkpoint against its base in the same run, alternating (this VM varies run to run), the
# same prompt, greedy. Prints the build's time and
# peak RSS and the decode cost ratio (the issue's goal: merged <= 1.15x the base).
#   bench/run_merge_bench.sh [--runs 3] [--tokens 32] [--keep]
# Needs about 36 GB of disk under build/bench/ (the merge is 31.4 GB); removed unless --keep.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=3 tokens=32 keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --tokens) tokens=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "run_merge_bench: unknown argument $1 (expected --runs N, --tokens N, --keep)" >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target qgpu >/dev/null
qgpu=build/release/qgpu
base=build/bench/base-2b merged=build/bench/merged-2b
if [ ! -f "$base/config.json" ]; then
  echo "== a random base with Qwen3.5-2B's config in $base (about a minute)" >&2
  "$qgpu" tiny-model --out "$base" --hidden 2048 --layers LLLFLLLFLLLFLLLFLLLFLLLF --intermediate 6144 \
    --heads 8 --kv-heads 2 --head-dim 256 --linear-k-heads 16 --linear-v-heads 16 --linear-k-dim 128 \
    --linear-v-dim 128 --vocab 248320 --dtype bf16 >&2
fi
echo "== qgpu build --base $base" >&2
build=$( { /usr/bin/time -f "BUILD %e %M" "$qgpu" build --base "$base" --out "$merged" 2>&1 >/dev/null; } | grep '^BUILD' )

prompt=$(seq -s, 1 32)
results=()
for i in $(seq "$runs"); do
  for m in "$base" "$merged"; do
    echo "== decode $tokens tokens: $m (run $i)" >&2
    results+=("$m $("$qgpu" generate "$m" --tokens "$prompt" --max-tokens "$tokens" --ignore-eos --json)")
  done
done

python3 - "$build" "$base" "$merged" "${results[@]}" <<'PY'
import json, statistics, sys
build, base, merged, rows = sys.argv[1].split(), sys.argv[2], sys.argv[3], sys.argv[4:]
rate, toks = {base: [], merged: []}, {}
for r in rows:
    name, js = r.split(" ", 1)
    j = json.loads(js)
    rate[name].append(j["decode_tokens_per_s"])
    toks.setdefault(name, j["tokens"])
a, b_ = toks[base], toks[merged]
agree = next((i for i in range(min(len(a), len(b_))) if a[i] != b_[i]), min(len(a), len(b_)))
b, m = statistics.median(rate[base]), statistics.median(rate[merged])
print(f"build: {float(build[1]):.1f} s, peak RSS {int(build[2]) / 1e6:.2f} GB (mapped base pages included)")
print(f"decode (tokens/s, median of {len(rate[base])}): base {b:.2f} {rate[base]}, merged {m:.2f} {rate[merged]}")
print(f"merged / base cost per token: {b / m:.3f}x (goal <= 1.15x)")
# Random weights give near-flat logits, so bf16's last-bit differences (docs/design.md §3)
# can flip a greedy choice; `qgpu check` measures the text's KL on a real comparison.
print(f"greedy tokens equal before the first difference: {agree} of {len(a)}")
PY
if [ "$keep" = 0 ]; then rm -rf "$merged"; fi
