"""Reduces a random kernel that qgpu gets wrong to a small one that it still gets wrong.

Delta debugging over the program's tree (gen.py), greedy to a fixed point: drop statements
(halves, then quarters, ... then one at a time), flatten an if, a loop or a switch into one
of its bodies, replace an expression by one of its operands or a constant, drop a device
function, a parameter or an output that nothing reads any more, shrink the grid. Every edit
keeps the program well defined (the tree's nodes print their own guards, and a shared-memory
phase is kept or dropped whole); a candidate counts only if the reference still runs it
cleanly and qgpu, at the failing level and clang, still answers differently from it.

For speed, when the original kernel passes at another level, a candidate is first run by
qgpu at both levels: equal outputs there mean the bug is gone, with no host compile.
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import gen

MAX_TESTS = 800
MAX_SECONDS = 900


def stmt_lists(k: gen.Kernel) -> list[list]:
    out = []

    def visit(lst):
        out.append(lst)
        for s in lst:
            for b in s.blocks():
                visit(b)
    visit(k.body)
    for f in k.functions:
        visit(f.body)
    return out


class Slot:
    """Where an expression sits: get() and set(e)."""
    def __init__(self, get, put):
        self.get, self.set = get, put


def expr_slots(k: gen.Kernel) -> list[Slot]:
    slots: list[Slot] = []

    def add(get, put):
        slots.append(Slot(get, put))
        e = get()
        for i in range(len(e.children())):
            add(lambda e=e, i=i: e.args[i], lambda x, e=e, i=i: e.args.__setitem__(i, x))

    for lst in stmt_lists(k):
        for s in lst:
            for holder, attr in s.exprs():
                add(lambda h=holder, a=attr: getattr(h, a), lambda x, h=holder, a=attr: setattr(h, a, x))
    for j in range(len(k.locals)):
        add(lambda j=j: k.locals[j][2], lambda x, j=j: k.locals.__setitem__(j, (k.locals[j][0], k.locals[j][1], x)))
    for f in k.functions:
        add(lambda f=f: f.result, lambda x, f=f: setattr(f, "result", x))
        for j in range(len(f.locals)):
            add(lambda f=f, j=j: f.locals[j][2],
                lambda x, f=f, j=j: f.locals.__setitem__(j, (f.locals[j][0], f.locals[j][1], x)))
    return slots


def candidates(k: gen.Kernel):
    """Yields (description, edited copy) for every one-step reduction of k, biggest first."""
    # whole chunks of statement lists
    n_lists = len(stmt_lists(k))
    for li in range(n_lists):
        n = len(stmt_lists(k)[li])
        size = n
        while size >= 1:
            for start in range(0, n, size):
                c = gen.clone(k)
                lst = stmt_lists(c)[li]
                del lst[start:start + size]
                yield f"drop statements {start}..{start + size - 1} of list {li}", c
            size //= 2
    # flatten compound statements
    for li in range(n_lists):
        for si, s in enumerate(stmt_lists(k)[li]):
            bodies = []
            if isinstance(s, gen.If):
                bodies = [s.then, s.other]
            elif isinstance(s, gen.Switch):
                bodies = s.cases
            elif isinstance(s, gen.Scope):
                bodies = [s.body] if not re.search(rf"\b{s.var}\b", "\n".join(x.code("") for x in s.body)) else []
            for bi in range(len(bodies)):
                c = gen.clone(k)
                lst = stmt_lists(c)[li]
                lst[si:si + 1] = [x for x in lst[si].blocks()[bi]]
                yield f"flatten statement {si} of list {li}", c
            if isinstance(s, gen.Loop):
                c = gen.clone(k)
                lst = stmt_lists(c)[li]
                lst[si] = gen.Scope(s.var, lst[si].body)
                yield f"loop {si} of list {li} runs once", c
                if s.exit:
                    c = gen.clone(k)
                    stmt_lists(c)[li][si].exit = None
                    yield f"loop {si} of list {li} without its early exit", c
    # kernel-level
    if len(k.functions):
        for fi in range(len(k.functions)):
            c = gen.clone(k)
            del c.functions[fi]
            yield f"drop function {fi}", c
    for ci, case in enumerate(k.cases):
        if case.grid != (1, 1):
            c = gen.clone(k)
            g = c.cases[ci]
            g.grid = (1, 1)
            c.cases[ci] = gen.Gen(0).shrink_case(c, g)
            yield "grid 1x1", c
    if k.k_out > 1:
        c = gen.clone(k)
        c.k_out = 1
        c.cases = [gen.Gen(0).shrink_case(c, x) for x in c.cases]
        yield "one output a thread", c
    for si in range(len(k.scalars)):
        c = gen.clone(k)
        del c.scalars[si]
        yield f"drop parameter {k.scalars[si][0]}", c
    for j in range(len(k.locals)):
        c = gen.clone(k)
        del c.locals[j]
        yield f"drop local {k.locals[j][0]}", c
    for feature in ("acc", "mine", "bytes", "shorts"):
        if feature in k.features:
            c = gen.clone(k)
            c.features.discard(feature)
            yield f"drop {feature}", c
    # expressions: an operand of the same type, or a constant
    n_slots = len(expr_slots(k))
    for i in range(n_slots):
        e = expr_slots(k)[i].get()
        if isinstance(e, gen.Const):
            continue
        options = [a for a in e.children() if a.t == e.t]
        options.append(gen.Const(e.t, True, 0.0 if e.t == "f" else 0))
        if e.t != "f":
            options.append(gen.Const(e.t, True, 1))
        for o in options:
            c = gen.clone(k)
            expr_slots(c)[i].set(gen.clone(o))
            yield f"simplify expression {i}", c


def valid_code(k: gen.Kernel) -> bool:
    """Every name the kernel uses is still declared (a dropped local, parameter or feature)."""
    text = k.code()
    body = text[text.index("__global__"):]
    declared = {n for n, _, _ in k.locals} | {n for n, _ in k.scalars}
    for m in re.finditer(r"\b(v\d+|f\d+|p\d+|h\d+|q\d+)\b", body):
        if m.group(1) not in declared and not re.search(rf"\b{m.group(1)}\b\s*\(", body):
            return False
    for feature, name in (("acc", "acc["), ("acc", "&acc"), ("mine", "mine["), ("bytes", "bout["), ("shorts", "hout[")):
        if feature not in k.features and name in body:
            return False
    called = set(re.findall(r"\b(df\d+_\d+)\s*\(", text))
    defined = {f.name for f in k.functions}
    return called <= defined


def reduce(k: gen.Kernel, case: int, level: str, clang, qgpu: str, work: Path, levels: list[str]) -> dict:
    import difftest as dt
    t0 = time.time()
    k = gen.clone(k)
    k.cases = [k.cases[case]]
    before = len(k.code().splitlines())
    rdir = work / f"reduce_{k.name}"
    rdir.mkdir(parents=True, exist_ok=True)
    path = rdir / f"{k.name}.cu"
    tests = 0

    def qgpu_at(kk, lv):
        path.write_text(kk.code())
        return dt.run_qgpu(qgpu, path, kk, kk.cases[0], lv, clang)

    ref = dt.run_reference([k], rdir, "orig")[(k.name, 0)]
    bad = qgpu_at(k, level)
    good_level = None
    for lv in levels:
        if lv != level:
            r = qgpu_at(k, lv)
            if r.kind == "ok" and r.outputs == ref:
                good_level = lv
                break

    def interesting(kk) -> bool:
        nonlocal tests
        tests += 1
        try:
            if not valid_code(kk):
                return False
        except (ValueError, IndexError, ZeroDivisionError):  # an edit that left no program
            return False
        b = qgpu_at(kk, level)
        if b.kind != "ok":
            return False
        if good_level is not None:
            g = qgpu_at(kk, good_level)
            if g.kind != "ok" or g.outputs == b.outputs:
                return False
        r = dt.run_reference([kk], rdir, str(tests)).get((kk.name, 0))
        return isinstance(r, dict) and r != b.outputs

    progress = True
    while progress and tests < MAX_TESTS and time.time() - t0 < MAX_SECONDS:
        progress = False
        for what, c in candidates(k):
            if tests >= MAX_TESTS or time.time() - t0 > MAX_SECONDS:
                break
            if interesting(c):
                k = c
                progress = True
                break
    path.write_text(k.code())
    final_ref = dt.run_reference([k], rdir, "final")[(k.name, 0)]
    final_bad = qgpu_at(k, level)
    return {"kernel": k.name, "seed": k.seed, "level": level, "clang": dt.clang_label(clang),
            "lines_before": before, "lines_after": len(k.code().splitlines()), "tests": tests,
            "seconds": time.time() - t0, "code": k.code(), "run": k.run_line(k.cases[0]),
            "diff": dt.describe_diff(final_ref, final_bad.outputs) if final_bad.kind == "ok" else final_bad.message,
            "k": k}


def signed_run_line(line: str) -> str:
    """Run-line values as the corpus writes them: signed 32-bit integers."""
    def fix(m):
        v = int(m.group(0))
        return str(v - 2**32 if v >= 2**31 else v)
    return re.sub(r"(?<![\w.\-])\d{10}(?![\w.])", fix, line)


def save(r: dict, corpus: Path) -> Path:
    """Writes the reduced kernel as corpus/difftest_SEED.cu and its expected outputs with
    scripts/gen_expected.py --only difftest_SEED (the oracle, never qgpu)."""
    k = r["k"]
    name = f"difftest_{k.seed}"
    code = k.code().splitlines()[1:]  # the generator's header line gives way to the corpus's
    text = [f"// {name}: a random kernel that qgpu once answered wrongly at -O{r['level']} "
            f"({r['clang']}), reduced by tests/difftest/reduce.py",
            f"// run: {signed_run_line(r['run'])}", *code]
    path = corpus / f"{name}.cu"
    path.write_text("\n".join(text) + "\n")
    (corpus / "expected").mkdir(exist_ok=True)
    p = subprocess.run([sys.executable, str(Path(__file__).resolve().parents[2] / "scripts" / "gen_expected.py"),
                        "--only", name, "--dir", str(corpus)], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"difftest: gen_expected.py failed for {path}:\n{p.stderr[-1500:]}", file=sys.stderr)
    return path
