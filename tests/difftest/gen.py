"""Random CUDA kernels that are well defined by construction, for differential testing.

A program is a small tree (Kernel, statements, expressions) that prints as CUDA for qgpu and,
through the oracle's emulation header (tests/oracle/cuda_emu.h), as host C++ for the reference.
What keeps every program well defined, whatever the reducer later removes:

- integers: `int` arithmetic that can overflow is done in `unsigned` and converted back (the
  conversion is modular in clang and g++); shift amounts are masked to 0..31; a division or
  remainder whose divisor is 0 (or INT_MIN / -1) yields its dividend instead; abs() never sees
  INT_MIN; array indices are reduced modulo the array's length.
- floats: every multiply is __fmul_rn, so that clang's default contraction (a*b+c into one fma)
  cannot change a rounding the host makes twice; float -> int goes through the saturating
  __float2int_rz / __float2uint_rz, never a C cast; no float's bits are read as an integer
  (the host's NaN payloads differ from the machine's canonical NaN).
- threads: every thread writes only its own output words; shared memory is written only in
  a phase that starts and ends with __syncthreads() (a node the reducer keeps whole); every
  __syncthreads() and every warp function is reached by all threads of the block (conditions
  and loop bounds over them depend only on the block, the parameters and uniform loop
  counters); warp functions need whole warps and no thread that returned early; atomics on a
  word shared by threads use one commutative operation per word and ignore the old value.
- loops run at most 4 times each (bounds are masked), nested at most two deep.

The generator knows the machine's limits (qgpu isa: 16 threads a block, 126 memory words,
4 resident warps); a program that still does not fit is refused by qgpu with a message, which
the runner counts apart from wrong answers.
"""
from __future__ import annotations

import random
import struct

from program import *  # noqa: F401,F403 (the tree's node types and tables)
from program import walk_stmts, clone  # noqa: F401

# ---- the generator -------------------------------------------------------------------------

class Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.counter = 0

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # expressions ---------------------------------------------------------------------------

    def leaf(self, t: str, uniform: bool, scope) -> Expr:
        r = self.r
        options = []
        if t == "u":
            options += [(2, lambda: Const("u", True, r.choice(INTERESTING_U) if r.random() < 0.6 else r.getrandbits(32)))]
            options += [(2, lambda: Name("u", True, r.choice(["bid", "nthreads", "blockIdx.x", "blockIdx.y", "gridDim.x"])))]
            if self.in_function:
                options = [options[0], (2, lambda: Name("u", False, r.choice(["threadIdx.x", "blockIdx.x", "blockDim.x"])))]
            elif not uniform:
                options += [(4, lambda: Name("u", False, r.choice(["tid", "gid", "lane", "warp", "threadIdx.x", "threadIdx.y"])))]
                options += [(3, lambda: Op("u", False, "in[({0}) % " + str(self.kernel.n_in) + "u]", [self.leaf("u", False, scope)]))]
            else:
                options += [(2, lambda: Op("u", True, "in[({0}) % " + str(self.kernel.n_in) + "u]", [self.leaf("u", True, scope)]))]
        elif t == "i":
            options += [(2, lambda: Const("i", True, r.choice([0, 1, -1, 2, -2, 7, -8, 100, -2**31, 2**31 - 1, r.randrange(-2**31, 2**31)])))]
            options += [(2, lambda: Op("i", uniform, "(int){0}", [self.leaf("u", uniform, scope)]))]
        else:
            options += [(2, lambda: Const("f", True, r.choice(INTERESTING_F) if r.random() < 0.7 else r.uniform(-100, 100)))]
            if self.kernel.n_fin and not self.in_function:
                options += [(3, lambda: Op("f", uniform, "fin[({0}) % " + str(self.kernel.n_fin) + "u]", [self.leaf("u", uniform, scope)]))]
            options += [(2, lambda: Op("f", uniform, "(float){0}", [self.leaf(r.choice("ui"), uniform, scope)]))]
        vars_ = [n for n, vt, vu in scope if vt == t and (vu or not uniform)]
        if vars_:
            options += [(6, lambda: Name(t, uniform, r.choice(vars_)))]
        small = [(n, vt) for n, vt, vu in scope if vt in SMALL and (vu or not uniform)]
        if small and t in "ui":
            options += [(2, lambda: Op(t, uniform, f"({CTYPE[t]})" + "{0}", [Name(*(lambda v: (v[1], uniform, v[0]))(r.choice(small)))]))]
        total = sum(w for w, _ in options)
        x = r.random() * total
        for w, f in options:
            x -= w
            if x < 0:
                return f()
        return options[-1][1]()

    def expr(self, t: str, uniform: bool, scope, depth: int) -> Expr:
        r = self.r
        if t in SMALL:  # short / unsigned char: C's int arithmetic, converted back (modular)
            ctype, ops = SMALL[t]
            vars_ = [n for n, vt, vu in scope if vt == t and (vu or not uniform)]
            if depth <= 0 or r.random() < 0.3:
                if vars_ and r.random() < 0.6:
                    return Name(t, uniform, r.choice(vars_))
                return Op(t, uniform, f"({ctype})" + "({0})", [self.expr(r.choice("ui"), uniform, scope, 1)])
            if r.random() < 0.2:
                return Op(t, uniform, f"({ctype})" + "({0} >> ({1} & 7u))", [self.expr(t, uniform, scope, depth - 1),
                                                                            self.expr("u", uniform, scope, 0)])
            return Op(t, uniform, f"({ctype})" + "({0} " + r.choice(ops) + " {1})",
                      [self.expr(t, uniform, scope, depth - 1), self.expr(t, uniform, scope, depth - 1)])
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(t, uniform, scope)
        d = depth - 1
        sub = lambda tt=t: self.expr(tt, uniform, scope, d)
        k = r.random()
        if k < 0.12:  # a comparison as 0/1, or a select
            ct = r.choice("uif" if self.floats else "ui")
            cmp = Op("u", uniform, "({0} " + r.choice(COMPARE) + " {1})", [sub(ct), sub(ct)])
            if t == "u" and r.random() < 0.5:
                return Op("u", uniform, "(unsigned){0}", [cmp])
            return Op(t, uniform, "({0} ? {1} : {2})", [cmp, sub(), sub()])
        if k < 0.2:  # conversions
            if t == "u":
                src = r.choice("if" if self.floats else "i")
                form = "(unsigned){0}" if src == "i" else "__float2uint_rz({0})"
                return Op("u", uniform, form, [sub(src)])
            if t == "i":
                src = r.choice("uf" if self.floats else "u")
                form = "(int){0}" if src == "u" else r.choice(["__float2int_rz({0})", "__float2int_rn({0})"])
                return Op("i", uniform, form, [sub(src)])
            return Op("f", uniform, "(float){0}", [sub(r.choice("ui"))])
        if k < 0.27 and self.functions and not self.in_function and not uniform:
            f = r.choice(self.functions)
            if f.ret == t:
                args = [self.expr(pt, uniform, scope, d) for _, pt in f.params]
                return Op(t, uniform, f.call_name + "(" + ", ".join("{%d}" % i for i in range(len(args))) + ")", args)
        if k < 0.36:
            if t == "u":
                form = weighted(r, U_UNARY)
            elif t == "i":
                form = weighted(r, I_UNARY)
            else:
                form = F_UNARY[r.choice(self.float_unary)]
            return Op(t, uniform, form, [sub()])
        if t == "u":
            form = weighted(r, U_BINARY)
        elif t == "i":
            form = weighted(r, I_BINARY)
        else:
            if self.float_binary and r.random() < 0.85:
                if "fma" in self.float_binary and r.random() < 0.2:
                    return Op("f", uniform, "fmaf({0}, {1}, {2})", [sub(), sub(), sub()])
                name = r.choice([b for b in self.float_binary if b != "fma"] or ["min"])
                form = F_BINARY[name][0]
            else:
                return self.leaf("f", uniform, scope)
        return Op(t, uniform, form, [sub(), sub()])

    # statements ----------------------------------------------------------------------------

    def block(self, n: int, ctx: dict, scope, depth: int) -> list:
        return [s for _ in range(n) for s in [self.stmt(ctx, scope, depth)] if s is not None]

    def assign_target(self, scope, t=None):
        names = [(n, vt) for n, vt, vu in scope if not vu and n not in self.readonly and (t is None or vt == t)]
        return self.r.choice(names) if names else None

    def stmt(self, ctx: dict, scope, depth: int):
        r = self.r
        uniform_ctx = ctx["uniform"]
        k = r.random()
        kinds = []
        kinds.append(("assign", 10))
        if depth > 0:
            kinds += [("if", 3), ("loop", 2), ("switch", 0.6)]
        if uniform_ctx and not self.in_function:
            if not self.returned and self.kernel.features & {"sh", "shf", "sh_one", "sh_acc", "dsh", "dshf"}:
                kinds.append(("shared", 3))
            kinds.append(("barrier", 0.3))
            if not self.returned:
                kinds.append(("blockvote", 0.4))
        warp_ctx = uniform_ctx or ctx.get("warp", False)  # every lane of each warp gets here together
        if warp_ctx and not self.in_function and not self.returned and self.kernel.threads % 4 == 0 \
                and self.kernel.features & {"shfl", "vote"}:
            kinds.append(("warp", 3))
        if not self.in_function:
            if "acc" in self.kernel.features or "mine" in self.kernel.features:
                kinds.append(("atomic", 1.5))
            if "mine" in self.kernel.features:
                kinds.append(("private", 1))
            if "local" in self.kernel.features:
                kinds.append(("local", 0.7))
            if self.kernel.features & {"bytes", "shorts"}:
                kinds.append(("store", 0.7))
            if not uniform_ctx and not ctx["in_loop"] and "return" in self.kernel.features:
                kinds.append(("return", 0.3))
        kind = weighted(r, kinds)
        if kind == "assign":
            target = self.assign_target(scope)
            if target is None:
                return None
            name, t = target
            op = "="
            if t != "f" and r.random() < 0.3:
                op = r.choice(["^=", "+=", "|="]) if t == "u" else "^="
            return Assign(name, op, self.expr(t, False, scope, r.choice([1, 2, 2, 3])))
        if kind == "if":
            if warp_ctx and not self.in_function and r.random() < 0.25:  # the same in each warp's lanes
                form = r.choice(["(warp {0} {1})", "((warp & 1u) {0} ({1} & 1u))"]).replace("{0}", r.choice(COMPARE))
                cond = Op("u", False, form.replace("{1}", "{0}"), [self.expr("u", True, scope, 1)])
                inner = dict(ctx, uniform=False, warp=True)
                then = self.block(r.randint(1, 2), inner, scope, depth - 1)
                other = self.block(r.randint(1, 2), inner, scope, depth - 1) if r.random() < 0.4 else []
                return If(cond, then, other)
            uni = uniform_ctx and r.random() < 0.45
            cond = self.condition(uni, scope)
            inner = dict(ctx, uniform=uni, warp=False)
            then = self.block(r.randint(1, 2), inner, scope, depth - 1)
            other = self.block(r.randint(1, 2), inner, scope, depth - 1) if r.random() < 0.4 else []
            return If(cond, then, other)
        if kind == "loop":
            uni = uniform_ctx and r.random() < 0.5
            same_trips = (uni or (ctx.get("warp", False) and r.random() < 0.5))  # a uniform bound
            v = self.fresh("c")
            bound = self.expr("u", same_trips, scope, 2) if r.random() < 0.7 else Const("u", True, r.randint(0, 3))
            inner_scope = scope + [(v, "u", uni)]
            self.readonly.add(v)
            inner = dict(ctx, uniform=uni, in_loop=True, warp=same_trips and not uni)
            body = self.block(r.randint(1, 2), inner, inner_scope, depth - 1)
            exit_ = None
            if not same_trips and r.random() < 0.3:
                exit_ = (r.choice(["break", "continue"]), self.condition(False, inner_scope))
            return Loop(v, bound, body, r.choice(["for", "for", "do", "while"]), exit_)
        if kind == "switch":
            uni = uniform_ctx and r.random() < 0.3
            inner = dict(ctx, uniform=uni, warp=False)
            cases = [self.block(r.randint(0, 1), inner, scope, depth - 1) for _ in range(4)]
            return Switch(self.expr("u", uni, scope, 2), cases, [r.random() < 0.25 for _ in range(4)])
        if kind == "return":
            self.returned = True
            return Return(self.condition(False, scope))
        if kind == "barrier":
            return Barrier()
        if kind == "shared":
            return self.shared(ctx, scope)
        if kind == "warp":
            return self.warp(scope)
        if kind == "atomic":
            return self.atomic(scope)
        if kind == "local":
            target = self.assign_target(scope, "u")
            if target is None:
                return None
            fill_scope = scope + [("li_", "u", False)]
            return LocalArray(self.fresh("la"), r.randint(2, 3), self.expr("u", False, fill_scope, 2),
                              target[0], self.expr("u", False, scope, 2))
        if kind == "private":
            target = self.assign_target(scope, "u")
            if target is None:
                return None
            if r.random() < 0.5:
                return Assign("mine[gid]", r.choice(["=", "+=", "^="]), self.expr("u", False, scope, 2))
            return Assign(target[0], r.choice(["+=", "^="]), Name("u", False, "mine[gid]"))
        if kind == "blockvote":
            target = self.assign_target(scope, "u")
            if target is None:
                return None
            self.kernel.features.add("blockvote")
            return Warp(r.choice(["count", "and", "or"]), target[0], self.condition(False, scope))
        if kind == "store":
            kinds = [a for a in ("bytes", "shorts") if a in self.kernel.features]
            which = r.choice(kinds)
            arr, ctype = ("bout", "unsigned char") if which == "bytes" else ("hout", "short")
            return Store(arr, ctype, self.expr(r.choice("ui"), False, scope, 2))
        return None

    def condition(self, uniform: bool, scope) -> Expr:
        t = self.r.choice("uif" if self.floats else "ui")
        return Op("u", uniform, "({0} " + self.r.choice(COMPARE) + " {1})",
                  [self.expr(t, uniform, scope, 1), self.expr(t, uniform, scope, 1)])

    def shared(self, ctx, scope):
        r, f = self.r, self.kernel.features
        kinds = [k for k, need in (("array", "sh"), ("farray", "shf"), ("scalar", "sh_one"),
                                   ("atomic", "sh_acc"), ("dynamic", "dsh"), ("fdynamic", "dshf"))
                 if need in f]
        if "sh" in f and self.kernel.threads & (self.kernel.threads - 1) == 0 and self.kernel.threads > 1:
            kinds.append("tree")
        kind = r.choice(kinds)
        if kind in ("farray", "fdynamic"):
            target = self.assign_target(scope, "f")
            if target is None:
                return None
            return SharedPhase(kind[1:], target[0], self.expr("f", False, scope, 2),
                               self.expr("u", False, scope, 2), ftype=True)
        target = self.assign_target(scope, "u")
        if target is None:
            return None
        e = self.expr("u", False, scope, 2)
        if kind in ("array", "dynamic"):
            return SharedPhase(kind, target[0], e, self.expr("u", False, scope, 2))
        if kind == "scalar":
            return SharedPhase("scalar", target[0], e, arg=r.randrange(16))
        if kind == "atomic":
            return SharedPhase("atomic", target[0], e, arg=self.kernel.shared_atomic)
        return SharedPhase("tree", target[0], e)

    def warp(self, scope):
        r, f = self.r, self.kernel.features
        kinds = (["shfl", "up", "down", "xor"] if "shfl" in f else []) + \
                (["ballot", "any", "all"] if "vote" in f else []) + ["syncwarp"]
        kind = r.choice(kinds)
        if kind == "syncwarp":
            return Warp("syncwarp", "", None)
        if kind in ("ballot", "any", "all"):
            target = self.assign_target(scope, "u")
            if target is None:
                return None
            return Warp(kind, target[0], self.condition(False, scope))
        t = "f" if self.floats and r.random() < 0.3 else "u"
        target = self.assign_target(scope, t)
        if target is None:
            return None
        if kind == "xor":
            src = Const("u", True, r.choice([1, 2, 3])) if r.random() < 0.7 else self.expr("u", False, scope, 1)
        elif kind == "shfl":
            src = self.expr("u", False, scope, 2)
        else:
            src = Const("u", True, r.choice([1, 2, 3])) if r.random() < 0.7 else self.expr("u", True, scope, 1)
        return Warp(kind, target[0], self.expr(t, False, scope, 2), src, r.choice([4, 4, 2, 1]))

    def atomic(self, scope):
        r, f = self.r, self.kernel.features
        if "mine" in f and (r.random() < 0.5 or "acc" not in f):
            target = self.assign_target(scope, "u")
            if target is None:
                return None
            form = r.choice(PRIVATE_ATOMICS)
            e2 = self.expr("u", False, scope, 1) if "{1}" in form else None
            return GlobalAtomic(form, 0, self.expr("u", False, scope, 2), e2, target[0])
        word = r.randrange(len(self.kernel.acc_ops))
        return GlobalAtomic(GLOBAL_ATOMICS[self.kernel.acc_ops[word]], word, self.expr("u", False, scope, 2))

    # the kernel ------------------------------------------------------------------------------

    def kernel_(self) -> Kernel:
        r = self.r
        block = r.choice([(4, 1), (8, 1), (16, 1), (2, 2), (4, 2), (2, 4), (4, 4), (8, 2), (3, 1),
                          (5, 1), (6, 1), (12, 1), (1, 1), (2, 1), (3, 3)])
        features = set()
        self.floats = r.random() < 0.45
        for name, p in (("sh", 0.35), ("sh_one", 0.2), ("sh_acc", 0.2), ("acc", 0.25),
                        ("mine", 0.2), ("local", 0.15), ("bytes", 0.12), ("shorts", 0.08),
                        ("return", 0.2), ("shfl", 0.3), ("vote", 0.25), ("dynamic", 0.15), ("restrict", 0.3)):
            if r.random() < p:
                features.add(name)
        if "dynamic" in features:
            features.add("dsh")
            if self.floats and r.random() < 0.4:
                features.add("dshf")
        if self.floats and r.random() < 0.25:
            features.add("shf")
        if block[0] * block[1] % 4 != 0:
            features -= {"shfl", "vote"}
        k = Kernel(self.seed, f"dk{self.seed}", r.choice(["C", "C++"]), block, [], [],
                   r.choice([4, 8, 8, 16]), 0, [], [], 0, 0, features)
        self.kernel = k
        k.n_fin = r.choice([4, 8]) if self.floats else 0
        k.acc_ops = r.sample(range(len(GLOBAL_ATOMICS)), r.randint(1, 3))
        k.shared_atomic = r.randrange(len(SHARED_ATOMICS))
        fops = ["add", "sub", "mul", "div", "min", "max", "fma"]
        self.float_binary = r.sample(fops, r.randint(1, 3)) if self.floats else []
        self.float_unary = r.sample(list(F_UNARY), r.randint(1, 2)) if self.floats else []
        self.readonly = set()
        self.in_function = False
        self.returned = False  # a thread may have returned: no shared phase or warp function after
        k.scalars = [(f"p{j}", r.choice("uuif" if self.floats else "uui")) for j in range(r.randint(0, 3))]
        # device functions
        self.functions = []
        for j in range(r.choice([0, 0, 1, 1, 2])):
            self.in_function = True
            ret = r.choice("uuif" if self.floats else "uui")
            params = [(f"a{m}", r.choice("uuif" if self.floats else "uui")) for m in range(r.randint(1, 3))]
            fscope = [(n, t, False) for n, t in params]
            flocals = []
            for m in range(r.randint(0, 2)):
                t = r.choice("ui")
                flocals.append((f"l{m}", t, self.expr(t, False, fscope, 2)))
                fscope.append((f"l{m}", t, False))
            body = self.block(r.randint(0, 3), {"uniform": False, "returned": False, "in_loop": False}, fscope, 1)
            self.functions.append(Function(f"df{self.seed}_{j}", params, ret, body,
                                           self.expr(ret, False, fscope, 2), flocals, r.random() < 0.3,
                                           all(t == ret for _, t in params) and r.random() < 0.5))
            self.in_function = False
        k.functions = self.functions
        # locals
        scope = [(n, t, True) for n, t in k.scalars]
        n_u, n_f = r.randint(2, 4), (r.randint(1, 2) if self.floats else 0)
        for j in range(n_u):
            t = "u" if j < 2 else r.choice("ui")
            name = f"v{j}"
            k.locals.append((name, t, self.expr(t, False, scope, 2)))
            scope.append((name, t, False))
        for j in range(r.choice([0, 0, 1, 2])):
            t = r.choice("sb")
            name = f"{'h' if t == 's' else 'q'}{j}"
            k.locals.append((name, t, self.expr(t, False, scope, 2)))
            scope.append((name, t, False))
        for j in range(n_f):
            name = f"f{j}"
            k.locals.append((name, "f", self.expr("f", False, scope, 2)))
            scope.append((name, "f", False))
        ctx = {"uniform": True, "returned": False, "in_loop": False}
        k.body = self.block(r.randint(2, 6), ctx, scope, 2)
        k.k_out = r.randint(1, 2)
        k.k_fout = 1 if self.floats else 0
        # what the body uses decides the kernel's arrays (unused features are dropped)
        used = set()
        for s in walk_stmts(k.body):
            if isinstance(s, SharedPhase):
                used.add({"array": "sh", "tree": "sh", "scalar": "sh_one", "atomic": "sh_acc",
                          "dynamic": "dsh"}[s.kind] + ("f" if s.ftype else ""))
                if s.kind == "dynamic":
                    used.add("dynamic")
            elif isinstance(s, Warp) and s.kind in ("count", "and", "or"):
                used.add("blockvote")
            elif isinstance(s, Warp):
                used.add("vote" if s.kind in ("ballot", "any", "all") else "shfl")
        k.features = (k.features - {"sh", "shf", "sh_one", "sh_acc", "dsh", "dshf", "dynamic", "shfl", "vote", "blockvote"}) | used
        # cases
        for _ in range(r.choice([1, 1, 2])):
            k.cases.append(self.case(k))
        return k

    def case(self, k: Kernel) -> Case:
        r = self.r
        for _ in range(20):
            grid = r.choice([(1, 1), (1, 1), (2, 1), (3, 1), (4, 1), (2, 2), (1, 2), (5, 1), (8, 1)])
            total = grid[0] * grid[1] * k.threads
            args = {"in": [self.word(signed=False) for _ in range(k.n_in)], "out": [0] * (total * k.k_out)}
            if k.n_fin:
                args["fin"] = [self.float_value() for _ in range(k.n_fin)]
                args["fout"] = [0.0] * (total * k.k_fout)
            if "acc" in k.features:
                args["acc"] = [self.word(signed=False) for _ in range(4)]
            if "mine" in k.features:
                args["mine"] = [self.word(signed=False) for _ in range(total)]
            if "bytes" in k.features:
                args["bout"] = [0] * total
            if "shorts" in k.features:
                args["hout"] = [0] * total
            for n, t in k.scalars:
                args[n] = self.float_value() if t == "f" else self.word(signed=t == "i")
            c = Case(grid, args)
            if k.memory_words(c) <= MEMORY_WORDS - 6:
                return c
        return Case((1, 1), {**args, **self.shrink(k, args)})

    def shrink(self, k, args):
        total = k.threads
        out = {"out": [0] * (total * k.k_out)}
        if k.n_fin:
            out["fout"] = [0.0] * (total * k.k_fout)
        if "mine" in k.features:
            out["mine"] = [self.word(signed=False) for _ in range(total)]
        for a in ("bout", "hout"):
            if a in args:
                out[a] = [0] * total
        return out

    def shrink_case(self, k: Kernel, c: Case) -> Case:
        """c with its per-thread arrays sized for its grid and k's outputs (the reducer's)."""
        total = c.grid[0] * c.grid[1] * k.threads
        args = dict(c.args)
        args["out"] = [0] * (total * k.k_out)
        if k.n_fin:
            args["fout"] = [0.0] * (total * k.k_fout)
        if "mine" in args:
            args["mine"] = (args["mine"] + [0] * total)[:total]
        for a in ("bout", "hout"):
            if a in args:
                args[a] = [0] * total
        return Case(c.grid, args)

    def word(self, signed: bool = True) -> int:
        r = self.r
        v = r.choice(INTERESTING_U) if r.random() < 0.5 else (r.randrange(-50, 50) & 0xffffffff if r.random() < 0.5 else r.getrandbits(32))
        return v - 2**32 if signed and v >= 2**31 else v

    def float_value(self) -> float:
        r = self.r
        x = r.random()
        if x < 0.5:
            return r.choice(INTERESTING_F)
        if x < 0.55:
            return r.choice([float("inf"), float("-inf"), float("nan")])
        if x < 0.8:
            return float(r.randrange(-20, 20)) / r.choice([1, 2, 4, 3])
        import struct
        while True:
            v = struct.unpack("<f", struct.pack("<I", r.getrandbits(32)))[0]
            if v == v:
                return v


def weighted(r: random.Random, items):
    total = sum(w for _, w in items)
    x = r.random() * total
    for item, w in items:
        x -= w
        if x < 0:
            return item
    return items[-1][0]


def generate(seed: int) -> Kernel:
    return Gen(seed).kernel_()


