#!/usr/bin/env bash
# Float kernels inside the compiled GPU-only model: what a binary32 op costs in generated
# tokens, and how fast the model generates them, against llama.cpp on the same model's GGUF.
#   bench/run_float_bench.sh [--dtype bf16|f32|f16] [--peer KERNEL.cu] [--peer-records N]
#   (defaults: bf16, kernels/saxpy_fma.cu, 128 records)
# Every kernels/*.cu with f32 arithmetic (add, sub, mul, fma, div, sqrt, the conversions and
# roundings) runs its first `// run:` line twice:
#   - on the interpreter, with the one-op forms: its records, and its float steps (warp steps
#     of a block holding a float op: `sched` records of those blocks);
#   - inside the model, where each float op is an integer sequence (docs/design.md §3,
#     "The rest of the ALU"): its records and tokens/s. Its outputs must be the
#     interpreter's (exit 1 otherwise).
# tokens / float step = (model records - interpreter records) / float steps: what the
# sequences add per float op a warp runs. Kernels that do not fit the machine as sequences
# (past the ROM's blocks or the registers) are listed with the compiler's reason.
# Peer: llama.cpp (node-llama-cpp, one thread) generates the first N records of the peer
# kernel from its image on the GGUF export (build/bench/gpu-DTYPE, as run_launch_bench.sh),
# and qgpu's engine the whole launch in the same run: both tokens/s and the ratio, and
# llama.cpp's records must be qgpu's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dtype=bf16 peer=kernels/saxpy_fma.cu peer_records=128
while [ $# -gt 0 ]; do
  case $1 in
    --dtype) dtype=$2; shift 2 ;;
    --peer) peer=$2; shift 2 ;;
    --peer-records) peer_records=$2; shift 2 ;;
    *) echo "run_float_bench: unknown argument $1 (expected --dtype, --peer or --peer-records)" >&2; exit 2 ;;
  esac
done

source bench/common.sh
build_release
gpu_model_export "$dtype"

python3 - "$qgpu" "$dtype" "$dir/model.gguf" "$peer" "$peer_records" <<'PY'
import glob, json, re, shlex, statistics, subprocess, sys

qgpu, dtype, gguf, peer, peer_records = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
FLOAT = re.compile(r"^\s+(?:@!?p\d+ )?(add|sub|mul|fma|div|sqrt)\.f32 |^\s+(?:@!?p\d+ )?cvt\.")

def run_line(cu):
    for line in open(cu):
        if line.startswith("// run: "):
            return shlex.split(line[len("// run: "):])
    return None

def qgpu_run(cu, args, *extra):
    p = subprocess.run([qgpu, "run", cu, *args, *extra], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()

def float_blocks(cu, args):
    """Block numbers of the interpreter's program that hold a float arithmetic op."""
    rc, out, err = qgpu_run(cu, args, "--engine", "interp", "--dump", "blocks")
    blocks, n = set(), 0
    for line in out.splitlines():
        if not line.startswith("    "):
            continue  # directives and labels are not blocks
        if FLOAT.match(line):
            blocks.add(n)
        n += 1
    return blocks

rows, misfits, failed = [], [], False
for cu in sorted(glob.glob("kernels/*.cu")):
    args = run_line(cu)
    if args is None:
        continue
    fb = float_blocks(cu, args)
    if not fb:
        continue
    rc, out, err = qgpu_run(cu, args, "--engine", "interp", "--json", "--trace")
    interp = json.loads(out)
    steps = sum(1 for r in interp["records"] if r.startswith("sched ") and int(r.split()[2][1:]) in fb)
    rc, out, err = qgpu_run(cu, args, "--engine", "model", "--dtype", dtype, "--json")
    if rc != 0:
        misfits.append((cu, err.splitlines()[-1] if err else f"exit {rc}"))
        continue
    model = json.loads(out)
    same = model["outputs"] == interp["outputs"]
    failed |= not same
    extra = (model["tokens"] - interp["tokens"]) / steps if steps else 0.0
    rows.append((cu.split("/")[-1][:-3], steps, interp["tokens"], model["tokens"], extra, model["tokens"] / model["seconds"], same))

print(f"Float kernels inside the GPU-only model ({dtype}; qgpu release build, tokens/s of the whole launch)\n")
print("| kernel | float steps | interp records | model records | tokens / float step | model tokens/s | outputs |")
print("|---|---|---|---|---|---|---|")
for name, steps, ti, tm, extra, tps, same in rows:
    print(f"| {name} | {steps} | {ti} | {tm} | {extra:.0f} | {tps:.0f} | {'equal' if same else 'DIFFER'} |")
if rows:
    print(f"\n{len(rows)} float kernels generate; median tokens / float step {statistics.median(r[4] for r in rows):.0f}, "
          f"median model tokens/s {statistics.median(r[5] for r in rows):.0f} "
          f"(range {min(r[5] for r in rows):.0f}-{max(r[5] for r in rows):.0f})")
print(f"{len(misfits)} do not fit the machine as sequences:")
for cu, why in misfits:
    print(f"  {cu}: {why}")

# The peer, in the same run: qgpu's engine on the whole launch, llama.cpp on its first records.
args = run_line(peer)
rc, out, err = qgpu_run(peer, args, "--engine", "model", "--dtype", dtype, "--json", "--trace")
if rc != 0:
    sys.exit(f"run_float_bench: {peer} does not run inside the model: {err}")
ours = json.loads(out)
n = min(peer_records, len(ours["record_ids"]))
prompt = ",".join(map(str, ours["prompt_ids"]))
p = subprocess.run(["node", "tests/llamacpp/llama_run.mjs", "--model", gguf, "--tokens", prompt, "--generate", str(n),
                    "--greedy-only", "--threads", "1"], capture_output=True, text=True)
if p.returncode != 0:
    sys.exit(f"run_float_bench: llama.cpp failed: {p.stderr.strip()}")
theirs = json.loads(p.stdout)
same = theirs["generated"] == ours["record_ids"][:n]
failed |= not same
ours_tps = ours["tokens"] / ours["seconds"]
theirs_tps = 1000.0 / theirs["timing_ms"]["generate_per_token"]
print(f"\nPeer: {peer} ({dtype}); llama.cpp's first {n} records {'equal' if same else 'DIFFER FROM'} ours")
print(f"  qgpu engine: {ours_tps:.1f} tokens/s ({ours['tokens']} records)")
print(f"  llama.cpp:   {theirs_tps:.2f} tokens/s (1 thread, {n} records)")
print(f"  ratio:       {ours_tps / theirs_tps:.0f}x")
sys.exit(1 if failed else 0)
PY
