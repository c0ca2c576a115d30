"""The qgpu Python module (python/README.md): map, decode, compile, interpret, launch, hooks.

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
