"""The random kernels' tree (gen.py makes it, reduce.py edits it): expressions, statements,
device functions and the kernel, each printing itself as CUDA (and, through the oracle's
emulation header, as host C++ for the reference). Each node prints its own guards (see
gen.py for what keeps a program well defined), so any tree the reducer leaves is defined too.
"""
from __future__ import annotations

import copy
import math
import struct
from dataclasses import dataclass, field

MEMORY_WORDS = 126
FULL = "0xffffffffu"
INT_MIN = "(-2147483647 - 1)"

# ---- expressions ---------------------------------------------------------------------------
# t: "u" (unsigned), "i" (int) or "f" (float). uniform: the same value in every thread of a block.


@dataclass
class Expr:
    t: str
    uniform: bool

    def children(self) -> list["Expr"]:
        return []


@dataclass
class Const(Expr):
    value: object = 0

    def code(self) -> str:
        if self.t == "u":
            return f"{self.value & 0xffffffff}u"
        if self.t == "i":
            v = self.value
            return INT_MIN if v == -2**31 else (f"({v})" if v < 0 else str(v))
        return float_literal(self.value)


@dataclass
class Name(Expr):
    text: str = ""

    def code(self) -> str:
        return self.text


@dataclass
class Op(Expr):
    """An operator or a call, printed by `form` (a format string over the arguments' code)."""
    form: str = ""
    args: list = field(default_factory=list)

    def children(self) -> list[Expr]:
        return self.args

    def code(self) -> str:
        return self.form.format(*[a.code() for a in self.args])


def float_literal(bits_value: float) -> str:
    import math
    import struct
    v = struct.unpack("<f", struct.pack("<f", bits_value))[0]
    if math.isnan(v):
        return "__int_as_float(0x7fffffff)"
    if math.isinf(v):
        return "__int_as_float(0x7f800000)" if v > 0 else "__int_as_float((int)0xff800000u)"
    if v == 0 and math.copysign(1, v) < 0:
        return "(-0.0f)"
    text = repr(v)
    if "e" not in text and "." not in text:
        text += ".0"
    return f"({text}f)" if v < 0 else f"{text}f"


# Binary operators by type: (form, weight). {0} and {1} are the operands' code.
U_BINARY = [
    ("({0} + {1})", 6), ("({0} - {1})", 4), ("({0} * {1})", 4), ("({0} & {1})", 3),
    ("({0} | {1})", 3), ("({0} ^ {1})", 4), ("({0} << ({1} & 31u))", 2),
    ("({0} >> ({1} & 31u))", 3), ("({1} != 0u ? {0} / {1} : {0})", 1),
    ("({1} != 0u ? {0} % {1} : {0})", 1), ("min({0}, {1})", 1), ("max({0}, {1})", 1),
    ("__umulhi({0}, {1})", 1),
]
I_BINARY = [
    ("(int)((unsigned){0} + (unsigned){1})", 4), ("(int)((unsigned){0} - (unsigned){1})", 3),
    ("(int)((unsigned){0} * (unsigned){1})", 2), ("({0} & {1})", 1), ("({0} ^ {1})", 1),
    ("({0} >> ({1} & 31))", 2),
    ("(({1} == 0 || ({0} == " + INT_MIN + " && {1} == -1)) ? {0} : {0} / {1})", 1),
    ("(({1} == 0 || ({0} == " + INT_MIN + " && {1} == -1)) ? {0} : {0} % {1})", 1),
    ("min({0}, {1})", 2), ("max({0}, {1})", 2), ("__mulhi({0}, {1})", 1),
]
F_BINARY = {  # by the machine's float sequence each needs (a kernel uses a few of them)
    "add": ("({0} + {1})", 4), "sub": ("({0} - {1})", 3), "mul": ("__fmul_rn({0}, {1})", 3),
    "div": ("({0} / {1})", 1), "min": ("fminf({0}, {1})", 2), "max": ("fmaxf({0}, {1})", 2),
}
F_UNARY = {"sqrt": "sqrtf({0})", "floor": "floorf({0})", "ceil": "ceilf({0})",
           "trunc": "truncf({0})", "rint": "rintf({0})", "abs": "fabsf({0})", "neg": "(-{0})"}
