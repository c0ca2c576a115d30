#!/usr/bin/env python3
"""Differential testing of qgpu's CUDA compiler: random kernels (gen.py), run by qgpu at each
clang optimisation level (and with each clang installed) and by a reference that shares no
code with qgpu: the same source compiled by g++ against the corpus oracle's emulation header
(tests/oracle/cuda_emu.h: one host thread per CUDA thread, 4-lane warps), blocks run forward
and reversed. Any difference in an output array is a wrong answer; a qgpu error is a refusal
(counted by its message); a qgpu crash or hang is a bug. A sample also runs inside the model
(--engine model --dtype bf16 --check: equal to the interpreter at every token). Wrong answers are reduced (reduce.py) and can be saved
into the corpus as regression kernels with their oracle outputs.

Usage: difftest.py --qgpu PATH [--count N] [--seed S] [--levels "1 s 2 3 z"] [--clangs LIST]
                   [--model N] [--jobs J] [--work DIR] [--reduce] [--save DIR] [--quiet]
See scripts/difftest.sh and docs/reliability.md.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import math
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ORACLE = ROOT / "tests" / "oracle"
sys.path.insert(0, str(HERE))
import gen  # noqa: E402

CXX = os.environ.get("CXX", "g++")
# No -fwrapv: a signed overflow would be undefined in clang too, so UBSan must reject it here.
REF_FLAGS = ["-std=c++20", "-pthread", "-O1", "-g0", "-ffp-contract=off", "-fsigned-char",
             "-fno-strict-aliasing", "-w", "-fsanitize=undefined,float-cast-overflow",
             "-fno-sanitize-recover=all"]
BATCH = 40          # kernels a reference driver holds (one g++ run)
CASE_TIMEOUT_S = 20  # a reference case that deadlocks
QGPU_TIMEOUT_S = 120
MODEL_TOKEN_LIMIT = 2500  # the model sample: kernels whose -Os launches are at most this long


# ---- the reference ------------------------------------------------------------------------

def build_emulator(work: Path) -> None:
    """cuda_emu.o (the launcher) with REF_FLAGS, once per work directory. (No precompiled
    header: with one, g++ 12 took minutes and 15 GB on some drivers; without, under a second.)"""
    if (work / "cuda_emu.o").exists():
        return
    work.mkdir(parents=True, exist_ok=True)
    (work / "cuda_emu.cpp").write_text('#define QGPU_EMU_IMPLEMENTATION\n#include "cuda_emu.h"\n')
    p = subprocess.run([CXX, *REF_FLAGS, "-I", str(ORACLE), "-c", str(work / "cuda_emu.cpp"), "-o",
                        str(work / "cuda_emu.o")], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"difftest: cannot compile the emulator:\n{p.stderr[-2000:]}")


def cpp_value(v, ctype: str) -> str:
    if ctype == "float":
        bits = 0x7fffffff if isinstance(v, float) and math.isnan(v) else struct.unpack("<I", struct.pack("<f", v))[0]
        return f"std::bit_cast<float>(UINT32_C(0x{bits:08x}))"
    return f"static_cast<{ctype}>(INT64_C({int(v)}))"


PARAM_CTYPES = {"in": "unsigned", "out": "unsigned", "fin": "float", "fout": "float",
                "acc": "unsigned", "mine": "unsigned", "bout": "unsigned char", "hout": "short"}


def driver_case(k: gen.Kernel, c: gen.Case, fn: str) -> str:
    ns = f"ns_{k.name}"
    lines = [f"static int {fn}(bool qgpu_reverse_) {{"]
    call = []
    for name, decl in k.params():
        v = c.args[name]
        if isinstance(v, list):
            ct = PARAM_CTYPES[name]
            lines.append(f"  std::vector<{ct}> {name}_ = {{{', '.join(cpp_value(x, ct) for x in v)}}};")
            if ct == "float":
                lines.append(f"  const std::vector<float> {name}_initial_ = {name}_;")
            call.append(f"{name}_.data()")
        else:
            call.append(cpp_value(v, {"u": "unsigned", "i": "int", "f": "float"}[dict(k.scalars)[name]]))
    shared = f", {4 * k.threads}" if "dynamic" in k.features else ""
    lines.append(f"  qgpu_emu::launch(dim3({c.grid[0]}, {c.grid[1]}), dim3({k.block[0]}, {k.block[1]}), "
                 f"[&] {{ {ns}::{k.name}({', '.join(call)}); }}, qgpu_reverse_{shared});")
    lines.append('  std::printf("{");')
    first = True
    for name, _ in k.params():
        if not isinstance(c.args[name], list):
            continue
        if PARAM_CTYPES[name] == "float":
            lines.append(f'  qgpu_emu::print_float_array("{name}", {name}_, {name}_initial_, {str(first).lower()});')
        else:
            lines.append(f'  qgpu_emu::print_array("{name}", {name}_, {str(first).lower()});')
        first = False
    lines += ['  std::printf("}\\n");', "  return 0;", "}"]
    return "\n".join(lines)


DRIVER_MAIN = r"""
// Runs each case in a forked child, forward and reversed, with a time limit; one line each:
// "N forward|reverse {json}" or "N forward|reverse FAIL status".
int main(int argc, char **argv) {
  const int n = sizeof(cases) / sizeof(cases[0]);
  for (int k = 0; k < n; k++) {
    for (bool reverse : {false, true}) {
      std::fflush(stdout);
      const pid_t pid = fork();
      if (pid == 0) {
        alarm(CASE_TIMEOUT_S);
        std::printf("%d %s ", k, reverse ? "reverse" : "forward");
        const int rc = cases[k](reverse);
        std::fflush(stdout);
        _exit(rc);
      }
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        std::printf("\n%d %s FAIL %d\n", k, reverse ? "reverse" : "forward", status);
    }
  }
  return 0;
}
"""


def run_reference(kernels: list[gen.Kernel], work: Path, tag: str) -> dict:
    """{(kernel name, case index): outputs dict, or an error string} for every case."""
    build_emulator(work)
    d = work / f"ref_{tag}"
    d.mkdir(parents=True, exist_ok=True)
    parts = ['#include "cuda_emu.h"', "#include <unistd.h>", f"#define CASE_TIMEOUT_S {CASE_TIMEOUT_S}"]
    names = []
    for k in kernels:
        src = d / f"{k.name}.host.cu"
        src.write_text(k.code(host=True))
        parts += [f"namespace ns_{k.name} {{", f'#include "{src.name}"', "}"]
    for k in kernels:
        for ci, c in enumerate(k.cases):
            fn = f"case_{k.name}_{ci}"
            parts.append(driver_case(k, c, fn))
            names.append(((k.name, ci), fn))
    parts.append("static int (*const cases[])(bool) = {" + ", ".join(fn for _, fn in names) + "};")
    parts.append(DRIVER_MAIN)
    (d / "driver.cpp").write_text("\n".join(parts) + "\n")
    exe = d / "driver"
    p = subprocess.run([CXX, *REF_FLAGS, "-I", str(ORACLE), "-I", str(d),
                        str(d / "driver.cpp"), str(work / "cuda_emu.o"), "-o", str(exe)],
                       capture_output=True, text=True)
    results: dict = {}
    if p.returncode != 0:
        if len(kernels) == 1:
            return {(kernels[0].name, ci): "g++: " + first_error(p.stderr) for ci in range(len(kernels[0].cases))}
        # one kernel the host compiler rejects should not cost the batch: split it
        half = len(kernels) // 2
        return {**run_reference(kernels[:half], work, tag + "a"), **run_reference(kernels[half:], work, tag + "b")}
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=CASE_TIMEOUT_S * 2 * len(names) + 60)
    runs: dict = {}
    for line in p.stdout.splitlines():
        bits = line.split(" ", 2)
        if len(bits) < 3 or not bits[0].isdigit():
            continue
        idx, order, data = int(bits[0]), bits[1], bits[2]
        if data.startswith("FAIL"):
            runs[(idx, order)] = "fails (" + data + ")"
        elif (idx, order) not in runs:
            try:
                runs[(idx, order)] = json.loads(data, parse_float=str, parse_int=str)
            except json.JSONDecodeError:
                runs[(idx, order)] = "fails (output cut)"
    stderr = p.stderr
    for i, (key, _) in enumerate(names):
        fwd, rev = runs.get((i, "forward"), "no output"), runs.get((i, "reverse"), "no output")
        if isinstance(fwd, str) or isinstance(rev, str):
            why = fwd if isinstance(fwd, str) else rev
            results[key] = f"reference {why}: {first_error(stderr, key[0])}"
        elif normalise(fwd) != normalise(rev):
            results[key] = "reference depends on block/thread order"
        else:
            results[key] = normalise(fwd)
    shutil.rmtree(d, ignore_errors=True)
    return results


def first_error(text: str, name: str = "") -> str:
    for line in text.splitlines():
        if ("error" in line or "runtime error" in line or "warp function" in line) and (not name or name in line or "runtime error" in line):
            return line.strip()[:300]
    return text.strip().splitlines()[0][:300] if text.strip() else ""


def normalise(outputs: dict) -> dict:
    """Every element as text: integers as their 32-bit unsigned value, floats as their bits
    ("nan" for a NaN the kernel wrote), so qgpu's and the reference's spellings compare."""
    out = {}
    for name, values in outputs.items():
        if name in ("fin", "fout"):
            out[name] = [float_key(v) for v in values]
        elif name in ("in",):
            continue  # read-only
        else:
            out[name] = [str(int(v) & 0xffffffff) if name not in ("bout", "hout") else str(int(v)) for v in values]
    return out


def float_key(v: str) -> str:
    v = str(v)
    if v.startswith("nan") or v in ("inf", "-inf"):
        return v
    return f"0x{struct.unpack('<I', struct.pack('<f', float(v)))[0]:08x}"


# ---- qgpu -----------------------------------------------------------------------------------

class QgpuResult:
    def __init__(self, kind: str, outputs=None, message: str = "", tokens: int = 0):
        self.kind = kind  # ok, refused, crash, hang
        self.outputs, self.message, self.tokens = outputs, message, tokens


def run_qgpu(qgpu: str, path: Path, k: gen.Kernel, c: gen.Case, level: str, clang: str | None,
             engine: str = "interp", timeout: int = QGPU_TIMEOUT_S) -> QgpuResult:
    cmd = [qgpu, "run", str(path), *shlex.split(k.run_line(c)), "-O", level, "--json", "--engine", engine]
    if engine == "model":
        cmd += ["--dtype", "bf16", "--check"]
    env = dict(os.environ)
    if clang:
        env["CLANG"] = clang
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return QgpuResult("hang", message=f"no result in {timeout} s")
    if p.returncode == 0:
        try:
            d = json.loads(p.stdout, parse_float=str, parse_int=str)
            if engine == "model":  # --check: the model's state equals the interpreter's at every token
                ok = d.get("equal") == "true" or d.get("equal") is True
                return QgpuResult("ok" if ok else "diverged", {} if ok else None, message=p.stdout[:300],
                                  tokens=int(d.get("tokens", 0)))
            return QgpuResult("ok", normalise(d["outputs"]), tokens=int(d.get("tokens", 0)))
        except (json.JSONDecodeError, KeyError) as e:
            return QgpuResult("crash", message=f"unreadable JSON ({e}): {p.stdout[:200]}")
    err = p.stderr.strip()
    if p.returncode == 1 and "qgpu: error:" in err:
        return QgpuResult("refused", message=err[err.index("qgpu: error:") + 13:])
    return QgpuResult("crash", message=f"exit {p.returncode}: {err[-500:]}")


def refusal_class(message: str) -> str:
    """A refusal's kind: its first clause with the numbers and names taken out."""
    first = message.splitlines()[0] if message else ""
    first = re.sub(r"^\S+:\d+:\d+: ", "", first)  # a PTX position
    first = re.split(r"[:;(]", first)[0]
    first = re.sub(r"\b\d+\b", "N", first)
    first = re.sub(r"`[^`]*`|'[^']*'|\b[a-z]+\d+\w*", "X", first)
    return first.strip()[:90]


