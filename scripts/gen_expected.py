#!/usr/bin/env python3
"""Expected outputs for the CUDA test corpus, computed without any qgpu code.

For every kernels/NAME.cu and every `// run:` line in it, this script
  1. parses the run line (the `qgpu run` launch syntax) and the kernel's parameter list,
  2. checks the launch against the machine's limits (block <= 16 threads, grid <= 256
     blocks, 32-bit values, and at most 126 memory words for: the arrays, one word per
     scalar parameter, module globals, the __shared__ copies, and the scratch words of warp
     functions: 16 when the file shuffles (__shfl*_sync), 4 when it votes (__ballot_sync,
     __any_sync, __all_sync, __activemask), for every kernel of the file as the compiler
     counts them),
  3. writes a C++ driver that includes tests/oracle/cuda_emu.h and the .cu file, so the
     kernel runs as host code (one std::thread per CUDA thread, blocks one after another,
     each case in a forked process that starts from the initial module globals),
  4. compiles it with g++ (-fwrapv, AddressSanitizer + UBSan: an out-of-bounds index,
     an oversized shift, a division by zero or a C cast of a NaN or out-of-range float to
     int fails the case instead of giving a number; -ffp-contract=off: a*b+c is two
     roundings unless written fmaf(a, b, c), except in a file with a line
     `// oracle: contract`, compiled with -O2 -mfma -ffp-contract=fast so that g++ fuses
     a*b+c as clang does for the machine),
  5. runs every case twice, blocks in forward then in reverse order, and fails when the
     two results differ (a kernel whose result depends on block or thread order),
  6. writes kernels/expected/NAME.json:
       {"unsigned_params": [...], "float_params": [...],
        "cases": [{"run": "<args>", "outputs": {"p": [...]}}]}
     Every pointer parameter's final contents are listed as signed 32-bit ints; the
     arrays named in unsigned_params hold `unsigned` data shown as its signed 32-bit view;
     those named in float_params hold floats, each element a JSON string: the shortest
     text that reads back as the same binary32 (C++17 std::to_chars), "inf", "-inf", "nan"
     (0x7fffffff, the machine's only NaN result) or "nan:0x7f800001" (another NaN, which
     only an input the kernel left alone can hold: a NaN the kernel wrote prints as "nan").

Run lines are split as a shell splits them (shlex): `--kernel 'reduce<int,16>'` names a
template kernel's instantiation (its type arguments give the parameters' types, its value
arguments may size __shared__ arrays); `--shared BYTES` is the launch's dynamic shared
memory (`extern __shared__ T s[];`, required for a kernel that declares one; the oracle
fills it with 0xA5 bytes forward and 0x5A reversed, so reading it unwritten fails the case).
Kernels may have C or C++ linkage; a file whose template runs as int in one case and as
float in another lists the union in its unsigned_params/float_params, and each case whose
types differ carries its own "unsigned_params"/"float_params".
`#include <cooperative_groups.h>` finds tests/oracle/cooperative_groups.h (-I tests/oracle).

8- and 16-bit data: parameters (and template type arguments) may be char, signed char,
unsigned char, bool, short, unsigned short (int8_t, uint8_t, int16_t, uint16_t) or pointers
to them; their run-line values are integers in the type's range (a value outside it is an
error), an array of N elements of B bytes costs ceil(N * B / 4) memory words (as do
__shared__ arrays and module globals of these types), and the expected file lists such an
array's elements as their C values, naming it in a top-level
"element_types": {"name": "u8"|"s8"|"bool"|"s16"|"u16"} (present only when the file has
one; a case whose types differ carries its own "element_types"). uchar4/char4 come from
cuda_emu.h; char is signed (-fsigned-char), as on the GPU.

Run-line values: an int/unsigned parameter takes integers; a `float` parameter (or the
elements of a `float *` array) takes decimals (1.5, -2, 3e-5, -0: rounded to the nearest
float, as strtof does), inf, -inf, nan (0x7fffffff) or raw bits 0f7f800001 (PTX's 0f and
8 hex digits).

Usage: python3 scripts/gen_expected.py [--only NAME ...] [--check] [--tsan] [--dir DIR] [--jobs N]
  --check  compare with the committed JSON instead of writing it (exit 1 on a difference).
  --tsan   build the drivers with ThreadSanitizer instead: a data race between CUDA threads
           (a missing __syncthreads) fails the case. Slower; the JSON is the same.
           tests/oracle/tsan.supp lists the benign races kernels keep on purpose.
Needs python3 (standard library) and g++ with C++20 (<barrier>, std::atomic_ref).

Real GPU: python3 scripts/gen_expected.py --nvcc [--only NAME ...] [--arch sm_90] [--report FILE]
  builds one CUDA host driver per kernel file (cudaMalloc/cudaMemcpy of every pointer
  argument, kernel<<<grid, block>>>, cudaDeviceSynchronize, copy back, print the arrays),
  compiles it with nvcc -arch=ARCH, runs every case on the GPU and compares with the
  committed expected/NAME.json; --report writes a Markdown summary. Files that use warp
  functions or warpSize are skipped with a note: the machine's warps (and the oracle's)
  have 4 lanes, a GPU's 32, so their results differ there by design. With no GPU
  (no working nvidia-smi, or cudaGetDeviceCount() == 0) it compiles every driver, says
  "compiled N drivers; no GPU to run them" and exits 0 (2 with --require-gpu).
  Exit 1: a driver failed to compile or run, or a case differs from the committed JSON.
  NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) picks the compiler.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
from fractions import Fraction
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DIR = ROOT / "kernels"
ORACLE_DIR = ROOT / "tests" / "oracle"

# The machine's limits (docs/isa.md, "Machine").
MAX_BLOCK_THREADS = 16
MAX_GRID_BLOCKS = 256
MEMORY_WORDS = 126
LANES_PER_WARP = 4
RESIDENT_WARPS = 4

CXX = os.environ.get("CXX", "g++")
CXX_FLAGS = ["-std=c++20", "-pthread", "-O1", "-g0", "-fwrapv", "-fno-omit-frame-pointer",
             "-ffp-contract=off",  # x86-64 SSE floats: exact binary32, one rounding per op
             "-fsigned-char"]  # char is signed on the GPU
# `// oracle: contract` in a kernel file: g++ fuses a*b+c into an fma, as clang does on the
# device by default (-ffp-contract=fast in CUDA mode). For kernels written naturally
# (y = a * x + y): keep them to one a*b+c per statement, a product used once.
CONTRACT_MARKER = re.compile(r"^//\s*oracle:\s*contract\s*$", re.M)
CONTRACT_FLAGS = ["-O2", "-mfma", "-ffp-contract=fast"]
SANITIZERS = {  # --tsan swaps in ThreadSanitizer: it finds data races between CUDA threads
    "asan": ["-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all"],
    "tsan": ["-fsanitize=thread"],
}
RUN_TIMEOUT_S = 30  # a kernel that deadlocks at __syncthreads() hangs its driver

# C and CUDA features the machine does not have: a kernel that names one is reported.
FORBIDDEN = {
    r"\bdouble\b": "double precision",
    r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+[eE][+-]?\d+)(?:[eE][+-]?\d+)?(?![\w.])":
        "a double literal (write 1.5f)",
    r"\b__(?:expf|exp10f|logf|log2f|log10f|sinf|cosf|tanf|sincosf|powf|fdividef|frcp_r[zud]|"
    r"frsqrt_rn|saturatef|f(?:add|sub|mul|div|sqrt|maf?)_r[zud]|fsqrt_r[zud])\b|"
    r"\b(?:expf|exp2f|expm1f|logf|log2f|log10f|log1pf|sinf|cosf|tanf|powf|"
    r"rsqrtf|cbrtf|hypotf|atan2f|atanf|asinf|acosf|tanhf|sinhf|coshf|erff|lgammaf|tgammaf|"
    r"fmodf|remainderf|lroundf|lrintf|frexpf|ldexpf|modff|nextafterf|"
    r"fdimf|exp10f|sinpif|cospif)\s*\(":
        "a float function the machine does not have exactly (approximate or libm-only)",
    r"\blong\b|\bint64_t\b|\buint64_t\b|\bsize_t\b": "64-bit integers",
    r"\bprintf\b": "printf",
    r"__match_\w+_sync|__reduce_\w+_sync|__shfl(?:_up|_down|_xor)?\s*\(":
        "a warp function other than __shfl*_sync, the votes and __syncwarp",
}

# Warp functions (docs/isa.md, "Warp shuffles and votes"): each kind has memory words of its
# own on the machine, and warpSize is 4 there and in the oracle, 32 on a GPU.
# Cooperative groups' tile shuffles and votes (tile.shfl_down(v, 1), tile.ballot(p),
# cg::reduce) compile to the same shfl and vote instructions.
SHUFFLE = re.compile(r"\b__shfl(?:_up|_down|_xor)?_sync\b|\.shfl(?:_up|_down|_xor)?\s*\(|"
                     r"\b(?:cg|cooperative_groups)::reduce\s*\(")
VOTE = re.compile(r"\b(?:__ballot_sync|__any_sync|__all_sync|__activemask)\b|"
                  r"\.(?:any|all|ballot)\s*\(")
# (A cooperative-groups tile has the size the kernel gives it, on a GPU as here: not listed.)
WARP_DEPENDENT = re.compile(r"\b__shfl(?:_up|_down|_xor)?_sync\b|"
                            r"\b(?:__ballot_sync|__any_sync|__all_sync|__activemask)\b|"
                            r"\bwarpSize\b|\b__syncwarp\b")
SHUFFLE_WORDS = 16  # one per lane of each resident warp
VOTE_WORDS = 4      # one per resident warp


VECTOR_TYPE = re.compile(r"\b(?:int|uint|float)[24]\b|\bu?char4\b")

# 8- and 16-bit data (README, "8- and 16-bit data"): each C type the corpus accepts, by its
# canonical spelling (what Param.ctype holds), with the expected file's element_types name,
# its size in bytes and the range of a run line's values. Elements are packed little-endian,
# 4 chars or 2 shorts per 32-bit word: an array of N costs ceil(N * bytes / 4) words.
SMALL_TYPES = {
    "char": ("s8", 1, -128, 127),             # signed on the GPU (and with -fsigned-char here)
    "signed char": ("s8", 1, -128, 127),      # int8_t
    "unsigned char": ("u8", 1, 0, 255),       # uint8_t
    "bool": ("bool", 1, 0, 1),
    "short": ("s16", 2, -32768, 32767),       # int16_t
    "unsigned short": ("u16", 2, 0, 65535),   # uint16_t
}
# Bytes per element of the other types a __shared__ array or module global may have.
TYPE_BYTES = {"int2": 8, "uint2": 8, "float2": 8, "int4": 16, "uint4": 16, "float4": 16,
              "uchar4": 4, "char4": 4}


def canonical_type(words: list[str]) -> str | None:
    """A parameter's (or template argument's) type words, qualifiers dropped, as Param.ctype:
    "int", "unsigned", "float" or a SMALL_TYPES key; None for any other type."""
    words = [w for w in words if w != "std"]  # std::uint8_t
    text = " ".join(words)
    return {"int": "int", "signed": "int", "signed int": "int",
            "unsigned": "unsigned", "unsigned int": "unsigned", "float": "float",
            "char": "char", "signed char": "signed char", "int8_t": "signed char",
            "unsigned char": "unsigned char", "uint8_t": "unsigned char", "bool": "bool",
            "short": "short", "short int": "short", "signed short": "short",
            "signed short int": "short", "int16_t": "short",
            "unsigned short": "unsigned short", "unsigned short int": "unsigned short",
            "uint16_t": "unsigned short"}.get(text)


def type_bytes(ctype: str) -> int:
    """Bytes per element of a parameter, __shared__ or global of type ctype (4 by default)."""
    if ctype in SMALL_TYPES:
        return SMALL_TYPES[ctype][1]
    return TYPE_BYTES.get(ctype, 4)


def array_words_of(elements: int, ctype: str) -> int:
    """Memory words of `elements` elements of ctype, packed (4 chars or 2 shorts a word)."""
    return -(-elements * type_bytes(ctype) // 4)


class CorpusError(Exception):
    """A kernel file, run line or result that breaks the corpus rules."""


@dataclasses.dataclass
class Config:
    build_dir: Path         # drivers and the precompiled header
    flags: list[str]        # g++ flags for the drivers


@dataclasses.dataclass
class Param:
    name: str
    ctype: str      # "int", "unsigned", "float", a SMALL_TYPES key ("unsigned char", ...);
                    # in a template kernel also a type parameter
    pointer: bool


@dataclasses.dataclass
class Kernel:
    name: str
    params: list[Param]
    shared_words: int   # __shared__ words declared in this kernel's body (kernel_for: for the run)
    # template <typename T, unsigned int blockSize>: [("T", "type", None), ("blockSize",
    # "value", None)]; the third item is a default argument's text, if any.
    template_params: list[tuple[str, str, str | None]] = dataclasses.field(default_factory=list)
    shared_decls: list[tuple[str, str]] = dataclasses.field(default_factory=list)  # (type, dims)
    dynamic_shared: bool = False    # declares (or may use) `extern __shared__` arrays
    qualifier: str = ""             # enclosing named namespaces, "ns::"
    call: str = ""                  # what the driver calls: "ns::reduce<int, 16>" (kernel_for)


@dataclasses.dataclass
class Run:
    text: str                   # the run line's arguments, verbatim
    grid: tuple[int, int]
    block: tuple[int, int]
    kernel: str | None          # as written: "reduce" or "reduce<int,16>"
    args: dict[str, str | list[str]]   # value tokens, verbatim: their type is the parameter's
    shared: int | None = None   # --shared BYTES: dynamic shared memory per CUDA block


@dataclasses.dataclass
class KernelFile:
    path: Path
    name: str
    kernels: dict[str, Kernel]
    global_words: int           # module globals (__device__, __constant__): one copy
    file_shared_decls: list[tuple[str, str]]  # __shared__ outside kernels: (type, dims)
    runs: list[Run]
    # Whether the file calls __shfl*_sync / a vote (__ballot_sync, __any_sync, __all_sync,
    # __activemask) anywhere: the compiler gives their words to every kernel of a module
    # whose PTX has one (src/compiler/compile.cpp), so they count for every kernel here.
    shuffles: bool = False
    votes: bool = False
    contract: bool = False      # `// oracle: contract`: the oracle fuses a*b+c (CONTRACT_FLAGS)
    consts: dict[str, int] = dataclasses.field(default_factory=dict)  # #define / constexpr ints
    source: str | None = None   # the file as the host compiles it, when it must be rewritten

    def kernel_for(self, run: Run) -> Kernel:
        """The run's kernel with its template arguments applied: parameter types resolved,
        __shared__ sizes evaluated, and the C++ name the driver calls."""
        where = self.path.name
        name, targs = split_kernel_name(run.kernel, where) if run.kernel else (None, None)
        if name is None:
            if len(self.kernels) != 1:
                raise CorpusError(f"{where}: several kernels, the run line needs --kernel")
            name = next(iter(self.kernels))
        if name not in self.kernels:
            raise CorpusError(f"{where}: no kernel named {name}")
        k = self.kernels[name]
        types: dict[str, str] = {}
        values: dict[str, int] = {}
        if k.template_params:
            targs = list(targs or [])
            if len(targs) > len(k.template_params):
                raise CorpusError(f"{where}: {name} has {len(k.template_params)} template parameters")
            for tname, kind, default in k.template_params[len(targs):]:
                if default is None:
                    raise CorpusError(f"{where}: {name} is a template: the run line needs "
                                      f"--kernel '{name}<...>' with its template arguments")
                targs.append(default)
            for (tname, kind, _), arg in zip(k.template_params, targs):
                if kind == "type":
                    types[tname] = template_type(arg, f"{where}: {name}")
                else:
                    values[tname] = template_value(arg, {**self.consts, **values}, f"{where}: {name}")
        elif targs is not None:
            raise CorpusError(f"{where}: {name} is not a template")
        params = []
        for p in k.params:
            ctype = types.get(p.ctype, p.ctype)
            if ctype not in ("int", "unsigned", "float") and ctype not in SMALL_TYPES:
                raise CorpusError(f"{where}: {name}: parameter {p.name} of type {p.ctype}: only int, "
                                  "unsigned, float and 8/16-bit integers are supported")
            params.append(Param(p.name, ctype, p.pointer))
        consts = {**self.consts, **values}
        templated = bool(k.template_params) or self.has_templates
        shared = sum(shared_words(t, d, consts, where, templated, types) for t, d in k.shared_decls)
        call = k.qualifier + name + (f"<{', '.join(targs)}>" if k.template_params else "")
        return dataclasses.replace(k, params=params, shared_words=shared, call=call)

    @property
    def has_templates(self) -> bool:
        return any(k.template_params for k in self.kernels.values())

    def file_shared_words(self, run: Run) -> int:
        """__shared__ words outside the kernels' bodies (file scope, device functions)."""
        consts = dict(self.consts)
        types: dict[str, str] = {}
        if run.kernel:  # a device function's bound may be the kernel's template argument
            k = self.kernel_for(run)
            _, targs = split_kernel_name(run.kernel, self.path.name)
            for (tname, kind, _), arg in zip(k.template_params, targs or []):
                if kind == "value":
                    consts[tname] = template_value(arg, consts, self.path.name)
                else:
                    types[tname] = template_type(arg, self.path.name)
        return sum(shared_words(t, d, consts, self.path.name, self.has_templates, types)
                   for t, d in self.file_shared_decls)

    def uses_dynamic_shared(self, kernel: Kernel) -> bool:
        return kernel.dynamic_shared or self.file_dynamic_shared

    file_dynamic_shared: bool = False  # an `extern __shared__` outside every kernel's body


