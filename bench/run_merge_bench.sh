#!/usr/bin/env bash
# A merged checkpoint against its parts, in one run (issue 23): `qgpu build` on a random-weight
# base with Qwen3.5-2B's exact config (hidden 2048, 24 layers LLLF x 6, MLP 6144, vocabulary
# 248,320, tied, bf16), then, alternating (this VM varies run to run):
#   - text: `qgpu generate` on the base and on the merge, the same prompt, greedy: decode
#     tokens/s, load (checkpoint + tokenizer + the Runtime's copies) and peak RSS;
#   - launches: kernels/vecadd.cu and kernels/bitonic_sort_16.cu inside the merge and inside
#     the GPU-only model (bf16): generated tokens/s, and the records against the
#     interpreter's.
#   - with --llamacpp: llama.cpp (node-llama-cpp 3.21.1, CPU, 2 threads) on bf16 GGUFs of the
#     base and the merge (`qgpu convert`): prefill 8 tokens, then 8 one-token decode steps.
# Prints the medians (and every run), the ratios and the build's time and peak RSS.
#   bench/run_merge_bench.sh [--runs 3] [--tokens 32] [--keep] [--llamacpp]
# Needs about 20 GB of disk under build/bench/ (the merge is 12.6 GB), 35 GB with
# --llamacpp; the merge and the GGUFs are removed unless --keep.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=3 tokens=32 keep=0 llamacpp=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --tokens) tokens=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --llamacpp) llamacpp=1; shift ;;
    *) echo "run_merge_bench: unknown argument $1 (expected --runs N, --tokens N, --keep, --llamacpp)" >&2; exit 2 ;;
  esac
done

source bench/common.sh
build_release
base=build/bench/base-2b merged=build/bench/merged-2b
mkdir -p build/bench
out=$(mktemp -d build/bench/results.XXXXXX)
trap 'rm -rf "$out"' EXIT
if [ ! -f "$base/config.json" ]; then
  echo "== a random base with Qwen3.5-2B's config in $base (about a minute)" >&2
  "$qgpu" tiny-model --mergeable --out "$base" --hidden 2048 --layers LLLFLLLFLLLFLLLFLLLFLLLF \
    --intermediate 6144 --vocab 248320 --dtype bf16 >&2  # the head shapes: the GPU's, which are 2B's
fi
echo "== qgpu build --base $base" >&2
/usr/bin/time -f "%e %M" -o "$out/build.time" "$qgpu" build --base "$base" --out "$merged" >/dev/null

# One measured command: its --json line into $out/NAME.json, its wall time and peak RSS
# (KB) into $out/NAME.time.
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" >"$out/$name.json"
}
vecadd=(kernels/vecadd.cu --grid 3 --block 4 --arg 'a=[1,2,3,4,5,6,7,8,9,10]'
        --arg 'b=[10,20,30,40,50,60,70,80,90,100]' --arg 'c=[0,0,0,0,0,0,0,0,0,0]' --arg n=10)
sort16=(kernels/bitonic_sort_16.cu --grid 1 --block 16 --arg 'data=[9,3,14,0,7,7,-1,12,5,2,11,4,15,8,1,6]')
"$qgpu" run "${vecadd[@]}" --json --trace >"$out/vecadd.interp.json"
"$qgpu" run "${sort16[@]}" --json --trace >"$out/sort16.interp.json"

prompt=$(seq -s, 1 32)
# The merge's base corners (engine/base_corners.h) go to a cache of this run's own: the first
# text start on the merge writes them (timed apart), later starts map them.
export QGPU_CACHE_DIR=$out/cache
echo "== the merge's first text start (writes its base corners)" >&2
measure text.merged.first "$qgpu" generate "$merged" --tokens "$prompt" --max-tokens "$tokens" --ignore-eos --json
for i in $(seq "$runs"); do
  for side in base merged; do
    dir=$base; [ $side = merged ] && dir=$merged
    echo "== decode $tokens tokens: $side (run $i)" >&2
    measure "text.$side.$i" "$qgpu" generate "$dir" --tokens "$prompt" --max-tokens "$tokens" --ignore-eos --json
  done
  for side in gpu merged; do
    model=(); [ $side = merged ] && model=(--model "$merged")
    echo "== vecadd and bitonic_sort_16 inside the $side model (run $i)" >&2
    measure "vecadd.$side.$i" "$qgpu" run "${vecadd[@]}" --engine model --dtype bf16 --json --trace "${model[@]}"
    measure "sort16.$side.$i" "$qgpu" run "${sort16[@]}" --engine model --dtype bf16 --json --trace "${model[@]}"
  done
done