U_UNARY = [("(~{0})", 2), ("(unsigned)__popc({0})", 1), ("(unsigned)__clz((int){0})", 1),
           ("__brev({0})", 1), ("(unsigned)__ffs((int){0})", 1), ("(0u - {0})", 1)]
I_UNARY = [("abs({0} | 1)", 1), ("(int)(0u - (unsigned){0})", 1), ("(~{0})", 1)]
COMPARE = ["<", "<=", ">", ">=", "==", "!="]

INTERESTING_U = [0, 1, 2, 3, 4, 7, 15, 16, 31, 32, 255, 256, 0x7fffffff, 0x80000000, 0xffffffff,
                 0xfffffffe, 0x55555555, 0xaaaaaaaa, 0x10000, 0xffff]
INTERESTING_F = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0, 3.0, 0.1, -2.5, 1e-3, 1e10, -1e10,
                 3.4e38, 1e-40, 1.17549435e-38, 16777216.0, 16777217.0, 8388608.5, 2.5, 3.5]


# ---- statements ----------------------------------------------------------------------------

@dataclass
class Stmt:
    def blocks(self) -> list[list["Stmt"]]:
        """The statement lists nested in this one (for the reducer)."""
        return []

    def exprs(self) -> list[tuple[object, str]]:
        """(holder, attribute) of each expression directly in this statement."""
        return []


@dataclass
class Assign(Stmt):
    var: str
    op: str  # "=", "+=", "^=" (integers) ...
    e: Expr

    def exprs(self):
        return [(self, "e")]

    def code(self, ind):
        return f"{ind}{self.var} {self.op} {self.e.code()};"


@dataclass
class If(Stmt):
    cond: Expr
    then: list
    other: list

    def blocks(self):
        return [self.then, self.other]

    def exprs(self):
        return [(self, "cond")]

    def code(self, ind):
        s = [f"{ind}if ({self.cond.code()}) {{", *code_block(self.then, ind + "  ")]
        if self.other:
            s += [f"{ind}}} else {{", *code_block(self.other, ind + "  ")]
        return "\n".join(s + [f"{ind}}}"])


@dataclass
class Loop(Stmt):
    """for (unsigned c = 0; c < bound; c++), bound masked to 1..4; or the same as a do-while
    or a while; `exit` optionally breaks or continues early (divergent loops only)."""
    var: str
    bound: Expr  # an unsigned expression; the loop runs (bound & 3) + 1 times at most
    body: list
    shape: str = "for"  # for, do, while
    exit: tuple | None = None  # ("break" | "continue", cond)

    def blocks(self):
        return [self.body]

    def exprs(self):
        return [(self, "bound")] + ([(self, "exit_cond")] if self.exit else [])

    @property
    def exit_cond(self):
        return self.exit[1]

    @exit_cond.setter
    def exit_cond(self, e):
        self.exit = (self.exit[0], e)

    def code(self, ind):
        v, lim = self.var, f"(({self.bound.code()}) & 3u) + 1u"
        inner = ind + "  "
        early = [f"{inner}if ({self.exit[1].code()}) {self.exit[0]};"] if self.exit else []
        if self.shape == "for":
            return "\n".join([f"{ind}for (unsigned {v} = 0u; {v} < {lim}; {v}++) {{", *early,
                              *code_block(self.body, inner), f"{ind}}}"])
        if self.shape == "do" and not (self.exit and self.exit[0] == "continue"):
            return "\n".join([f"{ind}{{", f"{inner}unsigned {v} = 0u;", f"{inner}do {{",
                              *["  " + e for e in early], *code_block(self.body, inner + "  "),
                              f"{inner}  {v}++;", f"{inner}}} while ({v} < {lim});", f"{ind}}}"])
        # while: the counter steps first, so that a continue cannot skip it
        return "\n".join([f"{ind}{{", f"{inner}unsigned {v}_ = 0u;",
                          f"{inner}while ({v}_ < {lim}) {{", f"{inner}  const unsigned {v} = {v}_++;",
                          *["  " + e for e in early], *code_block(self.body, inner + "  "),
                          f"{inner}}}", f"{ind}}}"])