# ---- parsing the .cu file ------------------------------------------------------------

def strip_comments(text: str) -> str:
    """Blanks out comments (keeping newlines and offsets) so regexes see code only."""
    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"//[^\n]*|/\*.*?\*/", blank, text, flags=re.S)


def eval_size(expr: str, consts: dict[str, int], where: str) -> int:
    """Evaluates an array bound such as `16`, `N + 1` or `TILE * (TILE + 1)`."""
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(consts.get(m.group(0), m.group(0))), expr)
    if not re.fullmatch(r"[\d\s+\-*/()]+", expr):
        raise CorpusError(f"{where}: cannot evaluate array size `{expr}`")
    return int(eval(expr.replace("/", "//")))  # digits and operators only


def named_constants(code: str) -> dict[str, int]:
    consts: dict[str, int] = {}
    for m in re.finditer(r"#define\s+(\w+)\s+\(?\s*(-?\d+)[uU]?\s*\)?\s*$", code, re.M):
        consts[m.group(1)] = int(m.group(2))
    for m in re.finditer(r"\b(?:static\s+)?(?:constexpr|const)\s+(?:unsigned\s+int|unsigned|int)\s+"
                         r"(\w+)\s*=\s*(-?\d+)[uU]?\s*;", code):
        consts[m.group(1)] = int(m.group(2))
    return consts