def describe_diff(want: dict, got: dict) -> str:
    for name in sorted(set(want) | set(got)):
        a, b = want.get(name), got.get(name)
        if a == b:
            continue
        if a is None or b is None or len(a) != len(b):
            return f"{name}: shape differs"
        bad = [i for i in range(len(a)) if a[i] != b[i]]
        return f"{name}[{bad[0]}] reference {a[bad[0]]}, qgpu {b[bad[0]]} ({len(bad)} of {len(a)} differ)"
    return "equal"


# ---- the run --------------------------------------------------------------------------------

def configs(levels: list[str], clangs: list[str | None]) -> list[tuple[str, str | None]]:
    """Every level with the default clang; the other clangs at -Os and -O3."""
    out = [(lv, clangs[0]) for lv in levels]
    for cl in clangs[1:]:
        out += [(lv, cl) for lv in levels if lv in ("s", "3")] or [(levels[0], cl)]
    return out


def clang_label(c: str | None) -> str:
    return Path(c).name if c else "clang"


def pick_clangs(which: str) -> list[str | None]:
    """The default clang (the one qgpu picks, clang_driver.cpp: $CLANG, else the newest of
    these), then the others asked for: 'all' is every clang-N on PATH."""
    default = os.environ.get("CLANG") or next(
        (c for c in ("clang-19", "clang-16", "clang-15", "clang-14", "clang") if shutil.which(c)), None)
    clangs: list[str | None] = [default]
    if which == "all":
        found = sorted({p.name for d in os.environ.get("PATH", "").split(":") if d and Path(d).is_dir()
                        for p in Path(d).glob("clang-[0-9]*") if re.fullmatch(r"clang-\d+", p.name)},
                       key=lambda n: int(n.split("-")[1]))
        clangs += [c for c in found if c != default]
    elif which:
        clangs += which.split()
    return clangs