@dataclass
class Scope(Stmt):
    """A loop's body run once with its counter 0 (what the reducer leaves of a loop)."""
    var: str
    body: list

    def blocks(self):
        return [self.body]

    def code(self, ind):
        return "\n".join([f"{ind}{{", f"{ind}  const unsigned {self.var} = 0u;",
                          *code_block(self.body, ind + "  "), f"{ind}}}"])


@dataclass
class Switch(Stmt):
    e: Expr  # unsigned; switched on (e & 3u)
    cases: list  # 4 statement lists; case k falls through into k+1 when fall[k]
    fall: list

    def blocks(self):
        return self.cases

    def exprs(self):
        return [(self, "e")]

    def code(self, ind):
        s = [f"{ind}switch (({self.e.code()}) & 3u) {{"]
        for k, body in enumerate(self.cases):
            s.append(f"{ind}  case {k}u: {{")
            s += code_block(body, ind + "    ")
            s.append(f"{ind}  }}" + ("" if self.fall[k] else f"\n{ind}    break;"))
        return "\n".join(s + [f"{ind}}}"])


@dataclass
class Return(Stmt):
    cond: Expr

    def exprs(self):
        return [(self, "cond")]

    def code(self, ind):
        return f"{ind}if ({self.cond.code()}) return;"


@dataclass
class Barrier(Stmt):
    def code(self, ind):
        return f"{ind}__syncthreads();"


@dataclass
class SharedPhase(Stmt):
    """Threads exchange values through __shared__ memory between two barriers. kind:
    array (sh[tid] = e; v = sh[idx]), dynamic (the same through extern __shared__),
    scalar (one thread writes, all read), atomic (all add into a shared word, all read it),
    tree (a shared tree reduction: needs a power-of-two block)."""
    kind: str
    var: str
    e: Expr
    idx: Expr | None = None  # array/dynamic: which slot each thread reads (unsigned)
    arg: int = 0  # scalar: the writing thread; atomic: the operation's index
    ftype: bool = False  # a float exchange (array kind)

    def exprs(self):
        return [(self, "e")] + ([(self, "idx")] if self.idx is not None else [])

    def code(self, ind):
        i = ind
        if self.kind in ("array", "dynamic"):
            arr = ("shf" if self.ftype else "sh") if self.kind == "array" else ("dshf" if self.ftype else "dsh")
            return (f"{i}__syncthreads();\n{i}{arr}[tid] = {self.e.code()};\n{i}__syncthreads();\n"
                    f"{i}{self.var} = {arr}[({self.idx.code()}) % nthreads];")
        if self.kind == "scalar":
            return (f"{i}__syncthreads();\n{i}if (tid == {self.arg}u % nthreads) sh_one = {self.e.code()};\n"
                    f"{i}__syncthreads();\n{i}{self.var} ^= sh_one;")
        if self.kind == "atomic":
            op, init = SHARED_ATOMICS[self.arg]
            return (f"{i}__syncthreads();\n{i}if (tid == 0u) sh_acc = {init};\n{i}__syncthreads();\n"
                    f"{i}{op.format('&sh_acc', self.e.code())};\n{i}__syncthreads();\n"
                    f"{i}{self.var} += sh_acc;")
        assert self.kind == "tree"
        return (f"{i}__syncthreads();\n{i}sh[tid] = {self.e.code()};\n{i}__syncthreads();\n"
                f"{i}for (unsigned s_ = nthreads / 2u; s_ > 0u; s_ >>= 1) {{\n"
                f"{i}  if (tid < s_) sh[tid] += sh[tid + s_];\n{i}  __syncthreads();\n{i}}}\n"
                f"{i}{self.var} -= sh[0];")