def shared_words(ctype: str, dims: str, consts: dict, where: str, templated: bool,
                 types: dict[str, str]) -> int:
    """Words of one __shared__ declaration. In a file with templates a bound that cannot be
    evaluated (a device function template's own parameter) counts 0, not an error: qgpu's
    own count still applies on the machine."""
    ctype = types.get(ctype, ctype)
    consts = {k: v for k, v in consts.items() if isinstance(v, int)}
    try:  # packed: __shared__ unsigned char s[6] is 2 words
        return array_words_of(array_words(dims, None, consts, where), ctype)
    except CorpusError:
        if templated:
            return 0
        raise


def split_kernel_name(text: str, where: str) -> tuple[str, list[str] | None]:
    """`reduce<int,16>` -> ("reduce", ["int", "16"]); `vecadd` -> ("vecadd", None)."""
    m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*(?:<(.*)>)?\s*", text)
    if not m:
        raise CorpusError(f"{where}: --kernel `{text}`: expected NAME or NAME<ARGS>")
    if m.group(2) is None:
        return m.group(1), None
    return m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]


def template_type(arg: str, where: str) -> str:
    ctype = canonical_type(re.findall(r"[A-Za-z_]\w*", arg))
    if ctype is None:
        raise CorpusError(f"{where}: template argument `{arg}`: only int, unsigned, float and "
                          "8/16-bit integer types")
    return ctype


def template_value(arg: str, consts: dict[str, int], where: str) -> int:
    if arg in ("true", "false"):
        return int(arg == "true")
    return eval_size(re.sub(r"(?<=\d)[uU]\b", "", arg), consts, f"{where}: template argument")


def array_words(dims: str, init: str | None, consts: dict[str, int], where: str) -> int:
    """Words of a declaration with bounds `dims` ("[4][5]", "[]" or "") and an initializer."""
    words = 1
    for bound in re.findall(r"\[([^\]]*)\]", dims):
        if bound.strip():
            words *= eval_size(bound, consts, where)
        elif init is not None:
            words *= len([x for x in init.strip("{} \n").split(",") if x.strip()])
        else:
            raise CorpusError(f"{where}: array with no size")
    return words


def find_body(code: str, start: int) -> tuple[int, int]:
    """The span of the brace-balanced body whose `{` is the first one at or after start."""
    open_at = code.index("{", start)
    depth = 0
    for i in range(open_at, len(code)):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return open_at, i + 1
    raise CorpusError("unbalanced braces")


# A kernel: extern "C" (C linkage) or not (C++ linkage, possibly a template).
SIGNATURE = re.compile(r'(?:\btemplate\s*<([^<>]*)>\s*)?(?:extern\s+"C"\s+)?(?:static\s+)?'
                       r'__global__\s+(?:static\s+)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
                       r'(\w+)\s*\(([^)]*)\)')
ALIGN = r"(?:__align__|alignas)\s*\([^()]*(?:\([^()]*\))?[^()]*\)"
SMALL_TYPE_RE = r"(?:unsigned\s+|signed\s+)?(?:char|short(?:\s+int)?)"
SHARED_TYPE = rf"{SMALL_TYPE_RE}|unsigned\s+int|unsigned|signed\s+int|int|float|[A-Za-z_]\w*"
SHARED = re.compile(rf"__shared__\s+(?:{ALIGN}\s*)?(?:volatile\s+)?(?:const\s+)?(?:{ALIGN}\s*)?"
                    rf"({SHARED_TYPE})\s+(?:{ALIGN}\s*)?(\w+)\s*((?:\[[^\]]*\])*)\s*(?:{ALIGN}\s*)?;")


def static_shared(code: str, start: int = 0, end: int | None = None):
    """The __shared__ declarations with a size (not `extern __shared__ T s[];`) in code[start:end]."""
    for m in SHARED.finditer(code, start, len(code) if end is None else end):
        if not re.search(r"\bextern\s*$", code[max(0, m.start() - 40):m.start()]):
            yield m
# Dynamic shared memory: `extern __shared__ [__align__(16)] int sdata[];` (also alignas(16)
# after the name, and `extern float __shared__ smem[];`). Groups 1 and 2: the type's words
# before and after __shared__ (with any alignment), group 3: the name.
EXTERN_SHARED = re.compile(rf"\bextern\s+([^;\[{{}}\"]*?)\b__shared__\b([^;\[{{}}]*?)\b(\w+)\s*\[\s*\]\s*"
                           rf"(?:{ALIGN}\s*)*;")
STATIC_SHARED = re.compile(r"\bstatic(\s+)(?=__shared__)")  # the emulator's __shared__ is `static`
NAMESPACE = re.compile(r"\bnamespace\s+(\w+(?:::\w+)*)?\s*\{")
# A module global (__device__ / __constant__) and its type (group 1): one copy, packed.
GLOBAL = re.compile(rf"(?:__device__|__constant__)\s+(?:const\s+)?({SMALL_TYPE_RE}|bool|int8_t|uint8_t|"
                    r"int16_t|uint16_t|int|unsigned(?:\s+int)?|float)\s+"
                    r"(\w+)\s*((?:\[[^\]]*\])*)\s*(=\s*(\{[^}]*\}|[^;]*))?\s*;")


TYPEDEF = re.compile(r"\btypedef\s+((?:[A-Za-z_]\w*\s+)*?[A-Za-z_]\w*)\s+(\w+)\s*;|"
                     r"\busing\s+(\w+)\s*=\s*((?:[A-Za-z_]\w*\s+)*?[A-Za-z_]\w*)\s*;")


def type_aliases(code: str) -> dict[str, list[str]]:
    """`typedef unsigned int uint;` / `using uint = unsigned int;` -> {"uint": ["unsigned", "int"]}
    (for int, unsigned, float and the 8/16-bit types: `typedef unsigned char uchar;`)."""
    out = {}
    for m in TYPEDEF.finditer(code):
        name, target = (m.group(2), m.group(1)) if m.group(2) else (m.group(3), m.group(4))
        words = [w for w in target.split() if w not in ("const", "volatile")]
        if canonical_type(words) is not None:
            out[name] = words
    return out


def parse_param(text: str, where: str, type_params: tuple[str, ...] = (),
                aliases: dict[str, list[str]] | None = None) -> Param:
    text = text.split("=")[0]  # a default argument
    words = re.findall(r"[A-Za-z_]\w*|\*", text)
    words = [w for w in words if w not in ("const", "__restrict__", "__restrict", "volatile")]
    if aliases and words and words[0] in aliases and words[0] not in type_params:
        words = aliases[words[0]] + words[1:]
    if not words or not re.fullmatch(r"[A-Za-z_]\w*", words[-1]):
        raise CorpusError(f"{where}: cannot read parameter `{text.strip()}`")
    pointer = words.count("*")
    base = [w for w in words[:-1] if w != "*"]
    if len(base) == 1 and base[0] in type_params:
        ctype = base[0]  # resolved per run from --kernel 'NAME<...>' (KernelFile.kernel_for)
    else:
        ctype = canonical_type(base)
    if ctype is None:
        raise CorpusError(f"{where}: parameter `{text.strip()}`: only int, unsigned, float and "
                          "8/16-bit integers (char, short, bool, int8_t, ...) are supported")
    if pointer > 1:
        raise CorpusError(f"{where}: parameter `{text.strip()}`: pointer to pointer")
    return Param(words[-1], ctype, pointer == 1)