class Tally:
    """What a run found: counts, refusals by kind (with a first example), wrong answers, and
    crashes, hangs and model failures."""
    def __init__(self):
        self.stats = collections.Counter()
        self.refusals = collections.Counter()
        self.examples: dict[str, str] = {}
        self.wrong: list[dict] = []
        self.bugs: list[dict] = []

    def bug(self, k, ci, lv, cl, kind, message):
        self.bugs.append({"kernel": k.name, "seed": k.seed, "case": ci, "level": lv, "clang": clang_label(cl),
                          "kind": kind, "message": message[:500]})


def run_interp(pool, opts, kernels, paths, cfgs, work, t: Tally) -> dict:
    """Every kernel's cases: the reference (batches of BATCH kernels) and qgpu's interpreter
    at each configuration, compared. Returns the reference's outputs by (kernel, case)."""
    batches = [kernels[i:i + BATCH] for i in range(0, len(kernels), BATCH)]
    ref_futs = [pool.submit(run_reference, b, work, str(i)) for i, b in enumerate(batches)]
    q_futs = {(ki, ci, lv, cl): pool.submit(run_qgpu, opts.qgpu, paths[k.name], k, c, lv, cl)
              for ki, k in enumerate(kernels) for ci, c in enumerate(k.cases) for lv, cl in cfgs}
    reference = {}
    for f in ref_futs:
        reference.update(f.result())
    for (ki, ci, lv, cl), f in q_futs.items():
        k = kernels[ki]
        res, ref = f.result(), reference.get((k.name, ci), "missing")
        where = f"{k.name} case {ci} -O{lv} {clang_label(cl)}"
        if isinstance(ref, str):
            t.stats["reference rejects (not counted)"] += 1
            if not opts.quiet and t.stats["reference rejects (not counted)"] <= 5:
                print(f"difftest: {where}: {ref}", file=sys.stderr)
            continue
        t.stats["kernel-levels"] += 1
        if res.kind == "ok" and res.outputs == ref:
            t.stats["pass"] += 1
            if lv == "s" and cl == cfgs[0][1] and ci == 0:
                k.tokens = res.tokens
        elif res.kind == "ok":
            t.stats["WRONG"] += 1
            t.wrong.append({"kernel": k.name, "seed": k.seed, "case": ci, "level": lv, "clang": clang_label(cl),
                            "diff": describe_diff(ref, res.outputs)})
            print(f"difftest: WRONG {where}: {t.wrong[-1]['diff']}", file=sys.stderr)
        elif res.kind == "refused":
            t.stats["refused"] += 1
            t.refusals[refusal_class(res.message)] += 1
            t.examples.setdefault(refusal_class(res.message), f"{where}: {res.message[:400]}")
        else:
            t.stats[res.kind.upper()] += 1
            t.bug(k, ci, lv, cl, res.kind, res.message)
            print(f"difftest: {res.kind.upper()} {where}: {res.message[:300]}", file=sys.stderr)
    return reference


