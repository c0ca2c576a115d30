#!/usr/bin/env python3
"""Compiles every kernels/*.cu to PTX with clang and reports what each kernel asks of qgpu.

Per kernel entry: PTX instructions at -Os (entry plus the .funcs it calls), distinct virtual
registers (%r, %rd, %f, %p), the most non-predicate registers live at once (a %rd counts as one:
its low 32 bits are all the machine keeps; ../shared/reference/ptx.md §7, §10), the most
predicates live at once, __shared__/.global bytes, and opcodes outside the common subset.
Fails a kernel over the instruction budget, a recursive one, or one whose __shared__ or
module-global bytes exceed what gen_expected.py counts; warns when more than 15 registers
or 4 predicates are live at once (a count before any rematerialisation or coalescing).

Usage: python3 scripts/ptx_census.py [--only NAME ...] [--markdown] [--clang CLANG]
Exit status 1 when a file fails to compile or a kernel fails a check.
"""
from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # no scripts/__pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_expected  # noqa: E402  (the corpus parser: shared and global word counts)

ROOT = gen_expected.ROOT
PRELUDE = ROOT / "include" / "qgpu" / "qgpu_cuda.h"  # the header qgpu itself pre-includes
BUILD_DIR = ROOT / "build" / "ptx"
MAX_INSTRUCTIONS = 100
MAX_LIVE_REGISTERS = 15
MAX_LIVE_PREDICATES = 4

# Opcode stems the corpus is expected to use; anything else is listed per kernel, and so is
# a 64-bit operation outside the forms ptx.md §7 shows clang emitting for addresses.
COMMON = set("""mov add sub mul mad div rem neg abs min max and or xor not shl shr popc clz brev
selp setp ld st atom bar bra ret cvta cvt call""".split())
ADDRESS_64 = re.compile(r"^(add|sub|and|shl)\.[bsu]64$|^mul\.wide\.|^cvta?\.|^mov\.u64$|^ld\.param\.u64$")


def is_rare(opcode: str) -> bool:
    if opcode.split(".")[0] not in COMMON:
        return True
    return bool(re.search(r"\.[bsu]64\b", opcode)) and not ADDRESS_64.match(opcode)


def clang_command(clang: str, src: Path, out: Path) -> list[str]:
    return [clang, "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_75", "-nocudainc",
            "-nocudalib", "--cuda-path=/nonexistent", "--target=x86_64-unknown-linux-gnu", "-Os",
            "-I", str(PRELUDE.parent), "-include", str(PRELUDE), "-S", str(src), "-o", str(out)]