def parse_template_params(text: str, where: str) -> list[tuple[str, str, str | None]]:
    """`typename T, unsigned int blockSize = 16` -> [("T", "type", None), ("blockSize", "value", "16")]."""
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        decl, _, default = part.partition("=")
        words = decl.split()
        if len(words) < 2:
            raise CorpusError(f"{where}: cannot read template parameter `{part}`")
        kind = "type" if words[0] in ("typename", "class") else "value"
        out.append((words[-1], kind, default.strip() or None))
    return out


def namespaces_at(code: str, pos: int) -> str:
    """The named namespaces enclosing pos, as a qualifier ("a::b::")."""
    names = []
    for m in NAMESPACE.finditer(code, 0, pos):
        start, end = find_body(code, m.end() - 1)
        if start < pos < end and m.group(1):
            names.append(m.group(1))
    return "".join(f"{n}::" for n in names)


def rewrite_for_host(text: str, code: str, path: Path) -> str | None:
    """The file as the host compiles it, or None when it compiles as it is: each
    `extern __shared__ T name[];` becomes a reference to the emulator's per-block dynamic
    shared storage (QGPU_EMU_DYNAMIC_SHARED) and `static __shared__` drops its `static` (the
    emulator's __shared__ is static already). Lines keep their numbers (#line)."""
    edits = []
    for m in EXTERN_SHARED.finditer(code):
        ctype = " ".join(re.sub(ALIGN, " ", m.group(1) + " " + m.group(2)).split())
        new = f"QGPU_EMU_DYNAMIC_SHARED({m.group(3)}, {ctype});"
        edits.append((m.start(), m.end(), new + "\n" * code.count("\n", m.start(), m.end())))
    for m in STATIC_SHARED.finditer(code):
        edits.append((m.start(), m.end(), " " * 6 + m.group(1)))
    if not edits:
        return None
    out, last = [], 0
    for start, end, new in sorted(edits):
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return f'#line 1 "{path}"\n' + "".join(out)


def decl_type(text: str, aliases: dict[str, list[str]]) -> str:
    """A __shared__ declaration's type as shared_words looks it up: "unsigned char" for
    `unsigned  char` or a typedef of it; a type parameter or vector type as written."""
    words = text.split()
    if len(words) == 1 and words[0] in aliases:
        words = aliases[words[0]]
    return canonical_type(words) or " ".join(words)


def parse_kernel_file(path: Path) -> KernelFile:
    text = path.read_text()
    code = strip_comments(text)
    consts = named_constants(code)
    aliases = type_aliases(code)
    where = path.name
    kernels: dict[str, Kernel] = {}
    bodies: list[tuple[int, int]] = []
    for m in SIGNATURE.finditer(code):
        after = code[m.end():].lstrip()
        if after.startswith(";"):
            continue  # a declaration; the definition follows
        tparams = parse_template_params(m.group(1), f"{where}: {m.group(2)}") if m.group(1) else []
        type_params = tuple(t for t, kind, _ in tparams if kind == "type")
        params = [parse_param(p, f"{where}: {m.group(2)}", type_params, aliases)
                  for p in m.group(3).split(",") if p.strip() and p.strip() != "void"]
        body = find_body(code, m.end())
        bodies.append(body)
        decls = [(decl_type(s.group(1), aliases), s.group(3))
                 for s in static_shared(code, body[0], body[1])]
        dynamic = any(EXTERN_SHARED.finditer(code, body[0], body[1]))
        if m.group(2) in kernels:
            raise CorpusError(f"{where}: two kernels named {m.group(2)}")
        kernels[m.group(2)] = Kernel(m.group(2), params, 0, tparams, decls, dynamic,
                                     namespaces_at(code, m.start()))
    if not kernels:
        raise CorpusError(f'{where}: no `__global__ void NAME(...)` kernel')
    inside = lambda pos: any(b[0] <= pos < b[1] for b in bodies)
    file_shared = [(decl_type(s.group(1), aliases), s.group(3))
                   for s in static_shared(code) if not inside(s.start())]
    file_dynamic = any(not inside(s.start()) for s in EXTERN_SHARED.finditer(code))
    global_words = sum(array_words_of(array_words(g.group(3), g.group(5), consts, where),
                                      canonical_type(g.group(1).split()) or "int")
                       for g in GLOBAL.finditer(code) if not inside(g.start()))
    runs = [parse_run(m.group(1).strip(), where)
            for m in re.finditer(r"^//\s*run:(.*)$", text, re.M)]
    kf = KernelFile(path, path.stem, kernels, global_words, file_shared, runs,
                    bool(SHUFFLE.search(code)), bool(VOTE.search(code)),
                    bool(CONTRACT_MARKER.search(text)), consts,
                    rewrite_for_host(text, code, path.resolve()))
    kf.file_dynamic_shared = file_dynamic
    return kf


def check_source(kf: KernelFile) -> list[str]:
    """Corpus rules that do not depend on a launch."""
    text = kf.path.read_text()
    problems = []
    first = text.splitlines()[0] if text else ""
    if not first.startswith(f"// {kf.name}: "):
        problems.append(f"{kf.path.name}:1: first line must be `// {kf.name}: what it computes`")
    if not kf.runs:
        problems.append(f"{kf.path.name}: no `// run:` line")
    code = strip_comments(text)
    code = re.sub(r"^\s*#\s*include.*$", "", code, flags=re.M)
    for pattern, what in FORBIDDEN.items():
        m = re.search(pattern, code)
        if m:
            line = code.count("\n", 0, m.start()) + 1
            problems.append(f"{kf.path.name}:{line}: uses {what} (`{m.group(0)}`)")
    return problems


# ---- parsing a run line ------------------------------------------------------------------

def parse_dims(value: str, where: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)(?:,(\d+))?", value)
    if not m:
        raise CorpusError(f"{where}: dimensions must be X or X,Y, got `{value}`")
    return int(m.group(1)), int(m.group(2) or 1)


# One value: an integer, a decimal (1.5, -2, 3e-5, .5), inf, -inf, nan, or float bits 0f7f800001.
INT_TOKEN = re.compile(r"-?\d+")
VALUE_TOKEN = (r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|-?inf|nan|0f[0-9a-fA-F]{8}")


def parse_value(value: str, where: str) -> str | list[str]:
    """The value's tokens, verbatim; word_value() reads them for the parameter's type."""
    if re.fullmatch(VALUE_TOKEN, value):
        return value
    if re.fullmatch(rf"\[(?:{VALUE_TOKEN})(?:,(?:{VALUE_TOKEN}))*\]", value):
        return value[1:-1].split(",")
    raise CorpusError(f"{where}: value must be a number or [a,b,...] with no spaces: `{value}`")


def round_to_float(q: Fraction) -> int:
    """The bits of the binary32 nearest to q >= 0 (ties to even, subnormals, overflow to inf)."""
    if q == 0:
        return 0
    e = q.numerator.bit_length() - q.denominator.bit_length()  # 2**e <= q < 2**(e+1) after:
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, -126)
    m = round(q / Fraction(2) ** (e - 23))  # Fraction rounds half to even
    if m == 1 << 24:
        e, m = e + 1, 1 << 23
    if e > 127:
        return 0x7F800000
    if m < 1 << 23:
        return m  # subnormal (e == -126)
    return ((e + 127) << 23) | (m - (1 << 23))


def float_bits(token: str) -> int:
    """A float value token as binary32 bits (an unsigned int)."""
    if token.startswith("0f"):
        return int(token[2:], 16)
    if token == "nan":
        return 0x7FFFFFFF
    sign = 0x80000000 if token.startswith("-") else 0
    mag = token.lstrip("-")
    return sign | (0x7F800000 if mag == "inf" else round_to_float(Fraction(mag)))


def word_value(token: str, ctype: str, where: str) -> int:
    """A token as the parameter type's value: an int, or a float's bits."""
    if ctype == "float":
        return float_bits(token)
    if not INT_TOKEN.fullmatch(token):
        raise CorpusError(f"{where}: `{token}` is not an integer (the parameter is {ctype})")
    return int(token)


def expected_bits(text: str) -> int:
    """The bits an expected float element ("1.5", "-0", "inf", "nan", "nan:0x7f800001") names."""
    if text.startswith("nan:0x"):
        return int(text[6:], 16)
    return float_bits(text)