def run_model(pool, opts, kernels, paths, clang, t: Tally) -> int:
    """opts.model kernels inside the model: the first that passed at -Os and are short, more
    while some are refused (inside the model, float ops are integer sequences: a float kernel
    that fits the interpreter may pass the ROM there). The interpreter's outputs equal the
    reference's (they passed), and --check compares the model's whole state with the
    interpreter's at every token. Returns the kernels that ran."""
    wrong = {w["kernel"] for w in t.wrong}
    eligible = [k for k in kernels if getattr(k, "tokens", 0) and k.name not in wrong
                and k.tokens * len(k.cases) <= MODEL_TOKEN_LIMIT]
    ran, at = 0, 0
    while ran < opts.model and at < len(eligible):
        wave = eligible[at:at + opts.model - ran]
        at += len(wave)
        futs = {(ki, ci): pool.submit(run_qgpu, opts.qgpu, paths[k.name], k, c, "s", clang, "model", 900)
                for ki, k in enumerate(wave) for ci, c in enumerate(k.cases)}
        refused = set()
        for (ki, ci), f in futs.items():
            k, res = wave[ki], f.result()
            if res.kind == "refused":
                refused.add(ki)
                t.stats["model refused"] += 1
                t.refusals["inside the model: " + refusal_class(res.message)] += 1
                continue
            t.stats["model launches"] += 1
            if res.kind == "ok":
                t.stats["model pass"] += 1
                t.stats["model tokens"] += res.tokens
            else:
                t.stats["MODEL WRONG"] += 1
                t.bug(k, ci, "s", clang, "model " + res.kind, res.message)
                print(f"difftest: MODEL {res.kind} {k.name} case {ci} in the model (bf16, --check): "
                      f"{res.message[:300]}", file=sys.stderr)
        ran += len(wave) - len(refused)
    return ran


