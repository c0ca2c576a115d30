"""The qgpu Python module (python/README.md): map, decode, compile, interpret, launch, hooks, state patches.

Run by CTest in the dev preset (python/CMakeLists.txt: PYTHONPATH=build/dev/python:.), or
by hand: PYTHONPATH=build/dev/python python3 -m pytest -q python/tests
"""

import os

import numpy as np
import pytest

import qgpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# tests/test_util.h's vecadd_kernel: 3 blocks of 4 threads, 10 elements, one sum overflows.
VECADD_ARGS = {
    "a": [1, 2, 3, 4, 5, 6, 7, 8, 9, -2147483647],
    "b": [10, 20, 30, 40, 50, 60, 70, 80, 90, -100],
    "c": [0] * 10,
    "n": 10,
}
VECADD_C = [11, 22, 33, 44, 55, 66, 77, 88, 99, 2147483549]  # -2147483647 + -100 wraps


@pytest.fixture(scope="module")
def vecadd():
    return qgpu.compile(os.path.join(ROOT, "kernels/vecadd.cu"), grid=3, block=4, args=VECADD_ARGS)


@pytest.fixture(scope="module")
def reference(vecadd):
    return qgpu.interpret(vecadd)


@pytest.fixture(scope="module")
def model():
    return qgpu.Model("f32")


@pytest.fixture(scope="module")
def plain_run(model, vecadd):
    return model.launch(vecadd)


def first_add_value(run):
    """The first value record of the first add step, and the token position it is generated at."""
    for i, (rec, ins) in enumerate(zip(run["records"], run["instructions"])):
        if ins.startswith("add") and rec.startswith("v"):
            return i, run["prompt_tokens"] + i - 1
    raise AssertionError("no add step")


def test_map_has_sum_with_128_dims():
    m = qgpu.machine_map()
    assert m["format"] == "qgpu-map 1"
    sums = [f for f in m["fields"] if f["name"] == "sum"]
    assert len(sums) == 1 and sums[0]["dims"][1] == 128
    f = qgpu.field("sum")
    assert f["size"] == 128 and f["offset"] == sums[0]["dims"][0]
    assert f["kind"] == "nibbles" and f["born_at"] == "L13.mlp" == sums[0]["born_at"]
    assert f["born"] == sums[0]["born"]
    assert len(qgpu.fields()) == len(m["fields"])
    with pytest.raises(KeyError):
        qgpu.field("no such field")


def test_decode_round_trips_a_nibble_word():
    f = qgpu.field("sum")
    for word in (0, 11, 0x89ABCDEF, 2**32 - 1):
        row = np.zeros(qgpu.hidden_size, dtype=np.float32)
        row[f["offset"]:f["offset"] + f["size"]] = qgpu.encode("sum", word)
        r = qgpu.decode("sum", row)
        assert r["valid"] and r["error"] == "" and r["word"] == word
        assert r["digits"] == [(word >> (4 * g)) & 15 for g in range(8)]
        # In a merged checkpoint's row the GPU's dims come after the base's.
        merged = np.concatenate([np.full(100, 0.3, dtype=np.float32), row])
        assert qgpu.decode("sum", merged, offset=100)["word"] == word
    # Not a code: two hot entries in a nibble.
    row = np.zeros(qgpu.hidden_size, dtype=np.float32)
    row[f["offset"]:f["offset"] + 2] = 1.0
    r = qgpu.decode("sum", row)
    assert not r["valid"] and "two hot entries" in r["error"] and r["word"] is None
    with pytest.raises(ValueError):
        qgpu.decode("sum", row[:f["offset"] + 10])


def test_compile_and_interpret_vecadd(vecadd, reference):
    assert vecadd.kernel == "vecadd" and vecadd.outputs == ["a", "b", "c"]
    assert vecadd.grid == (3, 1) and vecadd.block == (4, 1)
    c = reference["outputs"]["c"]
    assert c.dtype == np.int32 and c.tolist() == VECADD_C
    assert reference["records"][-1] == "end" and reference["tokens"] == len(reference["records"])


def test_unsigned_arrays_are_uint32():
    p = qgpu.compile("__global__ void k(unsigned *u, int *s) { u[0] = 4000000000u + u[0]; s[0] = (int)u[0]; }",
                     block=1, args={"u": [10], "s": [0]})
    out = qgpu.interpret(p)["outputs"]
    assert out["u"].dtype == np.uint32 and out["u"].tolist() == [4000000010]
    assert out["s"].dtype == np.int32 and out["s"].tolist() == [4000000010 - 2**32]


def test_compile_errors_are_qgpu_errors():
    with pytest.raises(qgpu.Error):
        qgpu.compile('extern "C" __global__ void k(int *a) { a[0] = undefined_name; }', args={"a": [0]})


def test_model_launch_matches_the_interpreter(plain_run, reference):
    assert plain_run["engine"] == "model"
    assert plain_run["records"] == reference["records"]
    assert plain_run["prompt_ids"] == reference["prompt_ids"]
    for name in ("a", "b", "c"):
        assert np.array_equal(plain_run["outputs"][name], reference["outputs"][name])


def test_a_reading_hook_changes_nothing(model, vecadd, plain_run):
    seen = {}

    def hook(name, layer, position, array):
        seen[name] = seen.get(name, 0) + 1
        assert array.dtype == np.float32 and array.ndim == 1
        if name in ("embed", "attn_residual", "layer_out"):
            assert array.shape[0] == model.hidden_size

    run = model.launch(vecadd, hook=hook)
    assert run["records"] == plain_run["records"]
    assert np.array_equal(run["outputs"]["c"], plain_run["outputs"]["c"])
    positions = len(run["prompt_ids"]) + len(run["records"]) - 1  # `end` is not fed
    assert seen["embed"] == positions
    assert seen["layer_out"] == positions * model.layers