def parse_run(text: str, where: str) -> Run:
    """Parses `--grid G --block B [--kernel K] [--shared BYTES] --arg NAME=VALUE ...`, split
    as a shell splits it (run lines go through one: --kernel 'reduce<int,16>')."""
    try:
        tokens = shlex.split(text)
    except ValueError as e:
        raise CorpusError(f"{where}: run line: {e}: `{text}`")
    grid, block, kernel, args, shared = None, None, None, {}, None
    i = 0
    while i < len(tokens):
        flag = tokens[i]
        if i + 1 >= len(tokens):
            raise CorpusError(f"{where}: run line: `{flag}` needs a value")
        value = tokens[i + 1]
        if flag == "--grid":
            grid = parse_dims(value, where)
        elif flag == "--block":
            block = parse_dims(value, where)
        elif flag == "--kernel":
            kernel = value
        elif flag == "--shared":
            if not re.fullmatch(r"\d+", value):
                raise CorpusError(f"{where}: run line: --shared takes a number of bytes, got `{value}`")
            shared = int(value)
        elif flag == "--arg":
            name, eq, val = value.partition("=")
            if not eq or name in args:
                raise CorpusError(f"{where}: run line: bad or repeated --arg `{value}`")
            args[name] = parse_value(val, where)
        else:
            raise CorpusError(f"{where}: run line: unknown flag `{flag}`")
        i += 2
    if grid is None or block is None:
        raise CorpusError(f"{where}: run line needs --grid and --block: `{text}`")
    return Run(text, grid, block, kernel, args, shared)


# ---- machine limits ------------------------------------------------------------------------