SHARED_ATOMICS = [("atomicAdd({0}, {1})", "0u"), ("atomicXor({0}, {1})", "0u"),
                  ("atomicOr({0}, {1})", "0u"), ("atomicAnd({0}, {1})", "0xffffffffu"),
                  ("atomicMax({0}, {1})", "0u"), ("atomicMin({0}, {1})", "0xffffffffu")]
GLOBAL_ATOMICS = ["atomicAdd(&acc[{0}], {1})", "atomicXor(&acc[{0}], {1})",
                  "atomicOr(&acc[{0}], {1})", "atomicAnd(&acc[{0}], {1})",
                  "atomicMax(&acc[{0}], {1})", "atomicMin(&acc[{0}], {1})",
                  "atomicMax((int *)&acc[{0}], (int){1})", "atomicMin((int *)&acc[{0}], (int){1})"]
PRIVATE_ATOMICS = ["atomicAdd(&mine[gid], {0})", "atomicSub(&mine[gid], {0})",
                   "atomicExch(&mine[gid], {0})", "atomicCAS(&mine[gid], {0}, {1})",
                   "atomicInc(&mine[gid], {0})", "atomicDec(&mine[gid], {0})",
                   "atomicOr(&mine[gid], {0})"]


@dataclass
class Warp(Stmt):
    """A warp function (all lanes of every warp present): kind shfl/up/down/xor/ballot/any/
    all/syncwarp; width 1, 2 or 4; src the lane expression (shfl, xor) or the delta (up, down)."""
    kind: str
    var: str
    e: Expr | None
    src: Expr | None = None
    width: int = 4

    def exprs(self):
        return [(self, a) for a in ("e", "src") if getattr(self, a) is not None]

    def code(self, ind):
        w = "" if self.width == 4 else f", {self.width}"
        if self.kind == "syncwarp":
            return f"{ind}__syncwarp();"
        if self.kind in ("count", "and", "or"):  # a block barrier that counts
            return f"{ind}{self.var} += (unsigned)__syncthreads_{self.kind}({self.e.code()});"
        if self.kind in ("ballot", "any", "all"):
            call = f"__{self.kind}_sync({FULL}, {self.e.code()})"
            return f"{ind}{self.var} += (unsigned){call};" if self.var[0] != "f" else f"{ind}{self.var} += (float){call};"
        name = {"shfl": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync",
                "xor": "__shfl_xor_sync"}[self.kind]
        src = self.src.code() if self.kind in ("shfl", "xor") else f"({self.src.code()}) & 3u"
        if self.kind in ("shfl", "xor"):
            src = f"(int)({src})"
        return f"{ind}{self.var} = {name}({FULL}, {self.e.code()}, {src}{w});"


@dataclass
class GlobalAtomic(Stmt):
    form: str  # from GLOBAL_ATOMICS or PRIVATE_ATOMICS
    word: int
    e: Expr
    e2: Expr | None = None
    var: str | None = None  # private atomics: the old value is xor-ed into var

    def exprs(self):
        return [(self, "e")] + ([(self, "e2")] if self.e2 is not None else [])

    def code(self, ind):
        if self.var is None:
            return f"{ind}{self.form.format(self.word, self.e.code())};"
        call = self.form.format(self.e.code(), self.e2.code() if self.e2 is not None else "0u")
        return f"{ind}{self.var} ^= {call};"


