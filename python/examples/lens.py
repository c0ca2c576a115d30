"""A logit lens for the machine: what each sublayer writes, read through the map, then a patch.

Compiles kernels/vecadd.cu (grid 3, block 4, the arguments of tests/test_util.h's
vecadd_kernel), launches it on the GPU-only model, and at the token position where the
first `add`'s first value record is generated decodes, after every sublayer, the fields
that sublayer writes first (the map's `born`). Then patches the adder's word `sum` at that
position and shows that exactly one element of `c` changes, and last writes the register
the add reads (lane 0's r1 of warp 0) in the machine's state before that position, with the
same effect.

    PYTHONPATH=build/dev/python python3 python/examples/lens.py
"""

import os
import sys
import time

import numpy as np

import qgpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARGS = {
    "a": [1, 2, 3, 4, 5, 6, 7, 8, 9, -2147483647],
    "b": [10, 20, 30, 40, 50, 60, 70, 80, 90, -100],
    "c": [0] * 10,
    "n": 10,
}


def sublayer(name, layer):
    """The map's sublayer number of a residual probe: -1 the embedding, 2 il the mixer, 2 il + 1 the MLP."""
    return {"embed": -1, "attn_residual": 2 * layer, "layer_out": 2 * layer + 1}.get(name)


def first_add_value(run):
    """The index of the first value record of the first `add` step, and its position."""
    for i, (rec, ins) in enumerate(zip(run["records"], run["instructions"])):
        if ins.startswith("add") and rec.startswith("v"):
            return i, run["prompt_tokens"] + i - 1  # generated from the logits at the token before it
    raise SystemExit("no add step in the records")


def main():
    start = time.time()
    program = qgpu.compile(os.path.join(ROOT, "kernels/vecadd.cu"), grid=3, block=4, args=ARGS)
    model = qgpu.Model("f32")
    reference = qgpu.interpret(program)
    i, position = first_add_value(reference)
    print(f"{program}: record {i} '{reference['records'][i]}' ({reference['instructions'][i]}) "
          f"is generated at token position {position}")

    # 1. The lens: the residual after every sublayer at that position (copies: the hook's
    # arrays are its own), then the fields each sublayer writes first.
    rows = {}

    def record(name, layer, pos, row):
        s = sublayer(name, layer)
        if pos == position and s is not None:
            rows[s] = row.copy()

    run = model.launch(program, hook=record)
    assert run["records"] == reference["records"], "a hook that only reads changed the records"
    fields = qgpu.fields()
    for s in sorted(rows):
        born = [f["name"] for f in fields if f["born"] == s and f["kind"] != "ones"]
        readings = []
        for name in born:
            r = qgpu.decode(name, rows[s])
            if not r["empty"]:
                readings.append(f"{name}={r['text']}")
        if readings:
            print(f"  {qgpu.sublayer_name(s):>10} " + " ".join(readings))

    # 2. The patch: write another word into `sum` after L13's MLP (where it is born) at that
    # position; the record, the register it writes and the stored element follow it.
    f = qgpu.field("sum")
    old = qgpu.decode("sum", rows[f["born"]])["word"]
    new = old + 100

    def patch(name, layer, pos, row):
        if pos == position and sublayer(name, layer) == f["born"]:
            row[f["offset"]:f["offset"] + f["size"]] = qgpu.encode("sum", new)

    patched = model.launch(program, hook=patch)
    before, after = run["outputs"]["c"], patched["outputs"]["c"]
    changed = np.flatnonzero(before != after)
    print(f"patch: sum {old} -> {new} at position {position} after {f['born_at']}: record "
          f"'{run['records'][i]}' -> '{patched['records'][i]}'")
    print(f"  c before: {before.tolist()}")
    print(f"  c after:  {after.tolist()}")
    print(f"  {len(changed)} element changed: c[{', '.join(map(str, changed))}] "
          f"{before[changed].tolist()} -> {after[changed].tolist()}  ({time.time() - start:.1f} s)")

    # 3. A state patch: lane 0's r1 of warp 0 (a[0], loaded) set to 50 before the token at
    # that position is read, so the add reads 50: the same record and element follow it.
    poked = model.launch(program, patch_state=[{"register": (0, 0, "r1"), "value": 50, "position": position}])
    reg_changed = np.flatnonzero(before != poked["outputs"]["c"])
    print(f"state patch: w0 l0 r1 = 50 before position {position}: record '{run['records'][i]}' -> "
          f"'{poked['records'][i]}', c[{', '.join(map(str, reg_changed))}] "
          f"{before[reg_changed].tolist()} -> {poked['outputs']['c'][reg_changed].tolist()}")
    return 0 if len(changed) == 1 and len(reg_changed) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