if [ "$llamacpp" = 1 ]; then
  for side in base merged; do
    dir=$base; [ $side = merged ] && dir=$merged
    echo "== qgpu convert $side to a bf16 GGUF" >&2
    /usr/bin/time -f "%e %M" -o "$out/convert.$side.time" "$qgpu" convert "$dir" --out "build/bench/$side-2b.gguf" >/dev/null
  done
  for i in $(seq "$runs"); do
    for side in base merged; do
      echo "== llama.cpp decode: $side (run $i)" >&2
      node tests/llamacpp/llama_run.mjs --model "build/bench/$side-2b.gguf" --bench --prefill 8 --decode 8 --threads 2 \
        >"$out/llama.$side.$i.json"
    done
  done
fi

python3 - "$out" "$runs" "$llamacpp" <<'PY'
import json, statistics, sys
out, runs, llamacpp = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
def load(name):
    j = json.load(open(f"{out}/{name}.json"))
    wall, rss = open(f"{out}/{name}.time").read().split()[-2:]
    return j, float(wall), int(rss) / 1e6
def med(xs):
    return f"{statistics.median(xs):.2f} (runs {', '.join(f'{x:.2f}' for x in xs)})"
build = open(f"{out}/build.time").read().split()[-2:]
print(f"build: {float(build[0]):.1f} s, peak RSS {int(build[1]) / 1e6:.2f} GB")

# load: the checkpoint, tokenizer and Runtime (a merge's base copies); the base maps its file
# and pays for its pages in its first forward, so start-up (load, the prompt and the first
# token) is what compares.
rate, load_s, first, rss, toks = {}, {}, {}, {}, {}
for side in ("base", "merged"):
    for i in range(1, runs + 1):
        j, wall, r = load(f"text.{side}.{i}")
        rate.setdefault(side, []).append(j["decode_tokens_per_s"])
        load_s.setdefault(side, []).append(j["load_seconds"])
        first.setdefault(side, []).append(j["first_token_seconds"])
        rss.setdefault(side, []).append(r)
        toks.setdefault(side, j["tokens"])
j, wall, r = load("text.merged.first")
print(f"text merged, first start (writes the base corners): load s {j['load_seconds']:.2f}; start-up s {j['first_token_seconds']:.2f}; "
      f"peak RSS GB {r:.2f}")
ratios = [b / m for b, m in zip(rate["base"], rate["merged"])]
starts = [m / b for b, m in zip(first["base"], first["merged"])]
for side in ("base", "merged"):
    print(f"text {side:6}: decode tokens/s {med(rate[side])}; load s {med(load_s[side])}; start-up s {med(first[side])}; "
          f"peak RSS GB {med(rss[side])}")
print(f"text: merged / base cost per token {med(ratios)} (goal <= 1.1); peak RSS +{statistics.median(rss['merged']) - statistics.median(rss['base']):.2f} GB "
      f"(goal <= 1.5); start-up merged / base {med(starts)} (goal <= 1.5)")
a, b = toks["base"], toks["merged"]
agree = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
# Random weights give near-flat logits: bf16's last bits (docs/design.md §3) can flip a choice.
print(f"text: greedy tokens equal before the first difference: {agree} of {len(a)}")

ok = True
for kernel in ("vecadd", "sort16"):
    want = json.load(open(f"{out}/{kernel}.interp.json"))
    tps = {}
    for side in ("gpu", "merged"):
        for i in range(1, runs + 1):
            j, wall, r = load(f"{kernel}.{side}.{i}")
            tps.setdefault(side, []).append(j["tokens_per_second"])
            if j["record_ids"] != want["record_ids"] or j["memory"] != want["memory"]:
                ok = False
                print(f"{kernel} inside the {side} model, run {i}: records or memory differ from the interpreter's")
    ratios = [m / g for g, m in zip(tps["gpu"], tps["merged"])]
    print(f"launch {kernel} ({len(want['record_ids'])} records): tokens/s GPU-only {med(tps['gpu'])}, merged {med(tps['merged'])}; "
          f"merged / GPU-only {med(ratios)} (goal >= 0.8)")
print("launch records and memory equal to the interpreter's: " + ("yes, every run" if ok else "NO"))
if llamacpp:
    for side in ("base", "merged"):
        wall, r = open(f"{out}/convert.{side}.time").read().split()[-2:]
        print(f"qgpu convert {side}: {float(wall):.1f} s, peak RSS {int(r) / 1e6:.2f} GB")
    dec = {s: [json.load(open(f"{out}/llama.{s}.{i}.json"))["decode_tok_per_s"] for i in range(1, runs + 1)] for s in ("base", "merged")}
    step = {s: [json.load(open(f"{out}/llama.{s}.{i}.json"))["decode_median_ms"] for i in range(1, runs + 1)] for s in ("base", "merged")}
    for s in ("base", "merged"):
        print(f"llama.cpp {s:6}: decode tokens/s {med(dec[s])}; median step ms {med(step[s])}")
    print(f"llama.cpp: merged / base decode tokens/s {med([m / b for b, m in zip(dec['base'], dec['merged'])])}")
sys.exit(0 if ok else 1)
PY
if [ "$keep" = 0 ]; then rm -rf "$merged" build/bench/base-2b.gguf build/bench/merged-2b.gguf; fi