def reduce_wrong(opts, kernels, clangs, levels, work, t: Tally) -> list[dict]:
    """Each wrong kernel (its first wrong case), reduced; saved into the corpus with --save."""
    import reduce as red
    out, seen = [], set()
    for w in t.wrong:
        if w["kernel"] in seen:
            continue
        seen.add(w["kernel"])
        k = next(k for k in kernels if k.name == w["kernel"])
        cl = next(c for c in clangs if clang_label(c) == w["clang"])
        r = red.reduce(k, w["case"], w["level"], cl, opts.qgpu, work, levels)
        out.append(r)
        print(f"difftest: reduced {w['kernel']} from {r['lines_before']} to {r['lines_after']} lines "
              f"({r['tests']} tests, {r['seconds']:.0f} s)", file=sys.stderr)
        if opts.save:
            print(f"difftest: saved {red.save(r, Path(opts.save))}", file=sys.stderr)
    return out


def summarise(opts, kernels, clangs, cfgs, t: Tally, model_kernels: int, reduced, seconds: float) -> None:
    st = t.stats
    summary = {
        "seed": opts.seed, "count": opts.count, "levels": opts.levels.split(),
        "clangs": [clang_label(c) for c in clangs], "configs": len(cfgs), "kernels": len(kernels),
        "cases": sum(len(k.cases) for k in kernels), "stats": dict(st),
        "refusals": dict(t.refusals.most_common()), "refusal_examples": t.examples,
        "wrong": t.wrong, "bugs": t.bugs, "model_kernels": model_kernels, "seconds": round(seconds, 1),
        "reduced": [{x: r[x] for x in ("kernel", "lines_before", "lines_after", "tests")} for r in reduced],
    }
    if opts.report:
        Path(opts.report).write_text(json.dumps(summary, indent=1) + "\n")
    print(f"difftest: seeds {opts.seed}..{opts.seed + opts.count - 1}: {len(kernels)} kernels, "
          f"{summary['cases']} cases, {len(cfgs)} configurations "
          f"({', '.join(f'-O{l} {clang_label(c)}' for l, c in cfgs)})")
    print(f"difftest: {st['kernel-levels']} kernel-case-levels: {st['pass']} pass, {st['WRONG']} WRONG, "
          f"{st['refused']} refused, {st['CRASH']} crash, {st['HANG']} hang; "
          f"{st['reference rejects (not counted)']} not run (the reference rejects the program)")
    if opts.model:
        print(f"difftest: inside the model: {st['model launches']} launches of {model_kernels} kernels, "
              f"{st['model pass']} pass, {st['MODEL WRONG']} wrong or failed, {st['model tokens']} tokens; "
              f"{st['model refused']} refused (too big once float ops are integer sequences)")
    for cls, n in t.refusals.most_common(8):
        print(f"difftest:   refused {n}x: {cls}")
    print(f"difftest: {seconds:.0f} s")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qgpu", required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--levels", default="1 s 2 3 z")
    ap.add_argument("--clangs", default="", help="clangs besides the default, e.g. 'clang-15 clang-19' "
                    "(each runs at -Os and -O3); 'all' takes every clang-N on PATH")
    ap.add_argument("--model", type=int, default=0, help="also run this many kernels inside the model")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--work", default=None)
    ap.add_argument("--reduce", action="store_true", help="reduce each wrong answer to a small kernel")
    ap.add_argument("--save", default=None, help="write each reduced kernel into this corpus directory")
    ap.add_argument("--report", default=None, help="write the summary as JSON here")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--expect-wrong", action="store_true",
                    help="succeed only if some answer is wrong (the test that a reverted fix is found)")
    return ap.parse_args()


