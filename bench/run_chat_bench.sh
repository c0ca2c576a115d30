#!/usr/bin/env bash
# What a chat user waits for: the time from `qgpu ask`'s process start to its first generated
# token on a merged checkpoint with Qwen3.5-2B's exact config (random weights, bf16; the recipe
# of run_merge_bench.sh), in normal and in advanced mode, each with its real system prompt as
# the checkpoint's tokenizer reads it:
#   - merged, cold prompt cache: QGPU_CACHE_DIR a fresh empty directory;
#   - merged, warm prompt cache: the same directory again, right after (where the tree has no
#     prompt-state cache, warm reads the whole prompt again, like cold);
#   - the base alone, the reference: `qgpu generate --tokens` with the same prompt's token ids
#     (`qgpu ask --print-prompt-tokens`); the base has no prompt cache.
# `qgpu ask --max-tokens 1 --json` reports load_seconds and first_token_seconds from process
# start and prompt_tokens_from_cache; `qgpu generate --json` its load and first token. The
# sides alternate (this VM's speed drifts up to 2x over minutes); before each timed run its
# checkpoint is read once, untimed (a 16-token forward), so the page cache is warm, and each
# timed run records how much of its weight files was resident when it started. Prints
# the medians with every run's value and writes bench/chat-report.md.
#   bench/run_chat_bench.sh [--runs 3] [--keep] [--threads 2] [--question TEXT]
#                           [--base DIR --merged DIR]
# Reuses build/bench/base-2b and build/bench/merged-2b when present; otherwise writes them
# (about 20 GB of disk, 10 minutes) and removes them at the end unless --keep. --base and
# --merged name other checkpoints instead (the real Qwen3.5-2B and its merge), never
# written or removed. About 20
# minutes a run on a 2-core VM while the tree has no prompt-state cache (the prompts are
# about 5,900 and 8,500 tokens on the random base's tokenizer).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs=3 keep=0 threads=2 question='What is the sum of 12, 7, 30 and 5?'
base=build/bench/base-2b merged=build/bench/merged-2b given=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs|--threads|--question|--base|--merged)
      [ $# -ge 2 ] || { echo "run_chat_bench: $1 needs a value" >&2; exit 2; } ;;&
    --runs) runs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --threads) threads=$2; shift 2 ;;
    --question) question=$2; shift 2 ;;
    --base) base=$2 given=1; shift 2 ;;
    --merged) merged=$2 given=1; shift 2 ;;
    *) echo "run_chat_bench: unknown argument $1 (expected --runs N, --keep, --threads N, --question TEXT, --base DIR --merged DIR)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "run_chat_bench: --runs takes a whole number >= 1, not '$runs'" >&2; exit 2; }
[[ $threads =~ ^[1-9][0-9]*$ ]] || { echo "run_chat_bench: --threads takes a whole number >= 1, not '$threads'" >&2; exit 2; }
[ -n "$question" ] || { echo "run_chat_bench: --question is empty" >&2; exit 2; }
for tool in /usr/bin/time fincore python3; do
  command -v "$tool" >/dev/null || { echo "run_chat_bench: needs $tool (Debian: time, util-linux, python3)" >&2; exit 2; }
done

if [ "$given" = 1 ]; then
  for dir in "$base" "$merged"; do
    [ -f "$dir/config.json" ] || { echo "run_chat_bench: $dir has no config.json (--base and --merged name existing checkpoints)" >&2; exit 2; }
  done