def split_functions(ptx: str) -> dict[str, tuple[str, str]]:
    """Maps each .entry/.func name to (kind, body text between its outer braces)."""
    funcs = {}
    for m in re.finditer(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?(\w+)\s*\(", ptx):
        open_at = ptx.index("{", m.end())
        if ptx.rfind(";", m.end(), open_at) != -1:
            continue  # a declaration (prototype), not a definition
        depth = 0
        for i in range(open_at, len(ptx)):
            depth += {"{": 1, "}": -1}.get(ptx[i], 0)
            if depth == 0:
                funcs[m.group(2)] = (m.group(1), ptx[open_at + 1:i])
                break
    return funcs


def statements(body: str) -> list[tuple[str | None, str]]:
    """(label, None) and (None, instruction) in order; directives and comments dropped."""
    body = re.sub(r"//[^\n]*", "", body)
    out = []
    for piece in body.split(";"):
        piece = piece.replace("{", " ").replace("}", " ").strip()
        while True:
            m = re.match(r"([$\w]+):\s*", piece)
            if not m:
                break
            out.append((m.group(1), None))
            piece = piece[m.end():]
        if piece and not piece.startswith("."):
            out.append((None, " ".join(piece.split())))
    return out


REG = re.compile(r"%(rd|r|f|p)\d+\b")  # %f: float registers, in the same 15


def defs_uses(instr: str) -> tuple[set[str], set[str]]:
    """Registers an instruction writes and reads (PTX: the first operand is the destination)."""
    text = re.sub(r"^@!?%p\d+\s+", "", instr)
    guard = re.match(r"^@!?(%p\d+)", instr)
    opcode, _, rest = text.partition(" ")
    regs = [m.group(0) for m in REG.finditer(rest)]
    uses = set(regs)
    defs: set[str] = set()
    stem = opcode.split(".")[0]
    if regs and stem not in ("st", "bra", "ret", "bar", "call", "red") and \
            rest.strip().startswith(regs[0]):
        defs = {regs[0]}
        uses = set(regs[1:])
    if guard:
        uses.add(guard.group(1))
    return defs, uses


def max_live(stmts: list[tuple[str | None, str]]) -> tuple[int, int]:
    """Most non-predicate and predicate registers live at once (backward dataflow)."""
    instrs = [(i, s) for i, (lab, s) in enumerate(stmts) if s is not None]
    label_at = {lab: i for i, (lab, s) in enumerate(stmts) if lab is not None}
    order = [i for i, _ in instrs]
    nxt = {order[k]: (order[k + 1] if k + 1 < len(order) else None) for k in range(len(order))}

    def first_instr_from(pos: int) -> int | None:
        return next((i for i in order if i >= pos), None)

    succ = {}
    for i, s in instrs:
        opcode = re.sub(r"^@!?%p\d+\s+", "", s).split(" ")[0]
        targets = []
        if opcode.startswith("bra"):
            label = s.split()[-1]
            targets.append(first_instr_from(label_at[label]))
            if s.startswith("@"):
                targets.append(nxt[i])
        elif not opcode.startswith("ret"):
            targets.append(nxt[i])
        succ[i] = [t for t in targets if t is not None]
    du = {i: defs_uses(s) for i, s in instrs}
    live_in = {i: set() for i in order}
    changed = True
    while changed:
        changed = False
        for i in reversed(order):
            out = set().union(*(live_in[t] for t in succ[i])) if succ[i] else set()
            new = du[i][1] | (out - du[i][0])
            if new != live_in[i]:
                live_in[i], changed = new, True
    regs = max((len([r for r in s if not r.startswith("%p")]) for s in live_in.values()), default=0)
    preds = max((len([r for r in s if r.startswith("%p")]) for s in live_in.values()), default=0)
    return regs, preds


def var_bytes(spaces: str, text: str) -> int:
    """Bytes of the .shared/.global/.const variables declared in text (`.b8 a[N]`, `.u32 x`)."""
    total = 0
    for m in re.finditer(r"\.(?:%s)\s+(?:\.align\s+\d+\s+)?\.[bsu](\d+)\s+\w+(?:\[(\d+)\])?"
                         % spaces, text):
        total += int(m.group(1)) // 8 * int(m.group(2) or 1)
    return total


def callees(stmts) -> set[str]:
    out = set()
    for _, s in stmts:
        if s and s.startswith("call"):
            m = re.search(r"call\.uni\s+(?:\([^)]*\)\s*,\s*)?(\w+)", s)
            if m:
                out.add(m.group(1))
    return out


def census(path: Path, clang: str) -> tuple[list[dict], list[str], list[str]]:
    """Rows for the kernels of one file, problems (failures) and warnings."""
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    out = BUILD_DIR / f"{path.stem}.ptx"
    proc = subprocess.run(clang_command(clang, path, out), capture_output=True, text=True)
    if proc.returncode != 0 or proc.stderr.strip():
        return [], [f"{path.name}: clang: {proc.stderr.strip()[-2000:]}"], []
    ptx = out.read_text()
    funcs = {name: (kind, statements(body)) for name, (kind, body) in split_functions(ptx).items()}
    kf = gen_expected.parse_kernel_file(path)
    global_bytes = var_bytes(r"global|const", re.sub(r"\{.*?\n\}", "", ptx, flags=re.S))
    rows, problems, warnings = [], [], []
    for name, (kind, stmts) in funcs.items():
        if kind != "entry":
            continue
        called, todo = set(), list(callees(stmts))
        while todo:
            f = todo.pop()
            if f in called or f not in funcs:
                continue
            called.add(f)
            todo += callees(funcs[f][1])
        if name in called:
            problems.append(f"{path.name}: {name} is recursive")
        all_stmts = stmts + [st for f in sorted(called) for st in funcs[f][1]]
        instrs = [s for _, s in all_stmts if s is not None]
        entry_body = split_functions(ptx)[name][1]
        shared_bytes = var_bytes(r"shared", entry_body)
        live = [max_live(stmts)] + [max_live(funcs[f][1]) for f in sorted(called)]
        opcodes = collections.Counter(re.sub(r"^@!?%p\d+\s+", "", s).split(" ")[0] for s in instrs)
        row = {
            "file": path.stem, "kernel": name, "instructions": len(instrs),
            "entry_instructions": sum(1 for _, s in stmts if s is not None),
            "funcs": sorted(called),
            "r": len({r for s in instrs for r in re.findall(r"%r\d+\b", s)}),
            "rd": len({r for s in instrs for r in re.findall(r"%rd\d+\b", s)}),
            "f": len({r for s in instrs for r in re.findall(r"%f\d+\b", s)}),
            "p": len({r for s in instrs for r in re.findall(r"%p\d+\b", s)}),
            "live": max(l[0] for l in live), "live_p": max(l[1] for l in live),
            "shared_bytes": shared_bytes, "global_bytes": global_bytes,
            "rare": sorted({op for op in opcodes if is_rare(op)}),
            "opcodes": opcodes,
        }
        kernel = kf.kernels.get(name)
        # gen_expected counts __shared__ words per launch (a template's bounds come from the
        # run line): the most over this kernel's runs.
        runs = [r for r in kf.runs if kf.kernel_for(r).name == name]
        if kernel is not None and runs:
            want = 4 * max(kf.kernel_for(r).shared_words + kf.file_shared_words(r) for r in runs)
            if shared_bytes > want:
                problems.append(f"{path.name}: {name}: PTX has {shared_bytes} shared bytes, "
                                f"gen_expected counts {want}")
            if global_bytes > 4 * kf.global_words:
                problems.append(f"{path.name}: PTX has {global_bytes} global bytes, "
                                f"gen_expected counts {4 * kf.global_words}")
        if row["instructions"] > MAX_INSTRUCTIONS:
            problems.append(f"{path.name}: {name}: {row['instructions']} PTX instructions "
                            f"(budget {MAX_INSTRUCTIONS})")
        if row["live"] > MAX_LIVE_REGISTERS:  # a warning: rematerialising can bring it down
            warnings.append(f"{path.name}: {name}: {row['live']} registers live at once "
                            f"(machine has {MAX_LIVE_REGISTERS})")
        if row["live_p"] > MAX_LIVE_PREDICATES:
            warnings.append(f"{path.name}: {name}: {row['live_p']} predicates live at once "
                            f"(machine has {MAX_LIVE_PREDICATES})")
        rows.append(row)
    return rows, problems, warnings


def print_table(rows: list[dict], markdown: bool) -> None:
    head = ["file", "kernel", "insts", "calls", "%r", "%rd", "%f", "%p", "live", "live p", "shared B",
            "rare opcodes"]
    cells = [[r["file"], r["kernel"], str(r["instructions"]), ",".join(r["funcs"]) or "-",
              str(r["r"]), str(r["rd"]), str(r["f"]), str(r["p"]), str(r["live"]), str(r["live_p"]),
              str(r["shared_bytes"]), " ".join(r["rare"]) or "-"] for r in rows]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for c in cells:
            print("| " + " | ".join(c) + " |")
        return
    widths = [max(len(x) for x in col) for col in zip(head, *cells)]
    for c in [head] + cells:
        print("  ".join(x.ljust(w) for x, w in zip(c, widths)).rstrip())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--clang", default="clang")
    opts = ap.parse_args()
    paths = sorted(gen_expected.KERNEL_DIR.glob("*.cu"))
    if opts.only:
        paths = [p for p in paths if p.stem in opts.only]
    rows, problems, warnings = [], [], []
    for p in paths:
        r, pr, w = census(p, opts.clang)
        rows += r
        problems += pr
        warnings += w
    print_table(rows, opts.markdown)
    total = collections.Counter()
    for r in rows:
        total.update(r["opcodes"])
    print(f"\n{len(rows)} kernels in {len(paths)} files; {sum(r['instructions'] for r in rows)} "
          f"instructions; max {max((r['instructions'] for r in rows), default=0)}; "
          f"max live {max((r['live'] for r in rows), default=0)}")
    print("opcodes: " + ", ".join(f"{op} {n}" for op, n in total.most_common()))
    for w in warnings:
        print(f"WARN {w}", file=sys.stderr)
    for p in problems:
        print(f"FAIL {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
