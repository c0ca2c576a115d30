#!/usr/bin/env bash
# What a change to the construction costs every token: the integer corpus generated inside
# the GPU-only model by two qgpu binaries, alternated in the same run.
#   bench/run_corpus_ab.sh OLD_QGPU [NEW_QGPU] [--rounds N] [--dtype bf16|f32|f16]
#   (defaults: NEW_QGPU build/release/qgpu, built here; 3 rounds; bf16)
# The kernels are the corpus's without floats whose first `// run:` line generates 300 to
# 20,000 records (the interpreter's count), at most 24 of them, the longest first. Each
# round runs every kernel on OLD, then on NEW (odd rounds NEW first); tokens/s is a binary's
# generated records over its generation seconds (the model's construction apart), summed
# over the kernels. Prints each round, the medians with their range and NEW / OLD. Each
# binary's model must generate its own interpreter's record count (exit 1 otherwise); the
# counts may differ between the binaries when their compilers do.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
old="" new="" rounds=3 dtype=bf16
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --dtype) dtype=$2; shift 2 ;;
    -*) echo "run_corpus_ab: unknown option $1 (expected --rounds or --dtype)" >&2; exit 2 ;;
    *) if [ -z "$old" ]; then old=$1; elif [ -z "$new" ]; then new=$1; else
         echo "run_corpus_ab: one OLD and one NEW binary, not $1" >&2; exit 2; fi; shift ;;
  esac
done
[ -n "$old" ] || { echo "run_corpus_ab: name the old qgpu binary (bench/run_corpus_ab.sh OLD [NEW])" >&2; exit 2; }
[ -x "$old" ] || { echo "run_corpus_ab: $old is not an executable qgpu binary" >&2; exit 2; }
if [ -z "$new" ]; then
  source bench/common.sh
  build_release
  new=$qgpu
fi

python3 - "$old" "$new" "$rounds" "$dtype" <<'PY'
import glob, json, shlex, statistics, subprocess, sys

old, new, rounds, dtype = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def run_line(cu):
    for line in open(cu):
        if line.startswith("// run: "):
            return shlex.split(line[len("// run: "):])
    return None

def run(binary, cu, args, engine):
    extra = ["--engine", engine] + (["--dtype", dtype] if engine == "model" else [])
    p = subprocess.run([binary, "run", cu, *args, *extra, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"run_corpus_ab: {binary} run {cu}: {p.stderr.strip()}")
    return json.loads(p.stdout)

kernels = []
for cu in sorted(glob.glob("kernels/*.cu")):
    text = open(cu).read()
    args = run_line(cu)
    if args is None or "float" in text:
        continue
    records = {b: run(b, cu, args, "interp")["tokens"] for b in (old, new)}
    if 300 <= records[new] <= 20000:
        kernels.append((records, cu, args))
kernels = sorted(kernels, key=lambda k: k[0][new], reverse=True)[:24]
print(f"{len(kernels)} integer kernels, records a round: old {sum(k[0][old] for k in kernels)}, "
      f"new {sum(k[0][new] for k in kernels)} ({dtype})")

rates = {old: [], new: []}
for r in range(rounds):
    order = [old, new] if r % 2 == 0 else [new, old]
    line = []
    for binary in order:
        tokens = seconds = 0
        for records, cu, args in kernels:
            j = run(binary, cu, args, "model")
            if j["tokens"] != records[binary]:
                sys.exit(f"run_corpus_ab: {binary} generated {j['tokens']} records of {cu}, its interpreter {records[binary]}")
            tokens += j["tokens"]
            seconds += j["seconds"]
        rates[binary].append(tokens / seconds)
        line.append(f"{'old' if binary == old else 'new'} {tokens / seconds:,.0f} tokens/s")
    print(f"round {r + 1}: " + ", ".join(line))

def summary(v):
    return f"{statistics.median(v):,.0f} tokens/s (range {min(v):,.0f}-{max(v):,.0f})"
print(f"old {old}: {summary(rates[old])}")
print(f"new {new}: {summary(rates[new])}")
print(f"new / old: {statistics.median(rates[new]) / statistics.median(rates[old]):.3f}")
PY