def shared_copies(block: tuple[int, int]) -> int:
    """CUDA blocks resident at once: each holds its own copy of every __shared__ array."""
    warps = -(-(block[0] * block[1]) // LANES_PER_WARP)
    return RESIDENT_WARPS // warps


def memory_parts(kf: KernelFile, kernel: Kernel, run: Run) -> dict[str, int]:
    """The machine's memory words a launch needs, by what holds them (docs/isa.md)."""
    copies = shared_copies(run.block)
    dynamic = -(-(run.shared or 0) // 4)  # --shared BYTES: whole words
    types = {p.name: p.ctype for p in kernel.params}  # 8/16-bit arrays are packed
    return {
        "arrays": sum(array_words_of(len(v), types.get(name, "int"))
                      for name, v in run.args.items() if isinstance(v, list)),
        "scalar parameters": sum(not p.pointer for p in kernel.params),
        "module globals": kf.global_words,
        f"__shared__ ({copies} cop{'y' if copies == 1 else 'ies'})":
            (kernel.shared_words + kf.file_shared_words(run) + dynamic) * copies,
        "shuffle scratch": SHUFFLE_WORDS if kf.shuffles else 0,
        "vote scratch": VOTE_WORDS if kf.votes else 0,
    }


def memory_words(kf: KernelFile, kernel: Kernel, run: Run) -> int:
    return sum(memory_parts(kf, kernel, run).values())


def check_run(kf: KernelFile, kernel: Kernel, run: Run) -> list[str]:
    where = f"{kf.path.name}: run `{run.text[:60]}...`"
    problems = []
    threads = run.block[0] * run.block[1]
    if not 1 <= threads <= MAX_BLOCK_THREADS:
        problems.append(f"{where}: block has {threads} threads (limit {MAX_BLOCK_THREADS})")
    blocks = run.grid[0] * run.grid[1]
    if not 1 <= blocks <= MAX_GRID_BLOCKS:
        problems.append(f"{where}: grid has {blocks} blocks (limit {MAX_GRID_BLOCKS})")
    if problems:
        return problems
    if kf.uses_dynamic_shared(kernel) and run.shared is None:
        problems.append(f"{where}: {kernel.name} uses `extern __shared__` memory: the run line "
                        "needs --shared BYTES")
    words = memory_words(kf, kernel, run)
    if words > MEMORY_WORDS:
        parts = ", ".join(f"{what} {n}" for what, n in memory_parts(kf, kernel, run).items() if n)
        problems.append(f"{where}: needs {words} memory words (limit {MEMORY_WORDS}): {parts}")
    names = [p.name for p in kernel.params]
    for p in kernel.params:
        if p.name not in run.args:
            problems.append(f"{where}: no --arg for parameter {p.name}")
        elif p.pointer != isinstance(run.args[p.name], list):
            kind = "a [list]" if p.pointer else "a number"
            problems.append(f"{where}: parameter {p.name} needs {kind}")
    for name, value in run.args.items():
        if name not in names:
            problems.append(f"{where}: --arg {name} is not a parameter of {kernel.name}")
            continue
        ctype = next(p.ctype for p in kernel.params if p.name == name)
        for token in value if isinstance(value, list) else [value]:
            try:
                v = word_value(token, ctype, f"{where}: --arg {name}")
            except CorpusError as e:
                problems.append(str(e))
                continue
            if ctype in SMALL_TYPES:
                _, _, lo, hi = SMALL_TYPES[ctype]
                if not lo <= v <= hi:
                    problems.append(f"{where}: --arg {name}: {v} is out of range for {ctype} "
                                    f"({lo}..{hi})")
            elif not -2**31 <= v < 2**32:
                problems.append(f"{where}: --arg {name}: {v} is not a 32-bit value")
    return problems


# ---- the C++ driver ------------------------------------------------------------------------

def cpp_value(token: str, ctype: str, float_fn: str = "std::bit_cast<float>") -> str:
    """A C++ expression for a value token of type ctype (a float from its exact bits)."""
    if ctype == "float":
        return f"{float_fn}(UINT32_C(0x{float_bits(token):08x}))"
    return f"static_cast<{ctype}>(INT64_C({int(token)}))"


def driver_case(kernel: Kernel, run: Run, k: int) -> str:
    lines = [f"  case {k}: {{"]
    call = []
    for p in kernel.params:
        value = run.args[p.name]
        if p.pointer:
            elems = ", ".join(cpp_value(v, p.ctype) for v in value)
            # qgpu_emu::host_array<T>: std::vector<T>, but a real bool array for bool
            lines.append(f"    qgpu_emu::host_array<{p.ctype}> {p.name}_ = {{{elems}}};")
            if p.ctype == "float":
                lines.append(f"    const std::vector<float> {p.name}_initial_ = {p.name}_;")
            call.append(f"{p.name}_.data()")
        else:
            call.append(cpp_value(value, p.ctype))
    (gx, gy), (bx, by) = run.grid, run.block
    shared = f", {run.shared}" if run.shared else ""
    lines.append(f"    qgpu_emu::launch(dim3({gx}, {gy}), dim3({bx}, {by}), [&] {{ "
                 f"{kernel.call}({', '.join(call)}); }}, qgpu_reverse_{shared});")
    pointers = [p for p in kernel.params if p.pointer]
    lines.append('    std::printf("{");')
    for i, p in enumerate(pointers):
        if p.ctype == "float":
            lines.append(f'    qgpu_emu::print_float_array("{p.name}", {p.name}_, {p.name}_initial_, '
                         f'{str(i == 0).lower()});')
        else:
            lines.append(f'    qgpu_emu::print_array("{p.name}", {p.name}_, {str(i == 0).lower()});')
    lines.append('    std::printf("}\\n");')
    lines.append("    return 0;")
    lines.append("  }")
    return "\n".join(lines)


def write_driver(kf: KernelFile, out: Path) -> None:
    cases = "\n".join(driver_case(kf.kernel_for(r), r, k) for k, r in enumerate(kf.runs))
    source = kf.path
    if kf.source is not None:  # extern __shared__ / static __shared__: the rewritten copy
        source = out.parent / kf.path.name
        source.write_text(kf.source)
    out.write_text(f"""// Generated by scripts/gen_expected.py: runs the cases of {kf.path.name} on the host.
#include "cuda_emu.h"
#include "{source}"

// Runs case k with blocks in forward or reverse order; prints every pointer argument.
// (The parameters' names cannot be a kernel's: `k`, `reverse`.)
static int run_case(int qgpu_k_, bool qgpu_reverse_) {{
  switch (qgpu_k_) {{
{cases}
  }}
  return 2;
}}

int main() {{ return qgpu_emu::run_cases({len(kf.runs)}, run_case); }}
""")


def run_driver(exe: Path, n_cases: int, where: str) -> list[dict[str, list[int]]]:
    """Runs every case forward and reversed; fails when the two orders disagree."""
    env = dict(os.environ, TSAN_OPTIONS=f"halt_on_error=1 suppressions={ORACLE_DIR / 'tsan.supp'}")
    try:
        proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env,
                              timeout=RUN_TIMEOUT_S * n_cases)
    except subprocess.TimeoutExpired:
        raise CorpusError(f"{where}: timed out (deadlock at __syncthreads?)")
    if proc.returncode != 0 or proc.stderr:
        head = "\n".join(proc.stderr.splitlines()[:12])  # the sanitizer's what and where
        raise CorpusError(f"{where}: driver exit {proc.returncode}\n{head}")
    results: dict[tuple[int, str], dict] = {}
    for line in proc.stdout.splitlines():
        k, order, data = line.split(" ", 2)
        results[(int(k), order)] = json.loads(data)
    outputs = []
    for k in range(n_cases):
        forward, backward = results[(k, "forward")], results[(k, "reverse")]
        if forward != backward:
            diff = [n for n in forward if forward[n] != backward.get(n)]
            raise CorpusError(f"{where} case {k}: result depends on block/thread order (or the kernel "
                              f"reads extern __shared__ memory it did not write): {diff}")
        outputs.append(forward)
    return outputs


# ---- one kernel file end to end ----------------------------------------------------------------

def format_expected(unsigned: list[str], floats: list[str], cases: list[dict],
                    elements: dict[str, str] | None = None) -> str:
    """Readable JSON: one line per array, so a diff shows the case and array that changed.
    "element_types" ({"name": "u8"|"s8"|"bool"|"s16"|"u16"}: the 8/16-bit arrays) is there
    only when the file has such an array."""
    out = ["{", f'  "unsigned_params": {json.dumps(unsigned)},',
           f'  "float_params": {json.dumps(floats)},']
    if elements:
        out.append(f'  "element_types": {json.dumps(elements)},')
    out.append('  "cases": [')
    for i, case in enumerate(cases):
        out.append("    {")
        out.append(f'      "run": {json.dumps(case["run"])},')
        for key in ("unsigned_params", "float_params", "element_types"):  # where they differ
            if key in case:
                out.append(f'      "{key}": {json.dumps(case[key])},')
        out.append('      "outputs": {')
        items = list(case["outputs"].items())
        for j, (name, values) in enumerate(items):
            comma = "," if j + 1 < len(items) else ""
            out.append(f'        {json.dumps(name)}: {json.dumps(values)}{comma}')
        out.append("      }")
        out.append("    }" + ("," if i + 1 < len(cases) else ""))
    out.append("  ]")
    out.append("}")
    return "\n".join(out) + "\n"


def process(path: Path, cfg: Config) -> tuple[str, str | None, list[str]]:
    """Returns (name, expected JSON text or None, problems) for one kernel file."""
    try:
        kf = parse_kernel_file(path)
    except CorpusError as e:
        return path.stem, None, [str(e)]
    problems = check_source(kf)
    try:
        for run in kf.runs:
            problems += check_run(kf, kf.kernel_for(run), run)
    except CorpusError as e:
        problems.append(str(e))
    if problems:
        return kf.name, None, problems
    work = cfg.build_dir / kf.name
    work.mkdir(parents=True, exist_ok=True)
    write_driver(kf, work / "driver.cpp")
    exe = work / "driver"
    flags = cfg.flags + (CONTRACT_FLAGS if kf.contract else [])
    if VECTOR_TYPE.search(strip_comments(kf.path.read_text())):
        flags = flags + ["-fno-strict-aliasing"]  # reinterpret_cast<int4 *>(int_array)
    proc = subprocess.run([CXX, *flags, "-I", str(cfg.build_dir / "pch"), "-I",
                           str(ORACLE_DIR), str(work / "driver.cpp"),
                           str(cfg.build_dir / "cuda_emu.o"), "-o", str(exe)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return kf.name, None, [f"{path.name}: g++ failed:\n{proc.stderr[-3000:]}"]
    try:
        outputs = run_driver(exe, len(kf.runs), path.name)
    except CorpusError as e:
        return kf.name, None, [str(e)]
    cases = [{"run": r.text, "outputs": o} for r, o in zip(kf.runs, outputs)]
    # Array types: of every non-template kernel, and of every run of a template kernel (its
    # types come from the run's template arguments).
    instances = [k for k in kf.kernels.values() if not k.template_params]
    instances += [kf.kernel_for(r) for r in kf.runs if kf.kernel_for(r).template_params]
    unsigned = sorted({p.name for k in instances for p in k.params if p.pointer and p.ctype == "unsigned"})
    floats = sorted({p.name for k in instances for p in k.params if p.pointer and p.ctype == "float"})
    # The 8/16-bit arrays' element types: an array's first type over the non-template kernels,
    # then the runs in order (a case whose types differ carries its own "element_types").
    elements: dict[str, str] = {}
    for k in instances:
        for name, t in element_types(k).items():
            elements.setdefault(name, t)
    elements = dict(sorted(elements.items()))
    # A case whose arrays' types differ from the file's lists (one template, instantiated for
    # int in one run and float in another) carries its own lists.
    for case, run in zip(cases, kf.runs):
        k = kf.kernel_for(run)
        pointers = [p for p in k.params if p.pointer]
        own_u = sorted(p.name for p in pointers if p.ctype == "unsigned")
        own_f = sorted(p.name for p in pointers if p.ctype == "float")
        names = {p.name for p in pointers}
        if own_u != sorted(set(unsigned) & names) or own_f != sorted(set(floats) & names):
            case["unsigned_params"], case["float_params"] = own_u, own_f
        own_e = element_types(k)
        if own_e != {n: t for n, t in elements.items() if n in names}:
            case["element_types"] = own_e
    return kf.name, format_expected(unsigned, floats, cases, elements), []


def element_types(kernel: Kernel) -> dict[str, str]:
    """{"name": "u8"|"s8"|"bool"|"s16"|"u16"} for each of kernel's 8/16-bit pointer parameters."""
    return {p.name: SMALL_TYPES[p.ctype][0] for p in sorted(kernel.params, key=lambda p: p.name)
            if p.pointer and p.ctype in SMALL_TYPES}


def max_diff(want: list, got: list, bad: list[int]) -> str:
    """", max |diff| N" over the differing int elements (float elements are strings)."""
    diffs = [abs(want[j] - got[j]) for j in bad
             if isinstance(want[j], int) and isinstance(got[j], int)]
    return f", max |diff| {max(diffs)}" if diffs else ""


def describe_difference(old_text: str, new_text: str) -> str:
    """The first case and array where two expected files differ, for --check."""
    old, new = json.loads(old_text), json.loads(new_text)
    if len(old["cases"]) != len(new["cases"]):
        return f"{len(old['cases'])} cases committed, {len(new['cases'])} now"
    for k, (a, b) in enumerate(zip(old["cases"], new["cases"])):
        if a["run"] != b["run"]:
            return f"case {k}: the run line changed"
        for name in sorted(set(a["outputs"]) | set(b["outputs"])):
            want, got = a["outputs"].get(name), b["outputs"].get(name)
            if want == got:
                continue
            if want is None or got is None or len(want) != len(got):
                return f"case {k}: array {name} changed shape"
            bad = [i for i in range(len(want)) if want[i] != got[i]]
            i = bad[0]
            return (f"case {k}: {name}[{i}] committed {want[i]}, now {got[i]} "
                    f"({len(bad)} of {len(want)} differ{max_diff(want, got, bad)})")
    return "formatting differs"


def build_emulator(cfg: Config) -> None:
    """Compiles cuda_emu.h's launcher once (cuda_emu.o) and precompiles the header with the
    drivers' exact flags: together they take about a third off each driver's build."""
    pch = cfg.build_dir / "pch" / "cuda_emu.h.gch"
    pch.parent.mkdir(parents=True, exist_ok=True)
    impl = cfg.build_dir / "cuda_emu.cpp"
    impl.write_text('#define QGPU_EMU_IMPLEMENTATION\n#include "cuda_emu.h"\n')
    for cmd in ([CXX, *cfg.flags, "-x", "c++-header", str(ORACLE_DIR / "cuda_emu.h"), "-o", str(pch)],
                [CXX, *cfg.flags, "-I", str(ORACLE_DIR), "-c", str(impl),
                 "-o", str(cfg.build_dir / "cuda_emu.o")]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"gen_expected: cannot compile cuda_emu.h:\n{proc.stderr}")


# ---- --nvcc: the same cases on a real GPU ------------------------------------------------------

NVCC_RUN_TIMEOUT_S = 60   # per driver process; a kernel that deadlocks hangs its driver
NO_DEVICE_RC = 3          # a driver's exit status when cudaGetDeviceCount() finds no GPU


def find_nvcc() -> str | None:
    if os.environ.get("NVCC"):
        return os.environ["NVCC"]
    return shutil.which("nvcc") or next(
        (c for c in ("/usr/local/cuda/bin/nvcc",) if os.access(c, os.X_OK)), None)


def nvcc_driver_case(kernel: Kernel, run: Run, k: int) -> str:
    lines = [f"  case {k}: {{"]
    call = []
    pointers = [p for p in kernel.params if p.pointer]
    for p in kernel.params:
        value = run.args[p.name]
        if p.pointer:
            # std::vector<bool> has no data(): a bool array travels as its bytes (0 or 1)
            host = "unsigned char" if p.ctype == "bool" else p.ctype
            elems = ", ".join(cpp_value(v, host, "qgpu_f32") for v in value)
            lines.append(f"    std::vector<{host}> {p.name}_h_ = {{{elems}}};")
            lines.append(f"    {p.ctype} *{p.name}_d_ = nullptr;")
            lines.append(f"    QGPU_CHECK(cudaMalloc(&{p.name}_d_, {p.name}_h_.size() * sizeof({p.ctype})));")
            lines.append(f"    QGPU_CHECK(cudaMemcpy({p.name}_d_, {p.name}_h_.data(), "
                         f"{p.name}_h_.size() * sizeof({p.ctype}), cudaMemcpyHostToDevice));")
            call.append(f"{p.name}_d_")
        else:
            call.append(cpp_value(value, p.ctype, "qgpu_f32"))
    (gx, gy), (bx, by) = run.grid, run.block
    shared = f", {run.shared}" if run.shared else ""
    lines.append(f"    {kernel.call}<<<dim3({gx}, {gy}), dim3({bx}, {by}){shared}>>>({', '.join(call)});")
    lines.append("    QGPU_CHECK(cudaGetLastError());")
    lines.append("    QGPU_CHECK(cudaDeviceSynchronize());")
    for p in pointers:
        lines.append(f"    QGPU_CHECK(cudaMemcpy({p.name}_h_.data(), {p.name}_d_, "
                     f"{p.name}_h_.size() * sizeof({p.ctype}), cudaMemcpyDeviceToHost));")
        lines.append(f"    QGPU_CHECK(cudaFree({p.name}_d_));")
    lines.append('    std::printf("%d {", qgpu_k_);')
    for i, p in enumerate(pointers):
        lines.append(f'    qgpu_print_array("{p.name}", {p.name}_h_, {str(i == 0).lower()});')
    lines.append('    std::printf("}\\n");')
    lines.append("    std::fflush(stdout);")
    lines.append("    return 0;")
    lines.append("  }")
    return "\n".join(lines)


def write_nvcc_driver(kf: KernelFile, out: Path) -> None:
    cases = "\n".join(nvcc_driver_case(kf.kernel_for(r), r, k) for k, r in enumerate(kf.runs))
    out.write_text(f"""// Generated by scripts/gen_expected.py --nvcc: runs the cases of {kf.path.name} on a GPU.
// Usage: driver K ...   runs cases K... in order; prints `K {{"array": [...], ...}}` for each.
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "{kf.path}"

#define QGPU_CHECK(call)                                                                  \\
  do {{                                                                                    \\
    cudaError_t qgpu_e_ = (call);                                                         \\
    if (qgpu_e_ != cudaSuccess) {{                                                         \\
      std::fprintf(stderr, "case %d: %s: %s\\n", qgpu_k_, #call, cudaGetErrorString(qgpu_e_)); \\
      return 1;                                                                           \\
    }}                                                                                     \\
  }} while (0)

template <class T>
static void qgpu_print_array(const char *name, const std::vector<T> &a, bool first) {{
  std::printf("%s\\"%s\\": [", first ? "" : ", ", name);
  for (size_t i = 0; i < a.size(); i++) std::printf(i ? ", %d" : "%d", (int)a[i]);
  std::printf("]");
}}

// A float array prints as its bits, "0f3fc00000" (gen_expected.py compares bits).
static void qgpu_print_array(const char *name, const std::vector<float> &a, bool first) {{
  std::printf("%s\\"%s\\": [", first ? "" : ", ", name);
  for (size_t i = 0; i < a.size(); i++) {{
    unsigned bits;
    std::memcpy(&bits, &a[i], sizeof bits);
    std::printf(i ? ", \\"0f%08x\\"" : "\\"0f%08x\\"", bits);
  }}
  std::printf("]");
}}

static float qgpu_f32(unsigned bits) {{
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}}

static int qgpu_run_case(int qgpu_k_) {{
  switch (qgpu_k_) {{
{cases}
  }}
  std::fprintf(stderr, "no case %d\\n", qgpu_k_);
  return 2;
}}

int main(int argc, char **argv) {{
  int n_devices = 0;
  cudaError_t e = cudaGetDeviceCount(&n_devices);
  if (e != cudaSuccess || n_devices == 0) {{
    std::fprintf(stderr, "no CUDA device: %s\\n", e != cudaSuccess ? cudaGetErrorString(e) : "count is 0");
    return {NO_DEVICE_RC};
  }}
  for (int i = 1; i < argc; i++) {{
    const int rc = qgpu_run_case(std::atoi(argv[i]));
    if (rc != 0) return rc;
  }}
  return 0;
}}
""")


@dataclasses.dataclass
class NvccResult:
    name: str
    cases: int = 0
    compiled: bool = False
    ran: bool = False
    no_device: bool = False
    problems: list[str] = dataclasses.field(default_factory=list)   # failures, one line each
    lines: list[str] = dataclasses.field(default_factory=list)      # per-case ok / MISMATCH


def run_nvcc_driver(exe: Path, cases: list[int]) -> tuple[int, dict[int, dict], str]:
    try:
        proc = subprocess.run([str(exe), *map(str, cases)], capture_output=True, text=True,
                              timeout=NVCC_RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc, stdout, stderr = 124, out, f"timed out after {NVCC_RUN_TIMEOUT_S}s (deadlock?)"
    else:
        rc, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    results = {}
    for line in stdout.splitlines():
        k, _, data = line.partition(" ")
        try:
            results[int(k)] = json.loads(data)
        except ValueError:
            pass
    return rc, results, stderr.strip()


def compare_case(want: dict, got: dict) -> str | None:
    """None when equal, else the first mismatches and max |diff| (of int elements).
    A float element is compared by its bits: expected text ("1.5", "nan") against the
    driver's "0f3fc00000"."""
    if set(want) != set(got):
        return f"arrays {sorted(got)} printed, {sorted(want)} expected"
    bad, worst = [], 0
    for name in sorted(want):
        w, g = want[name], got[name]
        if len(w) != len(g):
            return f"{name}: {len(g)} elements printed, {len(w)} expected"
        for i, (a, b) in enumerate(zip(w, g)):
            if isinstance(a, str) or isinstance(b, str):
                if not (isinstance(a, str) and isinstance(b, str)) or expected_bits(a) != float_bits(b):
                    bad.append(f"{name}[{i}] expected {a}, got {b}")
            elif a != b:
                bad.append(f"{name}[{i}] expected {a}, got {b}")
                worst = max(worst, abs(a - b))
    if not bad:
        return None
    return f"{'; '.join(bad[:3])}{' ...' if len(bad) > 3 else ''} ({len(bad)} differ, max |diff| {worst})"


def nvcc_process(path: Path, expected_dir: Path, nvcc: str, arch: str, build_dir: Path,
                 run_it: bool) -> NvccResult:
    res = NvccResult(path.stem)
    try:
        kf = parse_kernel_file(path)
        for run in kf.runs:
            kernel = kf.kernel_for(run)
            missing = [p.name for p in kernel.params if p.name not in run.args]
            if missing:
                raise CorpusError(f"{path.name}: run `{run.text[:40]}...`: no --arg {missing[0]}")
    except CorpusError as e:
        res.problems.append(str(e))
        return res
    res.cases = len(kf.runs)
    work = build_dir / kf.name
    work.mkdir(parents=True, exist_ok=True)
    write_nvcc_driver(kf, work / "driver.cu")
    exe = work / "driver"
    proc = subprocess.run([nvcc, f"-arch={arch}", "-O2", "-std=c++17", "-o", str(exe),
                           str(work / "driver.cu")], capture_output=True, text=True)
    if proc.returncode != 0:
        res.problems.append(f"nvcc failed:\n{proc.stderr[-3000:]}")
        return res
    res.compiled = True
    if not run_it:
        return res
    target = expected_dir / f"{kf.name}.json"
    if not target.exists():
        res.problems.append(f"{target} is missing")
        return res
    expected = json.loads(target.read_text())["cases"]
    if len(expected) != len(kf.runs) or any(e["run"] != r.text for e, r in zip(expected, kf.runs)):
        res.problems.append(f"{target.name} does not match the run lines (run gen_expected.py first)")
        return res
    # Module globals start from their initial values in every case: one process per case.
    # Otherwise all cases in one process, and one process per case only to isolate a failure.
    indices = list(range(len(kf.runs)))
    batches = [[k] for k in indices] if kf.global_words else [indices]
    results: dict[int, dict] = {}
    errors: dict[int, str] = {}
    for batch in batches:
        rc, got, err = run_nvcc_driver(exe, batch)
        if rc == NO_DEVICE_RC and not got:
            res.no_device = True
            res.problems.append(f"no GPU: {err}")
            return res
        results.update(got)
        if rc != 0 and len(batch) > 1:
            for k in batch:
                if k not in results:
                    rc1, got1, err1 = run_nvcc_driver(exe, [k])
                    results.update(got1)
                    if rc1 != 0:
                        errors[k] = f"exit {rc1}: {err1.splitlines()[0] if err1 else ''}"
        elif rc != 0:
            errors[batch[0]] = f"exit {rc}: {err.splitlines()[0] if err else ''}"
    res.ran = True
    for k in indices:
        if k in errors or k not in results:
            msg = f"case {k}: RUN FAILED {errors.get(k, 'no output')}"
            res.problems.append(msg)
            res.lines.append(msg)
            continue
        why = compare_case(expected[k]["outputs"], results[k])
        if why is None:
            res.lines.append(f"case {k}: ok")
        else:
            msg = f"case {k}: MISMATCH {why}"
            res.problems.append(msg)
            res.lines.append(msg)
    return res


def gpu_name() -> str | None:
    """The GPU's name from nvidia-smi, or None when there is no working nvidia-smi or no GPU."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        proc = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=60)
    except (subprocess.TimeoutExpired, OSError):
        return None
    names = [n.strip() for n in proc.stdout.splitlines() if n.strip()]
    return ", ".join(names) if proc.returncode == 0 and names else None


def uses_warp_functions(path: Path) -> bool:
    """Whether a kernel file's code names a shuffle, a vote or warpSize."""
    return bool(WARP_DEPENDENT.search(strip_comments(path.read_text())))


def write_nvcc_report(path: Path, results: list[NvccResult], nvcc_version: str, gpu: str | None,
                      arch: str, summary: str, skipped: list[str]) -> None:
    md = ["# Corpus on a real GPU (gen_expected.py --nvcc)", "",
          f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
          f"- GPU: {gpu or 'none found (drivers compiled, not run)'}",
          f"- nvcc: {nvcc_version}",
          f"- arch: {arch}",
          f"- result: {summary}",
          f"- skipped (warp functions or warpSize: 4 lanes on the machine, 32 on a GPU): "
          f"{' '.join(skipped) if skipped else 'none'}", "",
          "| kernel | cases | result |", "| --- | --- | --- |"]
    for r in results:
        if not r.compiled:
            result = "COMPILE FAILED"
        elif not r.ran:
            result = "NO GPU" if r.no_device or gpu is None else "NOT RUN: " + "; ".join(r.problems)
        elif r.problems:
            result = "FAIL: " + "; ".join(r.problems)
        else:
            result = "ok"
        cell = result.replace("|", "\\|").replace("\n", " ")[:400]
        md.append(f"| {r.name} | {r.cases} | {cell} |")
    failures = [r for r in results if r.problems and not r.no_device]
    if failures:
        md += ["", "## Details", ""]
        for r in failures:
            md.append(f"### {r.name}")
            md.append("```")
            md += [line for p in r.problems for line in p.splitlines()[:40]]
            md.append("```")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(md) + "\n")


def nvcc_main(opts: argparse.Namespace, paths: list[Path], expected_dir: Path) -> int:
    start = time.monotonic()
    nvcc = find_nvcc()
    if nvcc is None:
        print("gen_expected --nvcc: no nvcc (put it on PATH or set NVCC)", file=sys.stderr)
        return 1
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    version = next((l.strip() for l in version.splitlines() if "release" in l), version.strip())
    gpu = gpu_name()
    if gpu is None:
        print("gen_expected --nvcc: no GPU (no working nvidia-smi): compiling the drivers only")
    else:
        print(f"gen_expected --nvcc: {gpu}, {version}, -arch={opts.arch}")
    # warpSize is 4 on the machine and in the oracle, 32 on a GPU: a kernel that uses warp
    # functions or warpSize computes something else there, by design, so it is not compared.
    skipped = [p.stem for p in paths if uses_warp_functions(p)]
    for name in skipped:
        print(f"skipped {name}: uses warp functions (warpSize 4 here, 32 on a GPU)")
    paths = [p for p in paths if p.stem not in skipped]
    build_dir = ROOT / "build" / f"nvcc-{opts.arch}"
    results: list[NvccResult] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        work = lambda p: nvcc_process(p, expected_dir, nvcc, opts.arch, build_dir, gpu is not None)
        for r in pool.map(work, paths):
            results.append(r)
            if not r.compiled:
                print(f"FAIL {r.name}: " + "\n".join("\n".join(r.problems).splitlines()[:15]),
                      file=sys.stderr)
            elif r.no_device:
                print(f"{r.name}: compiled; {r.problems[0]}")
            elif gpu is not None:
                for line in r.lines or r.problems:
                    print(f"{r.name} {line}")
            sys.stdout.flush()
            if opts.report:  # kept current, so a run stopped by a time limit still leaves one
                write_nvcc_report(opts.report, results, version, gpu, opts.arch,
                                  f"in progress: {len(results)}/{len(paths)} kernel files done",
                                  skipped)
    compiled = sum(r.compiled for r in results)
    no_gpu = gpu is None or (compiled > 0 and all(r.no_device for r in results if r.compiled))
    compile_failed = [r.name for r in results if not r.compiled]
    failed = [r.name for r in results if r.problems and not r.no_device]
    n_cases = sum(r.cases for r in results)
    if no_gpu:
        summary = f"compiled {compiled}/{len(paths)} drivers; no GPU to run them"
    else:
        ok_cases = sum(line.endswith(": ok") for r in results for line in r.lines)
        summary = (f"{len(paths) - len(failed)}/{len(paths)} kernel files, "
                   f"{ok_cases}/{n_cases} cases match the committed JSON")
    if skipped:
        summary += f"; {len(skipped)} skipped (warp functions)"
    if failed:
        summary += f"; failed: {' '.join(failed)}"
    if opts.report:
        write_nvcc_report(opts.report, results, version, None if no_gpu else gpu, opts.arch,
                          summary, skipped)
    print(f"gen_expected --nvcc: {summary} ({time.monotonic() - start:.1f}s)"
          + (f"; report {opts.report}" if opts.report else ""))
    if failed or compile_failed:
        return 1
    if no_gpu:
        return 2 if opts.require_gpu else 0
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME", help="kernel files to process")
    ap.add_argument("--check", action="store_true", help="compare with the committed JSON")
    ap.add_argument("--tsan", action="store_true",
                    help="build with ThreadSanitizer instead of ASan+UBSan (finds races)")
    ap.add_argument("--dir", type=Path, default=KERNEL_DIR,
                    help="kernel folder (default kernels/); expected JSON goes to DIR/expected")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--nvcc", action="store_true",
                    help="compile real CUDA drivers with nvcc, run them on the GPU, compare")
    ap.add_argument("--arch", default="sm_90", help="--nvcc: nvcc -arch (default sm_90, H100/H200)")
    ap.add_argument("--report", type=Path, help="--nvcc: write a Markdown report here")
    ap.add_argument("--require-gpu", action="store_true",
                    help="--nvcc: exit 2 instead of 0 when there is no GPU to run the drivers")
    opts = ap.parse_args()
    start = time.monotonic()
    sanitizer = "tsan" if opts.tsan else "asan"
    cfg = Config(ROOT / "build" / f"oracle-{sanitizer}", CXX_FLAGS + SANITIZERS[sanitizer])
    expected_dir = opts.dir / "expected"
    paths = sorted(opts.dir.glob("*.cu"))
    if opts.only:
        paths = [p for p in paths if p.stem in opts.only]
        missing = set(opts.only) - {p.stem for p in paths}
        if missing:
            print(f"gen_expected: no {opts.dir}/{sorted(missing)[0]}.cu", file=sys.stderr)
            return 1
    if opts.nvcc:
        return nvcc_main(opts, paths, expected_dir)
    expected_dir.mkdir(parents=True, exist_ok=True)
    build_emulator(cfg)
    failed, n_cases = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for name, text, problems in pool.map(lambda p: process(p, cfg), paths):
            if problems:
                failed.append(name)
                for p in problems:
                    print(f"FAIL {p}", file=sys.stderr)
                continue
            target = expected_dir / f"{name}.json"
            if opts.check:
                if not target.exists():
                    failed.append(name)
                    print(f"FAIL {name}: {target} is missing", file=sys.stderr)
                elif target.read_text() != text:
                    failed.append(name)
                    why = describe_difference(target.read_text(), text)
                    print(f"FAIL {name}: differs from {target}: {why}", file=sys.stderr)
            elif not target.exists() or target.read_text() != text:
                target.write_text(text)
            if name not in failed:
                n_cases += text.count('"run":')
    if not opts.only:  # expected files whose kernel file is gone
        for orphan in sorted(set(expected_dir.glob("*.json")) - {expected_dir / f"{p.stem}.json" for p in paths}):
            if opts.check:
                failed.append(orphan.stem)
                print(f"FAIL {orphan}: no kernel file {orphan.stem}.cu", file=sys.stderr)
            else:
                orphan.unlink()
                print(f"gen_expected: removed {orphan} (no {orphan.stem}.cu)")
    print(f"gen_expected: {len(paths) - len(failed)}/{len(paths)} kernel files, {n_cases} cases "
          f"ok in {time.monotonic() - start:.1f}s" + (f"; failed: {' '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