fi
mkdir -p build/bench
out=$(mktemp -d build/bench/chat-results.XXXXXX)
made=() partial=''  # the checkpoints this run wrote: removed at exit unless --keep
cleanup() {
  rm -rf "$out" ${partial:+"$partial"}
  if [ "$keep" = 0 ] && [ ${#made[@]} -gt 0 ]; then rm -rf "${made[@]}"; fi
}
trap cleanup EXIT

source bench/common.sh
# Other builds may share this tree: one at a time, then a copy of the binary, so that a
# rebuild during the runs does not change what is measured.
{ flock 9; build_release; } 9>/tmp/qgpu-build.lock
cp "$qgpu" "$out/qgpu"
qgpu=$out/qgpu
export QGPU_CACHE_DIR=$out/cache-unused  # nothing outside $out, whatever a command caches

if [ ! -f "$base/config.json" ]; then
  echo "== a random base with Qwen3.5-2B's config in $base (about a minute)" >&2
  partial=$base.partial
  made+=("$base")
  rm -rf "$partial"
  "$qgpu" tiny-model --mergeable --out "$partial" --hidden 2048 --layers LLLFLLLFLLLFLLLFLLLFLLLF \
    --intermediate 6144 --vocab 248320 --dtype bf16 >&2
  mv "$partial" "$base"
  partial=''
fi
if [ ! -f "$merged/config.json" ]; then
  echo "== qgpu build --base $base --out $merged (about 10 minutes)" >&2
  made+=("$merged")
  "$qgpu" build --base "$base" --out "$merged" >/dev/null  # replaces --out only when complete
fi

# One measured command: stdout into $out/NAME.json, stderr into $out/NAME.err, wall time and
# peak RSS (KB) into $out/NAME.time, and the bytes of FILES... resident in the page cache
# when it started into $out/NAME.resident. Usage: measure NAME "FILES..." COMMAND...
measure() {
  local name=$1 files=$2; shift 2
  # shellcheck disable=SC2086  # the weight files, a list
  fincore --bytes --noheadings --output RES $files | awk '{s += $1} END {printf "%.0f\n", s}' >"$out/$name.resident"
  if ! /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" >"$out/$name.json" 2>"$out/$name.err"; then
    echo "run_chat_bench: $name failed: $*" >&2
    tail -n 5 "$out/$name.err" >&2
    exit 1
  fi
}
base_files=$(echo "$base"/*.safetensors) merged_files=$(echo "$merged"/*.safetensors)
for f in $base_files $merged_files; do
  [ -f "$f" ] || { echo "run_chat_bench: $f is missing: remove $base or $merged and rerun to write them again" >&2; exit 1; }
done

# The first reply's prompt as token ids, per mode (nothing generated).
for mode in normal advanced; do
  "$qgpu" ask "$merged" "$question" --mode "$mode" --print-prompt-tokens >"$out/ids.$mode" 2>"$out/ids.$mode.err" || {
    echo "run_chat_bench: qgpu ask --print-prompt-tokens failed on $merged ($mode mode):" >&2
    tail -n 5 "$out/ids.$mode.err" >&2
    exit 1
  }
  # One command-line argument holds at most 128 KiB (Linux's MAX_ARG_STRLEN).
  if [ "$(wc -c <"$out/ids.$mode")" -ge 131072 ]; then
    echo "run_chat_bench: the $mode prompt's ids are over 128 KiB, too long for generate --tokens" >&2
    exit 1
  fi
done

# The page cache: the checkpoint DIR read once, untimed, by a 16-token forward (every
# weight a prompt's reading touches), with the QGPU_CACHE_DIR of no timed run.
start=$(cut -d, -f1-16 "$out/ids.normal")
warm_pages() {
  "$qgpu" generate "$1" --tokens "$start" --max-tokens 1 --threads "$threads" --json >/dev/null 2>"$out/warm_pages.err" || {
    echo "run_chat_bench: qgpu generate $1 failed:" >&2
    tail -n 5 "$out/warm_pages.err" >&2
    exit 1
  }
}

for i in $(seq "$runs"); do
  for mode in normal advanced; do
    cache=$out/cache.$mode.$i
    mkdir "$cache"
    ask=("$qgpu" ask "$merged" "$question" --mode "$mode" --max-tokens 1 --threads "$threads" --json)
    echo "== run $i, $mode: merged, cold prompt cache" >&2
    warm_pages "$merged"
    QGPU_CACHE_DIR=$cache measure "cold.$mode.$i" "$merged_files" "${ask[@]}"
    echo "== run $i, $mode: base" >&2
    warm_pages "$base"
    measure "base.$mode.$i" "$base_files" \
      "$qgpu" generate "$base" --tokens "$(cat "$out/ids.$mode")" --max-tokens 1 --threads "$threads" --json
    echo "== run $i, $mode: merged, warm prompt cache" >&2
    warm_pages "$merged"
    QGPU_CACHE_DIR=$cache measure "warm.$mode.$i" "$merged_files" "${ask[@]}"
    # What the cache directory holds now (prompt-states/, and whatever else the start keeps).
    (cd "$cache" && du -sb -- * 2>/dev/null || true) >"$out/cache.$mode.$i.du"
    rm -rf "$cache"
  done
done

# shellcheck disable=SC2086
weights_gb=$(du -cb --apparent-size $base_files $merged_files | tail -1 | cut -f1)
python3 - "$out" "$runs" "$threads" "$question" "$weights_gb" "$given" "$base" "$merged" <<'PY'
import datetime, json, statistics, subprocess, sys
out, runs, threads, question, weights = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
given, base, merged = sys.argv[6] == "1", sys.argv[7], sys.argv[8]
modes = ("normal", "advanced")
def sh(cmd):
    return subprocess.run(["sh", "-c", cmd], capture_output=True, text=True).stdout.strip()
def load(name):
    j = json.load(open(f"{out}/{name}.json"))
    wall, rss = open(f"{out}/{name}.time").read().split()[-2:]
    j["wall"], j["rss_gb"] = float(wall), int(rss) / 1e6
    j["resident_gb"] = int(open(f"{out}/{name}.resident").read()) / 1e9
    return j
def med(xs, unit=""):
    lo, hi = min(xs), max(xs)
    return f"{statistics.median(xs):.2f}{unit} ({lo:.2f} to {hi:.2f}; runs {', '.join(f'{x:.2f}' for x in xs)})"

tokens = {m: len(open(f"{out}/ids.{m}").read().strip().split(",")) for m in modes}
r = {(side, m): [load(f"{side}.{m}.{i}") for i in range(1, runs + 1)] for side in ("cold", "warm", "base") for m in modes}
col = lambda side, m, key: [j[key] for j in r[side, m]]
cached = {m: col("warm", m, "prompt_tokens_from_cache") for m in modes}
def cache_held(m, i):
    parts = [line.split("\t") for line in open(f"{out}/cache.{m}.{i}.du").read().splitlines()]
    return ", ".join(f"{name} {int(size) / 1e6:.0f}" for size, name in parts) or "empty"
for m in modes:
    for side in ("cold", "warm"):
        for i, j in enumerate(r[side, m], 1):
            if j["prompt_tokens"] != tokens[m]:
                sys.exit(f"run_chat_bench: {side} {m} run {i} read a {j['prompt_tokens']}-token prompt, "
                         f"--print-prompt-tokens gave {tokens[m]}")
has_cache = any(n > 0 for m in modes for n in cached[m])

rows = [("prompt tokens (the checkpoint's tokenizer)", {m: f"{tokens[m]}" for m in modes})]
for side, label in (("cold", "merged, cold prompt cache"), ("warm", "merged, warm prompt cache"), ("base", "base alone (no cache)")):
    rows.append((f"{label}: first token s", {m: med(col(side, m, "first_token_seconds")) for m in modes}))
for side, label in (("cold", "merged, cold"), ("warm", "merged, warm"), ("base", "base")):
    rows.append((f"{label}: load s (start-up before the prompt)", {m: med(col(side, m, "load_seconds")) for m in modes}))
for side in ("cold", "warm"):
    rows.append((f"merged {side} / base, first token", {m: med([a["first_token_seconds"] / b["first_token_seconds"]
                                                              for a, b in zip(r[side, m], r["base", m])], "x") for m in modes}))
rows.append(("warm: prompt tokens from the cache", {m: ", ".join(map(str, cached[m])) for m in modes}))
rows.append(("QGPU_CACHE_DIR after the warm run, MB", {m: "; ".join(cache_held(m, i) for i in range(1, runs + 1)) for m in modes}))
for side, label in (("cold", "merged, cold"), ("warm", "merged, warm"), ("base", "base")):
    rows.append((f"{label}: process wall s (to exit) / peak RSS GB", {m: f"{statistics.median(col(side, m, 'wall')):.1f} / "
                                                                    f"{statistics.median(col(side, m, 'rss_gb')):.2f}" for m in modes}))
for side, label in (("cold", "merged"), ("base", "base")):
    rows.append((f"{label}: weights resident at start, GB", {m: med(col(side, m, "resident_gb")) for m in modes}))

cpu = sh("lscpu | grep 'Model name' | cut -d: -f2")
cores = sh("nproc")
mem = sh("free -g | awk '/Mem:/ {print $2}'")
commit = sh("git describe --always --dirty")
cache_line = ("The tree has a prompt-state cache: the warm runs started after the cached system prompt."
              if has_cache else
              "The tree has no prompt-state cache yet (no warm run took a token from one): warm reads the "
              "whole prompt again, like cold.")
lines = [
    "# Chat benchmark: time to the first token",
    "",
    f"Generated by `bench/run_chat_bench.sh` on {datetime.date.today()} ({cpu}, {cores} cores, {mem} GB of memory; "
    f"{threads} threads; qgpu {commit}), {runs} runs.",
    f"Model: {merged} and its base {base}." if given else
    "Model: a random base with Qwen3.5-2B's exact config (24 layers [LLLF]x6, hidden 2048, vocab 248320, bf16) "
    "and its merge (`qgpu build`); the random base ships a byte-level tokenizer, so its prompts are longer "
    "than Qwen's tokenizer would make them.",
    f"Question: \"{question}\"; the first reply's prompt is the chat template with the mode's system prompt "
    "(normal: the 16 tools; advanced: the CUDA reference). Merged: `qgpu ask --max-tokens 1 --json` "
    "(first_token_seconds: from process start to the end of the prompt's reading, whose last forward gives the "
    "first token). Base: `qgpu generate --tokens` with the same ids, from its start to its first token.",
    f"Each run: cold (QGPU_CACHE_DIR a fresh empty directory), base, warm (the same directory), per mode. {cache_line}",
    f"Page cache: warm. Before each timed run its checkpoint was read once, untimed (a 16-token forward); "
    f"the weight files are {weights / 1e9:.1f} GB apparent size, the machine has {mem} GB; the resident rows give "
    "what the page cache held of the side's files as each run started.",
    "Medians, then the range and every run's value.",
    "",
    "| | normal | advanced |",
    "|---|---|---|",
    *[f"| {name} | {v['normal']} | {v['advanced']} |" for name, v in rows],
    "",
    "Raw results (the base's prompt ids left out):",
    "",
    "```json",
    json.dumps({f"{side}.{m}": [{k: v for k, v in j.items() if k != ("prompt_tokens" if side == "base" else "launches")}
                                for j in r[side, m]] for side, m in r}, indent=1),
    "```",
]
open("bench/chat-report.md", "w").write("\n".join(lines) + "\n")
for name, v in rows:
    print(f"{name}:\n  normal   {v['normal']}\n  advanced {v['advanced']}")
print("wrote bench/chat-report.md")
PY