@dataclass
class LocalArray(Stmt):
    """A per-thread array filled in a loop and read at a computed index."""
    name: str
    n: int
    fill: Expr  # may use the loop counter `li_`
    var: str
    idx: Expr

    def exprs(self):
        return [(self, "fill"), (self, "idx")]

    def code(self, ind):
        return (f"{ind}{{\n{ind}  unsigned {self.name}[{self.n}];\n"
                f"{ind}  for (unsigned li_ = 0u; li_ < {self.n}u; li_++) {self.name}[li_] = {self.fill.code()};\n"
                f"{ind}  {self.var} += {self.name}[({self.idx.code()}) % {self.n}u];\n{ind}}}")


@dataclass
class Store(Stmt):
    """A byte or short output: each thread its own element (packed: neighbours share a word)."""
    arr: str
    ctype: str
    e: Expr

    def exprs(self):
        return [(self, "e")]

    def code(self, ind):
        return f"{ind}{self.arr}[gid] = ({self.ctype})({self.e.code()});"


def code_block(stmts: list, ind: str) -> list[str]:
    return [s.code(ind) for s in stmts]


# ---- device functions and the kernel -------------------------------------------------------

@dataclass
class Function:
    name: str
    params: list  # (name, t)
    ret: str  # t
    body: list  # statements over its params and locals
    result: Expr
    locals: list  # (name, t, init Expr)
    noinline: bool = False
    template: bool = False  # template <typename T>, T the return type and every parameter's

    @property
    def call_name(self) -> str:
        return f"{self.name}<{CTYPE[self.ret]}>" if self.template else self.name

    def code(self) -> str:
        ctype = "T" if self.template else CTYPE[self.ret]
        ps = ", ".join(f"{'T' if self.template else CTYPE[t]} {n}" for n, t in self.params)
        inline = "__noinline__ " if self.noinline else ""
        head = "template <typename T>\n" if self.template else ""
        lines = [f"{head}__device__ {inline}{ctype} {self.name}({ps}) {{"]
        lines += [f"  {CTYPE[t]} {n} = {e.code()};" for n, t, e in self.locals]
        lines += code_block(self.body, "  ")
        lines += [f"  return {self.result.code()};", "}"]
        return "\n".join(lines)


CTYPE = {"u": "unsigned", "i": "int", "f": "float", "s": "short", "b": "unsigned char"}
SMALL = {"s": ("short", ["+", "-", "*", "&", "|", "^"]), "b": ("unsigned char", ["+", "-", "*", "&", "|", "^"])}


@dataclass
class Case:
    grid: tuple
    args: dict  # name -> list of values (arrays) or a value