def main() -> int:
    opts = parse_args()
    clangs = pick_clangs(opts.clangs)
    levels = opts.levels.split()
    cfgs = configs(levels, clangs)
    own_work = opts.work is None
    work = Path(opts.work or tempfile.mkdtemp(prefix="difftest-"))

    t0, t = time.time(), Tally()

    def killed(signum, _frame):  # CTest's timeout, kill: what was counted, and the work directory goes
        print(f"difftest: killed (signal {signum}) after {time.time() - t0:.0f} s; counted so far: "
              f"{dict(t.stats)}; wrong: {t.wrong}; crashes, hangs, model failures: {t.bugs}", flush=True)
        if opts.report:
            Path(opts.report).write_text(json.dumps({"killed": True, "stats": dict(t.stats), "wrong": t.wrong,
                                                     "bugs": t.bugs, "refusals": dict(t.refusals)}, indent=1))
        if own_work:
            shutil.rmtree(work, ignore_errors=True)
        os._exit(128 + signum)
    signal.signal(signal.SIGTERM, killed)
    signal.signal(signal.SIGINT, killed)
    try:
        (work / "kernels").mkdir(parents=True, exist_ok=True)
        kernels = [gen.generate(opts.seed + i) for i in range(opts.count)]
        paths = {k.name: work / "kernels" / f"{k.name}.cu" for k in kernels}
        for k in kernels:
            paths[k.name].write_text(k.code())
        with cf.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            run_interp(pool, opts, kernels, paths, cfgs, work, t)
            model_kernels = run_model(pool, opts, kernels, paths, clangs[0], t) if opts.model else 0
        seconds = time.time() - t0
        reduced = reduce_wrong(opts, kernels, clangs, levels, work, t) if opts.reduce else []
        summarise(opts, kernels, clangs, cfgs, t, model_kernels, reduced, seconds)
        if opts.expect_wrong:
            print(f"difftest: --expect-wrong: {len(t.wrong)} wrong answers found" if t.wrong else
                  "difftest: --expect-wrong: no wrong answer found", file=sys.stderr)
            return 0 if t.wrong else 1
        return 1 if t.wrong or t.bugs else 0
    finally:
        if own_work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