def test_a_patch_of_sum_changes_one_output_element(model, vecadd, reference, plain_run):
    i, position = first_add_value(reference)
    f = qgpu.field("sum")
    at = f["born"]  # L13.mlp: layer_out of layer 13
    captured = {}

    def patch(name, layer, pos, row):
        if pos == position and name == "layer_out" and 2 * layer + 1 == at:
            captured["row"] = np.array(row)  # a plain numpy copy, decoded below as any other framework's row
            row[f["offset"]:f["offset"] + f["size"]] = qgpu.encode("sum", 7)

    run = model.launch(vecadd, hook=patch)
    # The row as the model held it before the patch: the first add's sum, lane 0's a + b.
    before = qgpu.decode("sum", captured["row"])
    assert before["valid"] and before["word"] == 11 and plain_run["records"][i] == "v0:11"
    assert run["records"][i] == "v0:7"
    c0, c1 = plain_run["outputs"]["c"], run["outputs"]["c"]
    changed = np.flatnonzero(c0 != c1)
    assert changed.tolist() == [0] and c1[0] == 7
    assert np.array_equal(run["outputs"]["a"], plain_run["outputs"]["a"])


def test_a_hook_exception_stops_the_launch(model, vecadd):
    def hook(name, layer, position, array):
        raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        model.launch(vecadd, hook=hook)


def test_a_failed_launch_carries_its_records(model, vecadd, reference):
    with pytest.raises(qgpu.Error) as e:
        model.launch(vecadd, max_records=10)
    assert "without `end`" in str(e.value)
    assert len(e.value.records) >= 1 and e.value.records == reference["records"][:len(e.value.records)]


def test_a_memory_patch_before_the_load_changes_c0(model, vecadd, plain_run):
    # a[0] is memory word 0; position 130 comes before the first load reads it.
    run = model.launch(vecadd, patch_state=[{"memory": 0, "value": 100, "position": 130}])
    c0, c1 = plain_run["outputs"]["c"], run["outputs"]["c"]
    assert np.flatnonzero(c0 != c1).tolist() == [0] and c1[0] == 110
    assert run["outputs"]["a"][0] == 100 and np.array_equal(run["outputs"]["a"][1:], plain_run["outputs"]["a"][1:])


def check_register_patch(run, plain_run, i):
    assert plain_run["records"][i] == "v0:11" and run["records"][i] == "v0:60"
    differ = [k for k, (x, y) in enumerate(zip(plain_run["records"], run["records"])) if x != y]
    assert differ == [i] and len(run["records"]) == len(plain_run["records"])
    c0, c1 = plain_run["outputs"]["c"], run["outputs"]["c"]
    assert np.flatnonzero(c0 != c1).tolist() == [0] and c1[0] == 60
    assert np.array_equal(run["outputs"]["a"], plain_run["outputs"]["a"])


def test_a_register_patch_changes_one_record_and_c0(model, vecadd, reference, plain_run):
    # Lane 0's r1 (a[0], loaded) of warp 0, written just before the add reads it.
    i, position = first_add_value(reference)
    run = model.launch(vecadd, patch_state=[{"register": (0, 0, "r1"), "value": 50, "position": position}])
    check_register_patch(run, plain_run, i)


def test_a_state_hook_writes_the_same_patch(model, vecadd, reference, plain_run):
    i, position = first_add_value(reference)
    seen, kept = [], []

    def state_hook(pos, state):
        seen.append(pos)
        assert state.position == pos
        if pos == position:
            state.write_register(0, 0, "r1", 50)
            kept.append(state)

    run = model.launch(vecadd, state_hook=state_hook)
    check_register_patch(run, plain_run, i)
    # Called before each generated record is read (not the prompt, not `end`).
    prompt = run["prompt_tokens"]
    assert seen == list(range(prompt, prompt + len(run["records"]) - 1))
    with pytest.raises(ValueError, match="finished state_hook"):
        kept[0].write_memory(0, 1)


@pytest.mark.parametrize("item, message", [
    ({"memory": 200, "value": 1, "position": 130}, r"patch_state\[0\] .*memory word, 0\.\.125"),
    ({"memory": 0, "value": 1, "position": 3}, r"patch_state\[0\] .*in the prompt"),
    ({"register": (0, 0, "r99"), "value": 1, "position": 130}, r"patch_state\[0\] .*'r0'\.\.'r23'"),
    ({"register": (0, 9, "r1"), "value": 1, "position": 130}, r"patch_state\[0\] .*lanes 0\.\.3"),
    ({"memory": 0, "register": (0, 0, "r1"), "value": 1, "position": 130}, r"one of 'memory' and 'register'"),
    ({"memory": 0, "value": 2**32, "position": 130}, r"32-bit word"),
    ({"memory": 0, "value": 1}, r"'value' and 'position' are required"),
    ({"memory": 0, "value": 1, "position": 130, "when": 1}, r"unknown key 'when'"),
    ("mem[0]=1@130", r"patch_state\[0\] 'mem\[0\]=1@130': expected"),
])
def test_a_bad_state_patch_is_a_value_error(model, vecadd, item, message):
    with pytest.raises(ValueError, match=message):
        model.launch(vecadd, patch_state=[item])


def test_the_bad_item_is_named_by_its_index(model, vecadd):
    good = {"memory": 0, "value": 1, "position": 130}
    with pytest.raises(ValueError, match=r"patch_state\[1\] \{'memory': -1"):
        model.launch(vecadd, patch_state=[good, {"memory": -1, "value": 1, "position": 130}])
