#!/usr/bin/env bash
# What one float operation costs a 4-lane warp inside the GPU-only model, in generated tokens.
#   bench/run_float_ops.sh [QGPU_BINARY] [--dtype bf16|f32|f16]   (default build/release/qgpu, built here; bf16)
# Each operation is a one-line kernel over 4 threads (c[i] = a[i] OP b[i], ...) run with
# `qgpu run --engine model` and, with the one-op forms, `--engine interp`; its cost is its
# model records less a plain copy's (the loads of its operands included, as a kernel pays
# them). Also: a kernel with six different float operations once each (a compare and select,
# a sub, a div, a sqrt, min, an fma and two conversions), which must fit the ROM. Every
# model run's outputs must be the interpreter's (exit 1 otherwise). Kernels are written to
# a temporary directory, removed at exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
qgpu="" dtype=bf16
while [ $# -gt 0 ]; do
  case $1 in
    --dtype) dtype=$2; shift 2 ;;
    -*) echo "run_float_ops: unknown option $1 (expected --dtype)" >&2; exit 2 ;;
    *) qgpu=$1; shift ;;
  esac
done
if [ -z "$qgpu" ]; then
  source bench/common.sh
  build_release
fi
[ -x "$qgpu" ] || { echo "run_float_ops: $qgpu is not an executable qgpu binary" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$qgpu" "$dtype" "$work" <<'PY'
import json, subprocess, sys

qgpu, dtype, work = sys.argv[1:]
A, AI = "a=[1.5,-2.25,3e10,7e-3]", "a=[3,-7,123456789,-2147483647]"
B, C, Z = "b=[0.1,5.5,-2e-5,123.0]", "c=[0.25,-1.0,4.0,0.5]", "c=[0,0,0,0]"
F = "const float *a, const float *b, const float *c, float *d"
I = "const int *a, const float *b, const float *c, float *d"
S = "const float *a, const float *b, const float *c, int *d"
ops = [  # name, parameters, body, a, control
    ("copy", F, "d[i] = a[i];", A, None),
    ("copy int", "const int *a, const float *b, const float *c, int *d", "d[i] = a[i];", AI, None),
    ("add.f32 (a + b)", F, "d[i] = a[i] + b[i];", A, "copy"),
    ("sub.f32 (a - b)", F, "d[i] = a[i] - b[i];", A, "copy"),
    ("mul.f32 (a * b)", F, "d[i] = a[i] * b[i];", A, "copy"),
    ("fma.rn.f32 (fmaf)", F, "d[i] = fmaf(a[i], b[i], c[i]);", A, "copy"),
    ("div.rn.f32 (a / b)", F, "d[i] = a[i] / b[i];", A, "copy"),
    ("sqrt.rn.f32 (sqrtf)", F, "d[i] = sqrtf(a[i]);", A, "copy"),
    ("cvt.rn.f32.s32 ((float)i)", I, "d[i] = (float)a[i];", AI, "copy int"),
    ("cvt.rzi.s32.f32 ((int)x)", S, "d[i] = (int)a[i];", A, "copy"),
    ("cvt.rmi.f32.f32 (floorf)", F, "d[i] = floorf(a[i]);", A, "copy"),
]

def run(cu, args, engine):
    extra = ["--engine", engine] + (["--dtype", dtype] if engine == "model" else [])
    p = subprocess.run([qgpu, "run", cu, *args, *extra, "--json"], capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else {"error": p.stderr.strip().splitlines()[-1]}

print(f"float operations inside the GPU-only model ({dtype}; {qgpu}), 4 threads, one warp")
print("| operation | interp blocks | model blocks | model steps | model records | tokens a warp (less a copy) |")
print("|---|---|---|---|---|---|")
records, failed = {}, False
for name, params, body, a, control in ops:
    cu = f"{work}/op.cu"
    open(cu, "w").write(f'extern "C" __global__ void k({params}) {{ int i = threadIdx.x; {body} }}\n')
    args = ["--grid", "1", "--block", "4", "--arg", a, "--arg", B, "--arg", C, "--arg", Z.replace("c=", "d=")]
    ji, jm = run(cu, args, "interp"), run(cu, args, "model")
    if "error" in jm:
        print(f"| {name} | {ji['blocks']} | - | - | - | model: {jm['error']} |")
        failed = True
        continue
    if jm["outputs"] != ji["outputs"]:
        print(f"| {name} | outputs differ: model {jm['outputs']}, interpreter {ji['outputs']} |")
        failed = True
    records[name] = jm["tokens"]
    cost = jm["tokens"] - records[control] if control else 0
    print(f"| {name} | {ji['blocks']} | {jm['blocks']} | {jm['steps']} | {jm['tokens']} | {cost} |")

six = f"{work}/six_ops.cu"
open(six, "w").write('''extern "C" __global__ void six_ops(const float *a, const float *b, const int *n, float *out, int *outi) {
  int i = threadIdx.x;
  float x = a[i], y = b[i];
  float s = x > y ? x : y;
  float q = (x - y) / y;
  float m = fminf(sqrtf(fabsf(q)), s);
  float f = fmaf(m, x, (float)n[i]);
  out[i] = f;
  outi[i] = (int)f;
}
''')
args = ["--grid", "1", "--block", "4", "--arg", A, "--arg", B, "--arg", "n=[3,-7,100,0]", "--arg", "out=[0,0,0,0]",
        "--arg", "outi=[0,0,0,0]"]
ji, jm = run(six, args, "interp"), run(six, args, "model")
if "error" in jm:
    print(f"\nsix float operations once each: does not run in the model: {jm['error']}")
    failed = True
else:
    same = jm["outputs"] == ji["outputs"]
    failed |= not same
    print(f"\nsix float operations once each: {jm['blocks']} blocks (the ROM holds 256), {jm['steps']} steps, "
          f"{jm['tokens']} records in the model; outputs {'equal' if same else 'DIFFER'}")
sys.exit(1 if failed else 0)
PY