@dataclass
class Kernel:
    seed: int
    name: str
    linkage: str  # "C" or "C++"
    block: tuple
    functions: list
    scalars: list  # (name, t)
    n_in: int
    n_fin: int  # 0: no float input
    locals: list  # (name, t, init Expr)
    body: list
    k_out: int  # unsigned outputs a thread
    k_fout: int  # float outputs a thread
    features: set
    cases: list = field(default_factory=list)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1]

    def params(self) -> list[tuple[str, str]]:
        """(name, C declaration) in order."""
        restrict = "__restrict__ " if "restrict" in self.features else ""
        ps = [("in", f"const unsigned *{restrict}in"), ("out", f"unsigned *{restrict}out")]
        if self.n_fin:
            ps += [("fin", f"const float *{restrict}fin"), ("fout", f"float *{restrict}fout")]
        if "acc" in self.features:
            ps.append(("acc", "unsigned *acc"))
        if "mine" in self.features:
            ps.append(("mine", "unsigned *mine"))
        if "bytes" in self.features:
            ps.append(("bout", "unsigned char *bout"))
        if "shorts" in self.features:
            ps.append(("hout", "short *hout"))
        ps += [(n, f"{CTYPE[t]} {n}") for n, t in self.scalars]
        return ps

    def code(self, host: bool = False) -> str:
        lines = [f"// difftest kernel, seed {self.seed} (tests/difftest/gen.py)"]
        n = self.threads
        if "dynamic" in self.features:
            for arr, t in (("dsh", "unsigned"), ("dshf", "float")):
                if arr in self.features:
                    lines.append(f"QGPU_EMU_DYNAMIC_SHARED({arr}, {t});" if host else
                                 f"extern __shared__ {t} {arr}[];")
        lines += [f.code() for f in self.functions]
        extern = 'extern "C" ' if self.linkage == "C" else ""
        ps = ", ".join(d for _, d in self.params())
        lines.append(f"{extern}__global__ void {self.name}({ps}) {{")
        lines.append("  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;")
        lines.append("  const unsigned nthreads = blockDim.x * blockDim.y;")
        lines.append("  const unsigned bid = blockIdx.y * gridDim.x + blockIdx.x;")
        lines.append("  const unsigned gid = bid * nthreads + tid;")
        lines.append("  const unsigned lane = tid % 4u, warp = tid / 4u;")
        if "sh" in self.features:
            lines.append(f"  __shared__ unsigned sh[{n}];")
        if "shf" in self.features:
            lines.append(f"  __shared__ float shf[{n}];")
        if "sh_one" in self.features:
            lines.append("  __shared__ unsigned sh_one;")
        if "sh_acc" in self.features:
            lines.append("  __shared__ unsigned sh_acc;")
        lines += [f"  {CTYPE[t]} {name} = {e.code()};" for name, t, e in self.locals]
        lines += code_block(self.body, "  ")
        us = [name for name, t, _ in self.locals if t != "f"]
        fs = [name for name, t, _ in self.locals if t == "f"]
        for j in range(self.k_out):
            part = " ^ ".join(f"((unsigned){v} * {2 * (j + 1) * (m + 1) + 1}u)"
                              for m, v in enumerate(us[j::self.k_out]))
            lines.append(f"  out[gid * {self.k_out}u + {j}u] = {part or '0u'};")
        for j in range(self.k_fout):
            lines.append(f"  fout[gid * {self.k_fout}u + {j}u] = {fs[j % len(fs)] if fs else '0.0f'};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def run_line(self, case: Case) -> str:
        g, b = case.grid, self.block
        parts = [f"--grid {g[0]},{g[1]}", f"--block {b[0]},{b[1]}"]
        if self.linkage == "C++":
            parts.append(f"--kernel {self.name}")
        if "dynamic" in self.features:
            parts.append(f"--shared {4 * self.threads}")  # extern __shared__ arrays alias
        for name, _ in self.params():
            v = case.args[name]
            if isinstance(v, list):
                parts.append(f"--arg {name}=[{','.join(value_text(x) for x in v)}]")
            else:
                parts.append(f"--arg {name}={value_text(v)}")
        return " ".join(parts)

    def memory_words(self, case: Case) -> int:
        copies = 4 // -(-self.threads // 4)
        shared = self.threads * (sum(a in self.features for a in ("sh", "shf")) + ("dynamic" in self.features))
        shared += ("sh_one" in self.features) + ("sh_acc" in self.features) + ("blockvote" in self.features)
        arrays = 0
        for name, _ in self.params():
            v = case.args[name]
            if isinstance(v, list):
                arrays += -(-len(v) // (4 if name == "bout" else 2 if name == "hout" else 1))
        local = max((s.n for s in walk_stmts(self.body) if isinstance(s, LocalArray)), default=0)
        words = arrays + len(self.scalars) + shared * copies + 16 * local  # a local array: a copy per lane
        words += 16 if self.features & {"shfl"} else 0
        words += 4 if self.features & {"vote"} else 0
        return words


def value_text(v) -> str:
    if isinstance(v, float):
        import math
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v == 0 and math.copysign(1, v) < 0:
            return "-0"
        return repr(v)
    return str(v)


def walk_stmts(stmts):
    for s in stmts:
        yield s
        for b in s.blocks():
            yield from walk_stmts(b)



def clone(k: Kernel) -> Kernel:
    return copy.deepcopy(k)
