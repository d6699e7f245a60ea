#!/usr/bin/env python3
"""Extract PEP 440 test vectors from pypa/packaging's own test-suite.

Usage:
    python3 gen_packaging_vectors.py /path/to/conformance/packaging > vectors.json
    python3 gen_packaging_vectors.py DIR --diagnostics diag.txt > vectors.json

The directory must hold packaging's ``test_version.py`` and
``test_specifiers.py`` (pypa/packaging, tests/).  Nothing is imported from
``packaging`` and the test files are never executed by Python: they are parsed
with :mod:`ast` and a *small abstract interpreter* walks them:

* module level: literal assignments (``VERSIONS = [...]``), ``+=`` on lists,
  class-level constants (``UNSATISFIABLE: ClassVar[...] = [...]``) and calls of
  small pure helper functions defined in the file (``_version_family``,
  ``_build_sample_versions``) are evaluated; everything else becomes opaque.
* for every ``test_*`` function, the ``@pytest.mark.parametrize`` argument
  lists are evaluated (literals, list comprehensions, ``itertools.chain``,
  ``operator.lt``..., ``pytest.param(..., marks=...)``; several parametrize
  decorators are expanded as a cartesian product), and the test *body* is then
  interpreted once per case with the parameters bound.  ``Version(...)``,
  ``parse(...)``, ``Specifier(...)`` and ``SpecifierSet(...)`` become symbolic
  objects; ``assert`` statements about them become vectors.  Anything the
  interpreter does not model (``to_range()``, ``replace()``, pickling, hashes,
  private attributes, ``repr``...) is opaque, and asserts involving opaque
  values are counted as "unhandled" in the ``tests`` section below instead of
  being guessed.

Output: one JSON object, keys sorted, ASCII only (non-ASCII characters are
\\u-escaped; decode with any JSON parser to get the exact test strings).

Common row fields
    test         "file::Class::function" (or "file::function") the row came from
    case         index of the parametrize case (cartesian product of all
                 parametrize decorators, top decorator varying slowest);
                 null for non-parametrized tests.  Rows are de-duplicated
                 ignoring "case"; the first case is kept.
    *_type       "str" when the test passed a plain string, "Version" when it
                 passed Version(<that string>) (matters for "===" only).

Sections
    source                 repository, commit, files (+ sha256) read
    tests                  per test function: number of cases, number of vectors
                           produced, and the source lines of asserts that could
                           not be turned into vectors (with a reason)
    valid_versions         [{input, test, case}]  Version(input)/parse(input)
                           succeeded in a test (not inside pytest.raises)
    invalid_versions       [{input, test, case}]  raised InvalidVersion
    normalized             [{input, normalized, test, case}]
                           str(Version(input)) == normalized
    version_properties     [{input, property, expected, test, case}]
                           Version(input).<property> == expected; property is
                           one of public, base_version, epoch, release (list),
                           local, pre ([letter, n] or null), post, dev,
                           is_prerelease, is_devrelease, is_postrelease, major,
                           minor, micro
    comparisons            [{left, right, op, expected, test, case}]
                           op(Version(left), Version(right)) is expected,
                           op in lt, le, eq, ne, ge, gt.  This is the expansion
                           exactly as test_comparison_true/false parametrize it
                           over VERSIONS, plus single asserts from other tests.
    ordering               [[a, b, cmp], ...] cmp in -1, 0, 1: every ordered
                           pair whose comparison facts above pin down a unique
                           result (sorted by a, b; duplicates removed).
                           Derived, not copied: each (a, b) collects all of its
                           op facts and they are checked for consistency.
    specifier_contains     [{kind, spec, spec_prereleases, via_setter, version,
                             version_type, contains_prereleases, installed,
                             expected, test, case}]
                           kind: "Specifier" or "SpecifierSet";
                           spec_prereleases: the constructor's prereleases=
                           (null when not given or None);
                           via_setter: true when spec_prereleases was assigned
                           through the `.prereleases = x` setter after
                           construction (test_*_prereleases_set/_explicit);
                           contains_prereleases / installed: keyword arguments
                           of .contains() (null when not given or None);
                           `version in spec` is recorded as contains() with no
                           keywords.
    specifier_filter       [{kind, spec, spec_prereleases, via_setter, input,
                             input_types, input_ref, key, filter_prereleases,
                             expected, expected_types, test, case}]
                           list(spec.filter(input, prereleases=...)) == expected.
                           input_ref names a module-level list (see
                           named_inputs) used as input instead of repeating it
                           (then "input"/"input_types" are null).  key: the
                           dict key used by `key=lambda item: item[key]`;
                           input/expected are then already mapped through it.
    specifier_filter_nonempty
                           same fields minus expected: the test asserts the
                           filter yields at least one item.
    named_inputs           {name: [strings]}  module-level lists referenced by
                           input_ref (_SAMPLE_VERSIONS)
    valid_specifiers       [{kind, input, test, case}] construction succeeded
                           (including the op x version cartesian product of
                           test_specifiers_normalized)
    invalid_specifiers     [{kind, input, test, case}] raised InvalidSpecifier
    specifier_normalized   [{kind, input, str, test, case}]  str(Spec(input))
    specifier_prereleases  [{kind, spec, spec_prereleases, expected, test, case}]
                           Spec(spec).prereleases == expected
    specifier_properties   [{kind, spec, property, expected, test, case}]
                           property: operator, version, len
    specifier_equality     [{left, left_type, right, right_type, op, expected,
                             test, case}]  types: "str", "Specifier",
                           "SpecifierSet"; op eq/ne
    specifier_set_relations[{method, left, right, expected, test, case}]
                           SpecifierSet(left).<method>(SpecifierSet(right))
    unsatisfiable          [{spec, spec_prereleases, expected, test, case}]
                           SpecifierSet(spec, prereleases=...).is_unsatisfiable()
"""

from __future__ import annotations

import ast
import copy
import hashlib
import itertools
import json
import os
import sys

REPOSITORY = "pypa/packaging"
COMMIT = "053c884615f2e83d80705251b447769ec2599653"
FILES = ["test_version.py", "test_specifiers.py"]

VERSION_PROPS = {
    "public", "base_version", "epoch", "release", "local", "pre", "post",
    "dev", "is_prerelease", "is_devrelease", "is_postrelease", "major",
    "minor", "micro",
}
SPEC_PROPS = {"prereleases", "operator", "version"}
CMP_NAMES = {
    ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq", ast.NotEq: "ne",
    ast.GtE: "ge", ast.Gt: "gt",
}
NEGATE = {"lt": "ge", "le": "gt", "eq": "ne", "ne": "eq", "ge": "lt", "gt": "le"}


# --------------------------------------------------------------------------
# symbolic values


class Opaque:
    """A value the interpreter does not model.

    ``receiver`` is set for unmodelled attributes of Version/Specifier objects
    so that calling them can mark the receiver as possibly mutated; ``pure``
    marks callables known not to mutate their arguments.
    """

    def __init__(self, why, receiver=None, pure=False):
        self.why = why
        self.receiver = receiver
        self.pure = pure

    def __repr__(self):
        return f"<opaque {self.why}>"


class Marker:
    """Names imported from packaging / pytest etc."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<{self.name}>"


class VersionObj:
    def __init__(self, raw):
        self.raw = raw
        # set when unmodelled code may have mutated the object (e.g. it was
        # passed to a helper that assigns private attributes)
        self.tainted = False


class SpecObj:
    def __init__(self, kind, spec, prereleases, via_setter=False):
        self.kind = kind
        self.spec = spec
        self.prereleases = prereleases
        self.via_setter = via_setter
        self.tainted = False

    def snap(self):
        return copy.copy(self)


class OpFunc:
    def __init__(self, name):
        self.name = name


class Bound:
    def __init__(self, obj, name):
        self.obj = obj
        self.name = name


class UserFunc:
    def __init__(self, node, env):
        self.node = node
        self.env = env


class LambdaObj:
    def __init__(self, node, env):
        self.node = node
        self.env = env


class ParamObj:
    def __init__(self, values, marks, id_):
        self.values = values
        self.marks = marks
        self.id = id_


class RaisesCtx:
    def __init__(self, exc):
        self.exc = exc


# fact expressions -----------------------------------------------------------


class Fact:
    pass


class CmpF(Fact):
    def __init__(self, left, right, op):
        self.left, self.right, self.op = left, right, op


class ContainsF(Fact):
    def __init__(self, spec, version, kwargs):
        self.spec, self.version, self.kwargs = spec, version, kwargs


class FilterF(Fact):
    def __init__(self, spec, items, kwargs, items_ref):
        self.spec, self.items, self.kwargs, self.items_ref = spec, items, kwargs, items_ref


class IterFilter:
    def __init__(self, f):
        self.f = f


class NextFilter:
    def __init__(self, f):
        self.f = f


class NonEmptyF(Fact):
    def __init__(self, f):
        self.f = f


class PropF(Fact):
    def __init__(self, obj, name):
        self.obj, self.name = obj, name


class StrF(Fact):
    def __init__(self, obj):
        self.obj = obj


class LenF(Fact):
    def __init__(self, obj):
        self.obj = obj


class UnsatF(Fact):
    def __init__(self, spec):
        self.spec = spec


class RelF(Fact):
    def __init__(self, method, left, right):
        self.method, self.left, self.right = method, left, right


class Check:
    """``fact == value`` / ``fact is value`` / ``fact != value``."""

    def __init__(self, fact, value, negate):
        self.fact, self.value, self.negate = fact, value, negate


class NotE:
    def __init__(self, inner):
        self.inner = inner


class ReturnSignal(Exception):
    def __init__(self, value):
        self.value = value


def is_plain(v):
    """A plain Python value the interpreter may compute with."""
    if v is None or isinstance(v, (bool, int, float, str, bytes)):
        return True
    if isinstance(v, (list, tuple, set, frozenset)):
        return all(is_plain(x) for x in v)
    if isinstance(v, dict):
        return all(is_plain(k) and is_plain(x) for k, x in v.items())
    return False


def is_plain_shallow(v):
    return v is None or isinstance(
        v, (bool, int, float, str, bytes, list, tuple, set, frozenset, dict, range)
    )


# --------------------------------------------------------------------------
# the collector


class Collector:
    def __init__(self):
        self.sections = {}
        self.seen = {}
        self.tests = {}
        self.named_inputs = {}  # id(list) -> name
        self.named_values = {}  # name -> list

    def add(self, section, row, ctx):
        if ctx is None:
            return
        row = dict(row)
        row["test"] = ctx.test
        key = json.dumps(row, sort_keys=True)
        row["case"] = ctx.case
        seen = self.seen.setdefault(section, set())
        info = self.tests[ctx.test]
        if key in seen:
            return
        seen.add(key)
        self.sections.setdefault(section, []).append(row)
        info["vectors"] += 1
        info["sections"].add(section)

    def unhandled(self, ctx, node, why):
        if ctx is None:
            return
        line = getattr(node, "lineno", None)
        lst = self.tests[ctx.test]["unhandled"]
        entry = (line, why)
        if entry not in lst:
            lst.append(entry)


class Ctx:
    def __init__(self, test, case, raises=None):
        self.test = test
        self.case = case
        self.raises = raises


# --------------------------------------------------------------------------
# interpreter


class Interp:
    def __init__(self, col):
        self.col = col

    # ---- helpers ---------------------------------------------------------

    def lookup(self, name, envs):
        for env in envs:
            if name in env:
                return env[name]
        # ``replace`` (copy.replace or the test file's fallback calling
        # ``__replace__``) returns a new object and never mutates its input.
        return BUILTINS.get(name, Opaque(f"name {name}", pure=name == "replace"))

    def construct(self, cls, args, kwargs, node, envs, ctx):
        if cls == "Version" or cls == "parse":
            if len(args) != 1 or kwargs:
                return Opaque("Version() call shape")
            arg = args[0]
            if isinstance(arg, VersionObj):
                return arg
            if not isinstance(arg, str):
                if ctx is not None and ctx.raises is not None:
                    self.col.unhandled(ctx, node, "non-string Version() argument")
                return Opaque("non-string version")
            if ctx is not None and ctx.raises is not None:
                if ctx.raises == "InvalidVersion":
                    self.col.add("invalid_versions", {"input": arg}, ctx)
                else:
                    self.col.unhandled(ctx, node, f"Version() expected to raise {ctx.raises}")
                return Opaque("raising construction")
            self.col.add("valid_versions", {"input": arg}, ctx)
            return VersionObj(arg)
        # Specifier / SpecifierSet
        pre = kwargs.pop("prereleases", None) if "prereleases" in kwargs else None
        if kwargs or len(args) > 1:
            return Opaque(f"{cls}() call shape")
        spec = args[0] if args else ""
        if not isinstance(spec, str):
            return Opaque(f"non-string {cls}() argument")
        if not (pre is None or isinstance(pre, bool)):
            return Opaque("prereleases not bool")
        if ctx is not None and ctx.raises is not None:
            if ctx.raises == "InvalidSpecifier":
                self.col.add("invalid_specifiers", {"kind": cls, "input": spec}, ctx)
            else:
                self.col.unhandled(ctx, node, f"{cls}() expected to raise {ctx.raises}")
            return Opaque("raising construction")
        self.col.add("valid_specifiers", {"kind": cls, "input": spec}, ctx)
        return SpecObj(cls, spec, pre)

    # ---- expressions -----------------------------------------------------

    def ev(self, node, envs, ctx):
        m = getattr(self, "ev_" + type(node).__name__, None)
        if m is None:
            return Opaque(type(node).__name__)
        return m(node, envs, ctx)

    def ev_Constant(self, node, envs, ctx):
        return node.value

    def ev_JoinedStr(self, node, envs, ctx):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(part.value)
                continue
            v = self.ev(part.value, envs, ctx)
            if not isinstance(v, (str, int)) or part.format_spec is not None:
                return Opaque("f-string")
            if part.conversion == ord("r"):
                v = repr(v)
            out.append(str(v))
        return "".join(out)

    def ev_List(self, node, envs, ctx):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                v = self.ev(e.value, envs, ctx)
                if not isinstance(v, (list, tuple)):
                    return Opaque("starred")
                out.extend(v)
            else:
                out.append(self.ev(e, envs, ctx))
        return out

    def ev_Tuple(self, node, envs, ctx):
        v = self.ev_List(node, envs, ctx)
        return tuple(v) if isinstance(v, list) else v

    def ev_Set(self, node, envs, ctx):
        v = self.ev_List(node, envs, ctx)
        if isinstance(v, list) and all(is_plain(x) for x in v):
            return set(v)
        return Opaque("set of objects")

    def ev_Dict(self, node, envs, ctx):
        d = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                sub = self.ev(v, envs, ctx)
                if not isinstance(sub, dict):
                    return Opaque("dict unpack")
                d.update(sub)
                continue
            kk = self.ev(k, envs, ctx)
            if not is_plain(kk):
                return Opaque("dict key")
            d[kk] = self.ev(v, envs, ctx)
        return d

    def ev_Name(self, node, envs, ctx):
        return self.lookup(node.id, envs)

    def ev_Attribute(self, node, envs, ctx):
        base = self.ev(node.value, envs, ctx)
        a = node.attr
        if isinstance(base, Marker):
            if base.name == "operator" and a in NEGATE:
                return OpFunc(a)
            if base.name == "pytest" and a in ("mark", "param", "raises", "warns"):
                return Marker("pytest." + a)
            if base.name == "pytest.mark":
                return Marker("pytest.mark." + a)
            if base.name == "itertools" and a == "chain":
                return Marker("itertools.chain")
            if base.name == "itertools.chain" and a == "from_iterable":
                return Marker("itertools.chain.from_iterable")
            return Opaque(f"{base.name}.{a}")
        if isinstance(base, VersionObj):
            if a in VERSION_PROPS:
                return PropF(base, a)
            return Opaque(f"Version.{a}", receiver=base)
        if isinstance(base, SpecObj):
            if a in SPEC_PROPS:
                return PropF(base.snap(), a)
            if a in ("contains", "filter", "is_unsatisfiable", "is_subset",
                     "is_superset", "is_disjoint"):
                return Bound(base, a)
            return Opaque(f"{base.kind}.{a}", receiver=base,
                          pure=a in PURE_SPEC_METHODS)
        if isinstance(base, (list, dict, set)) and a in (
            "append", "extend", "add", "get", "keys", "values", "items", "update",
        ):
            return getattr(base, a)
        if isinstance(base, Opaque) and base.pure:
            # e.g. methods of the VersionRange returned by to_range()
            return Opaque(f"attribute {a} of pure value", pure=True)
        return Opaque(f"attribute {a}")

    def ev_Subscript(self, node, envs, ctx):
        base = self.ev(node.value, envs, ctx)
        idx = self.ev(node.slice, envs, ctx)
        if isinstance(base, (list, tuple, str, dict)) and (
            isinstance(idx, (int, slice)) or (isinstance(base, dict) and is_plain(idx))
        ):
            try:
                return base[idx]
            except (IndexError, KeyError, TypeError):
                return Opaque("subscript")
        return Opaque("subscript")

    def ev_Slice(self, node, envs, ctx):
        parts = []
        for p in (node.lower, node.upper, node.step):
            v = None if p is None else self.ev(p, envs, ctx)
            if not (v is None or isinstance(v, int)):
                return Opaque("slice")
            parts.append(v)
        return slice(*parts)

    def ev_UnaryOp(self, node, envs, ctx):
        v = self.ev(node.operand, envs, ctx)
        if isinstance(node.op, ast.Not):
            if isinstance(v, (Fact, Check, NotE)):
                return NotE(v)
            if is_plain_shallow(v):
                return not v
            return Opaque("not")
        if isinstance(node.op, ast.USub) and isinstance(v, (int, float)):
            return -v
        return Opaque("unary")

    def ev_BinOp(self, node, envs, ctx):
        a = self.ev(node.left, envs, ctx)
        b = self.ev(node.right, envs, ctx)
        if not (is_plain_shallow(a) and is_plain_shallow(b)):
            return Opaque("binop on objects")
        try:
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.Sub):
                return a - b
        except TypeError:
            pass
        return Opaque("binop")

    def ev_BoolOp(self, node, envs, ctx):
        vals = [self.ev(v, envs, ctx) for v in node.values]
        if not all(is_plain_shallow(v) for v in vals):
            return Opaque("boolop")
        if isinstance(node.op, ast.And):
            r = True
            for v in vals:
                r = v
                if not v:
                    break
            return r
        r = False
        for v in vals:
            r = v
            if v:
                break
        return r

    def ev_IfExp(self, node, envs, ctx):
        t = self.ev(node.test, envs, ctx)
        if not is_plain_shallow(t):
            return Opaque("ifexp")
        return self.ev(node.body if t else node.orelse, envs, ctx)

    def ev_Compare(self, node, envs, ctx):
        if len(node.ops) != 1:
            return Opaque("chained compare")
        op = node.ops[0]
        a = self.ev(node.left, envs, ctx)
        b = self.ev(node.comparators[0], envs, ctx)
        # pure values
        if is_plain_shallow(a) and is_plain_shallow(b) and not (
            isinstance(a, list) and any(not is_plain(x) for x in a)
        ) and not (isinstance(b, list) and any(not is_plain(x) for x in b)):
            try:
                return {
                    ast.Eq: lambda: a == b, ast.NotEq: lambda: a != b,
                    ast.Lt: lambda: a < b, ast.LtE: lambda: a <= b,
                    ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b,
                    ast.Is: lambda: a is b, ast.IsNot: lambda: a is not b,
                    ast.In: lambda: a in b, ast.NotIn: lambda: a not in b,
                }[type(op)]()
            except TypeError:
                return Opaque("compare")
        # membership in a specifier
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(b, SpecObj):
            f = ContainsF(b.snap(), a, {})
            return f if isinstance(op, ast.In) else NotE(f)
        # version / specifier comparisons
        if type(op) in CMP_NAMES:
            name = CMP_NAMES[type(op)]
            if isinstance(a, VersionObj) and isinstance(b, VersionObj):
                return CmpF(a, b, name)
            if name in ("eq", "ne") and (isinstance(a, SpecObj) or isinstance(b, SpecObj)):
                return CmpF(a.snap() if isinstance(a, SpecObj) else a,
                            b.snap() if isinstance(b, SpecObj) else b, name)
        # fact == value, fact is value
        if isinstance(op, (ast.Eq, ast.Is, ast.NotEq, ast.IsNot)):
            neg = isinstance(op, (ast.NotEq, ast.IsNot))
            if isinstance(a, (Fact, NotE)) and self.valueish(b):
                return Check(a, b, neg)
            if isinstance(b, (Fact, NotE)) and self.valueish(a):
                return Check(b, a, neg)
        return Opaque("compare of unmodelled values")

    def valueish(self, v):
        if is_plain(v):
            return True
        if isinstance(v, list):
            return all(isinstance(x, (str, VersionObj)) or is_plain(x) for x in v)
        return False

    def comprehension(self, node, envs, ctx, make):
        results = []

        def rec(i, local):
            if i == len(node.generators):
                results.append(make(local))
                return
            g = node.generators[i]
            it = self.ev(g.iter, [local] + envs, ctx)
            if not isinstance(it, (list, tuple, range, set, str, enumerate, zip)) and not (
                isinstance(it, dict)
            ):
                raise _Bail("comprehension over unmodelled iterable")
            for item in list(it):
                loc = dict(local)
                self.bind_target(g.target, item, loc)
                ok = True
                for cond in g.ifs:
                    c = self.ev(cond, [loc] + envs, ctx)
                    if not is_plain_shallow(c):
                        raise _Bail("comprehension condition")
                    if not c:
                        ok = False
                        break
                if ok:
                    rec(i + 1, loc)

        try:
            rec(0, {})
        except _Bail as e:
            return Opaque(str(e))
        return results

    def ev_ListComp(self, node, envs, ctx):
        return self.comprehension(node, envs, ctx, lambda loc: self.ev(node.elt, [loc] + envs, ctx))

    ev_GeneratorExp = ev_ListComp

    def ev_SetComp(self, node, envs, ctx):
        r = self.ev_ListComp(node, envs, ctx)
        if isinstance(r, list) and all(is_plain(x) for x in r):
            return set(r)
        return Opaque("set comprehension")

    def ev_Lambda(self, node, envs, ctx):
        return LambdaObj(node, envs)

    def ev_Call(self, node, envs, ctx):
        func = self.ev(node.func, envs, ctx)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.ev(a.value, envs, ctx)
                if not isinstance(v, (list, tuple)):
                    return Opaque("star args")
                args.extend(v)
            else:
                args.append(self.ev(a, envs, ctx))
        kwargs = {}
        for k in node.keywords:
            v = self.ev(k.value, envs, ctx)
            if k.arg is None:
                if not isinstance(v, dict):
                    return Opaque("** kwargs")
                kwargs.update(v)
            else:
                kwargs[k.arg] = v
        return self.call(func, args, kwargs, node, envs, ctx)

    def call(self, func, args, kwargs, node, envs, ctx):
        if isinstance(func, UserFunc) or (isinstance(func, Opaque) and not func.pure):
            # unmodelled code may mutate the objects it is given
            taint([args, list(kwargs.values())])
            if isinstance(func, Opaque) and func.receiver is not None:
                func.receiver.tainted = True
        if isinstance(func, Marker):
            n = func.name
            if n in ("Version", "parse", "Specifier", "SpecifierSet"):
                return self.construct(n, args, dict(kwargs), node, envs, ctx)
            if n == "pytest.param":
                return ParamObj(tuple(args), kwargs.get("marks"), kwargs.get("id"))
            if n == "pytest.raises":
                exc = args[0] if args else None
                if isinstance(exc, Marker):
                    return RaisesCtx(exc.name)
                return RaisesCtx(ast.unparse(node.args[0]) if node.args else "?")
            if n == "itertools.chain.from_iterable":
                if len(args) == 1 and isinstance(args[0], (list, tuple)):
                    out = []
                    for x in args[0]:
                        if not isinstance(x, (list, tuple)):
                            return Opaque("chain of non-lists")
                        out.extend(x)
                    return out
                return Opaque("chain")
            if n.startswith("pytest.mark."):
                return Marker(n + "()")
            return Opaque(f"call {n}")
        if isinstance(func, OpFunc):
            if len(args) == 2:
                a, b = args
                if isinstance(a, VersionObj) and isinstance(b, VersionObj):
                    return CmpF(a, b, func.name)
                if func.name in ("eq", "ne") and (isinstance(a, SpecObj) or isinstance(b, SpecObj)):
                    return CmpF(a.snap() if isinstance(a, SpecObj) else a,
                                b.snap() if isinstance(b, SpecObj) else b, func.name)
            return Opaque("operator call")
        if isinstance(func, Bound):
            return self.call_method(func, args, kwargs, node, ctx)
        if isinstance(func, LambdaObj):
            params = [a.arg for a in func.node.args.args]
            if len(params) != len(args) or kwargs:
                return Opaque("lambda call")
            return self.ev(func.node.body, [dict(zip(params, args))] + func.env, ctx)
        if isinstance(func, UserFunc):
            return self.call_user(func, args, kwargs)
        if func in SAFE_BUILTINS:
            return self.call_builtin(func, args, kwargs)
        if callable(func) and getattr(func, "__self__", None) is not None and isinstance(
            func.__self__, (list, dict, set)
        ):
            if all(is_plain(a) or isinstance(a, (list, dict)) for a in args) and not kwargs:
                return func(*args)
            return Opaque("container method")
        if isinstance(func, Opaque) and func.pure:
            return Opaque("result of side-effect-free call", pure=True)
        return Opaque("call of unmodelled callable")

    def call_builtin(self, func, args, kwargs):
        if kwargs:
            return Opaque("builtin kwargs")
        if func is list:
            if len(args) == 1 and isinstance(args[0], FilterF):
                return args[0]
            if len(args) == 1 and isinstance(args[0], (list, tuple, set, range, enumerate, zip, dict, str)):
                return list(args[0])
            return Opaque("list()")
        if func is iter and len(args) == 1 and isinstance(args[0], FilterF):
            return IterFilter(args[0])
        if func is next and len(args) == 2 and isinstance(args[0], IterFilter) and args[1] is None:
            return NextFilter(args[0].f)
        if func is bool and len(args) == 1 and isinstance(args[0], NextFilter):
            return NonEmptyF(args[0].f)
        if func is str and len(args) == 1:
            if isinstance(args[0], VersionObj):
                return StrF(args[0])
            if isinstance(args[0], SpecObj):
                return StrF(args[0].snap())
            if is_plain(args[0]):
                return str(args[0])
            return Opaque("str()")
        if func is len and len(args) == 1:
            if isinstance(args[0], SpecObj):
                return LenF(args[0].snap())
            if is_plain_shallow(args[0]):
                return len(args[0])
            return Opaque("len()")
        if func in (enumerate, set, range, sorted, zip, tuple, bool, int):
            if all(is_plain_shallow(a) for a in args):
                try:
                    return func(*args)
                except TypeError:
                    return Opaque("builtin")
        return Opaque("builtin")

    def call_method(self, b, args, kwargs, node, ctx):
        obj = b.obj
        spec = obj.snap()
        if b.name == "contains":
            if len(args) != 1 or set(kwargs) - {"prereleases", "installed"}:
                return Opaque("contains() shape")
            return ContainsF(spec, args[0], dict(kwargs))
        if b.name == "filter":
            if len(args) != 1 or set(kwargs) - {"prereleases", "key"}:
                return Opaque("filter() shape")
            items = args[0]
            if not isinstance(items, list):
                return Opaque("filter() input")
            return FilterF(spec, items, dict(kwargs), self.col.named_inputs.get(id(items)))
        if b.name == "is_unsatisfiable":
            if args or kwargs:
                return Opaque("is_unsatisfiable() shape")
            return UnsatF(spec)
        if b.name in ("is_subset", "is_superset", "is_disjoint"):
            if len(args) == 1 and not kwargs and isinstance(args[0], SpecObj):
                return RelF(b.name, spec, args[0].snap())
            return Opaque(f"{b.name}() argument")
        return Opaque("method")

    def call_user(self, func, args, kwargs):
        fn = func.node
        params = [a.arg for a in fn.args.args]
        if len(args) > len(params) or kwargs:
            return Opaque("user function call shape")
        local = dict(zip(params, args))
        try:
            self.run_block(fn.body, [local] + func.env, None)
        except ReturnSignal as r:
            return r.value
        return None

    # ---- statements ------------------------------------------------------

    def bind_target(self, target, value, env):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (list, tuple)) and len(value) == len(target.elts):
                for t, v in zip(target.elts, value):
                    self.bind_target(t, v, env)
            else:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        env[t.id] = Opaque("unpacked")
        else:
            raise _Bail("assignment target")

    def run_block(self, body, envs, ctx):
        for st in body:
            self.run_stmt(st, envs, ctx)

    def run_stmt(self, st, envs, ctx):
        env = envs[0]
        if isinstance(st, ast.Expr):
            self.ev(st.value, envs, ctx)
        elif isinstance(st, ast.Assign):
            v = self.ev(st.value, envs, ctx)
            for t in st.targets:
                if isinstance(t, ast.Attribute):
                    base = self.ev(t.value, envs, ctx)
                    if isinstance(base, SpecObj) and t.attr == "prereleases" and (
                        v is None or isinstance(v, bool)
                    ):
                        base.prereleases = v
                        base.via_setter = True
                    else:
                        if isinstance(base, (SpecObj, VersionObj)):
                            base.tainted = True
                        self.col.unhandled(ctx, st, "attribute assignment (object marked mutated)")
                elif isinstance(t, ast.Subscript):
                    base = self.ev(t.value, envs, ctx)
                    key = self.ev(t.slice, envs, ctx)
                    taint([base])
                    if isinstance(base, dict) and is_plain(key):
                        base[key] = v
                    elif isinstance(base, (dict, list)):
                        self.col.unhandled(ctx, st, "subscript assignment")
                    else:
                        self.col.unhandled(ctx, st, "subscript assignment on object")
                else:
                    try:
                        self.bind_target(t, v, env)
                    except _Bail:
                        self.col.unhandled(ctx, st, "assignment target")
        elif isinstance(st, ast.AnnAssign):
            if st.value is not None and isinstance(st.target, ast.Name):
                env[st.target.id] = self.ev(st.value, envs, ctx)
        elif isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name) and isinstance(st.op, ast.Add):
                cur = self.lookup(st.target.id, envs)
                v = self.ev(st.value, envs, ctx)
                if isinstance(cur, list) and isinstance(v, list):
                    cur.extend(v)  # in place, like Python
                    env[st.target.id] = cur
                    return
            self.col.unhandled(ctx, st, "augmented assignment")
        elif isinstance(st, ast.If):
            t = self.ev(st.test, envs, ctx)
            if not is_plain_shallow(t):
                self.col.unhandled(ctx, st, "if on unmodelled value")
                return
            self.run_block(st.body if t else st.orelse, envs, ctx)
        elif isinstance(st, ast.For):
            it = self.ev(st.iter, envs, ctx)
            if not isinstance(it, (list, tuple, range, set, dict, str, enumerate, zip)):
                self.col.unhandled(ctx, st, "for over unmodelled iterable")
                return
            for item in list(it):
                try:
                    self.bind_target(st.target, item, env)
                except _Bail:
                    self.col.unhandled(ctx, st, "for target")
                    return
                self.run_block(st.body, envs, ctx)
        elif isinstance(st, ast.With):
            raises = None
            for item in st.items:
                cm = self.ev(item.context_expr, envs, ctx)
                if isinstance(cm, RaisesCtx):
                    raises = cm.exc
            if raises is not None:
                if ctx is None:
                    return
                self.run_raises(st, raises, envs, ctx)
                return
            self.run_block(st.body, envs, ctx)
        elif isinstance(st, ast.Assert):
            self.do_assert(st, envs, ctx)
        elif isinstance(st, ast.Return):
            raise ReturnSignal(None if st.value is None else self.ev(st.value, envs, ctx))
        elif isinstance(st, (ast.Pass, ast.Import, ast.ImportFrom)):
            pass
        else:
            self.col.unhandled(ctx, st, f"statement {type(st).__name__}")

    def run_raises(self, st, raises, envs, ctx):
        """``with pytest.raises(E): <body>``.

        Only a body made of one direct ``Version(..)``/``parse(..)``/
        ``Specifier(..)``/``SpecifierSet(..)`` call (arguments evaluated
        normally) is turned into an invalid_* vector; anything else is logged
        and not interpreted, since the statement is expected to fail part-way.
        """
        body = st.body
        if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Call):
            call = body[0].value
            func = self.ev(call.func, envs, ctx)
            if isinstance(func, Marker) and func.name in ("Version", "parse", "Specifier", "SpecifierSet"):
                if raises not in ("InvalidVersion", "InvalidSpecifier"):
                    self.col.unhandled(ctx, st, f"construction expected to raise {raises}")
                    return
                if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
                    self.col.unhandled(ctx, st, "pytest.raises around constructor with keywords")
                    return
                args = [self.ev(a, envs, ctx) for a in call.args]
                sub = Ctx(ctx.test, ctx.case, raises)
                before = self.col.tests[ctx.test]["vectors"]
                self.construct(func.name, args, {}, call, envs, sub)
                if self.col.tests[ctx.test]["vectors"] == before:
                    self.col.unhandled(ctx, st, f"pytest.raises({raises}) not recorded")
                return
        self.col.unhandled(ctx, st, f"pytest.raises({raises}) around unmodelled code (not interpreted)")

    # ---- asserts -> vectors ---------------------------------------------

    def do_assert(self, st, envs, ctx):
        v = self.ev(st.test, envs, ctx)
        expected = True
        while isinstance(v, NotE):
            v = v.inner
            expected = not expected
        if isinstance(v, Check):
            fact, value, neg = v.fact, v.value, v.negate
            while isinstance(fact, NotE):
                fact = fact.inner
                if isinstance(value, bool):
                    value = not value
                else:
                    self.col.unhandled(ctx, st, "negated non-boolean check")
                    return
            if neg:
                if isinstance(value, bool):
                    value = not value
                else:
                    self.col.unhandled(ctx, st, "!= against a non-boolean value")
                    return
            if not expected:
                if isinstance(value, bool):
                    value = not value
                else:
                    self.col.unhandled(ctx, st, "negated non-boolean check")
                    return
            self.record(fact, value, st, ctx)
            return
        if isinstance(v, Fact):
            self.record(v, expected, st, ctx)
            return
        if is_plain(v):
            if bool(v) != expected:
                self.col.unhandled(ctx, st, "assert on constant that is false")
            return
        why = v.why if isinstance(v, Opaque) else type(v).__name__
        self.col.unhandled(ctx, st, f"assert on unmodelled value ({why})")

    @staticmethod
    def vitem(x):
        if isinstance(x, VersionObj):
            return x.raw, "Version"
        if isinstance(x, str):
            return x, "str"
        return None, None

    def spec_fields(self, s):
        return {
            "kind": s.kind,
            "spec": s.spec,
            "spec_prereleases": s.prereleases,
            "via_setter": s.via_setter,
        }

    def record(self, fact, value, st, ctx):
        col = self.col
        if fact_tainted(fact):
            return col.unhandled(ctx, st, "object possibly mutated by unmodelled code")
        if isinstance(fact, CmpF):
            if not isinstance(value, bool):
                return col.unhandled(ctx, st, "comparison against non-bool")
            op, exp = fact.op, value
            if isinstance(fact.left, VersionObj):
                col.add("comparisons", {"left": fact.left.raw, "right": fact.right.raw,
                                        "op": op, "expected": exp}, ctx)
                return
            sides = []
            for s in (fact.left, fact.right):
                if isinstance(s, SpecObj):
                    if s.prereleases is not None or s.via_setter:
                        return col.unhandled(ctx, st, "specifier equality with prereleases override")
                    sides.append((s.spec, s.kind))
                elif isinstance(s, str):
                    sides.append((s, "str"))
                else:
                    return col.unhandled(ctx, st, "specifier compared with non-string")
            col.add("specifier_equality", {
                "left": sides[0][0], "left_type": sides[0][1],
                "right": sides[1][0], "right_type": sides[1][1],
                "op": op, "expected": exp}, ctx)
            return
        if isinstance(fact, ContainsF):
            ver, vtype = self.vitem(fact.version)
            if vtype is None or not isinstance(value, bool):
                return col.unhandled(ctx, st, "contains() of unmodelled item")
            kw = fact.kwargs
            for k in ("prereleases", "installed"):
                if not (kw.get(k) is None or isinstance(kw.get(k), bool)):
                    return col.unhandled(ctx, st, "contains() keyword not bool")
            row = self.spec_fields(fact.spec)
            row.update({"version": ver, "version_type": vtype,
                        "contains_prereleases": kw.get("prereleases"),
                        "installed": kw.get("installed"), "expected": value})
            col.add("specifier_contains", row, ctx)
            return
        if isinstance(fact, (FilterF, NonEmptyF)):
            nonempty = isinstance(fact, NonEmptyF)
            f = fact.f if nonempty else fact
            if nonempty and value is not True:
                return col.unhandled(ctx, st, "filter emptiness check")
            key = f.kwargs.get("key")
            keyname = None
            items = f.items
            if key is not None:
                keyname = lambda_key(key)
                if keyname is None:
                    return col.unhandled(ctx, st, "filter key= not item[<const>]")
                try:
                    items = [it[keyname] for it in items]
                except (TypeError, KeyError):
                    return col.unhandled(ctx, st, "filter key on non-dicts")
            pre = f.kwargs.get("prereleases")
            if not (pre is None or isinstance(pre, bool)):
                return col.unhandled(ctx, st, "filter prereleases not bool")
            conv = [self.vitem(x) for x in items]
            if any(t is None for _, t in conv):
                return col.unhandled(ctx, st, "filter input not strings/Versions")
            row = self.spec_fields(f.spec)
            if f.items_ref is not None and key is None:
                row.update({"input": None, "input_types": None, "input_ref": f.items_ref})
            else:
                row.update({"input": [c[0] for c in conv], "input_types": [c[1] for c in conv],
                            "input_ref": None})
            row.update({"key": keyname, "filter_prereleases": pre})
            if nonempty:
                col.add("specifier_filter_nonempty", row, ctx)
                return
            if not isinstance(value, list):
                return col.unhandled(ctx, st, "filter result compared with non-list")
            if key is not None:
                try:
                    value = [it[keyname] for it in value]
                except (TypeError, KeyError):
                    return col.unhandled(ctx, st, "filter expected not dicts")
            ex = [self.vitem(x) for x in value]
            if any(t is None for _, t in ex):
                return col.unhandled(ctx, st, "filter expected not strings/Versions")
            row.update({"expected": [c[0] for c in ex], "expected_types": [c[1] for c in ex]})
            col.add("specifier_filter", row, ctx)
            return
        if isinstance(fact, PropF):
            if isinstance(fact.obj, VersionObj):
                col.add("version_properties", {"input": fact.obj.raw, "property": fact.name,
                                               "expected": jsonable(value)}, ctx)
                return
            s = fact.obj
            if fact.name == "prereleases":
                col.add("specifier_prereleases", {"kind": s.kind, "spec": s.spec,
                                                  "spec_prereleases": s.prereleases,
                                                  "expected": value}, ctx)
                return
            col.add("specifier_properties", {"kind": s.kind, "spec": s.spec,
                                             "property": fact.name,
                                             "expected": jsonable(value)}, ctx)
            return
        if isinstance(fact, LenF):
            s = fact.obj
            col.add("specifier_properties", {"kind": s.kind, "spec": s.spec,
                                             "property": "len", "expected": value}, ctx)
            return
        if isinstance(fact, StrF):
            if not isinstance(value, str):
                return col.unhandled(ctx, st, "str() compared with non-string")
            if isinstance(fact.obj, VersionObj):
                col.add("normalized", {"input": fact.obj.raw, "normalized": value}, ctx)
            else:
                col.add("specifier_normalized", {"kind": fact.obj.kind,
                                                 "input": fact.obj.spec, "str": value}, ctx)
            return
        if isinstance(fact, UnsatF):
            s = fact.spec
            col.add("unsatisfiable", {"spec": s.spec, "spec_prereleases": s.prereleases,
                                      "expected": value}, ctx)
            return
        if isinstance(fact, RelF):
            if fact.left.prereleases is not None or fact.right.prereleases is not None:
                return col.unhandled(ctx, st, "set relation with prereleases override")
            col.add("specifier_set_relations", {"method": fact.method,
                                                "left": fact.left.spec,
                                                "right": fact.right.spec,
                                                "expected": value}, ctx)
            return
        col.unhandled(ctx, st, f"unrecorded fact {type(fact).__name__}")


class _Bail(Exception):
    pass


PURE_SPEC_METHODS = {"to_range", "_to_ranges"}


def taint(values):
    for v in values:
        if isinstance(v, (VersionObj, SpecObj)):
            v.tainted = True
        elif isinstance(v, (list, tuple, set)):
            taint(list(v))
        elif isinstance(v, dict):
            taint(list(v.values()))


def fact_tainted(f):
    objs = []
    if isinstance(f, CmpF):
        objs = [f.left, f.right]
    elif isinstance(f, ContainsF):
        objs = [f.spec, f.version]
    elif isinstance(f, FilterF):
        objs = [f.spec] + list(f.items)
    elif isinstance(f, NonEmptyF):
        objs = [f.f.spec] + list(f.f.items)
    elif isinstance(f, (PropF, StrF, LenF)):
        objs = [f.obj]
    elif isinstance(f, UnsatF):
        objs = [f.spec]
    elif isinstance(f, RelF):
        objs = [f.left, f.right]
    return any(getattr(o, "tainted", False) for o in objs)


def lambda_key(key):
    """``lambda item: item["version"]`` -> "version"."""
    if not isinstance(key, LambdaObj):
        return None
    node = key.node
    if len(node.args.args) != 1:
        return None
    body = node.body
    if (isinstance(body, ast.Subscript) and isinstance(body.value, ast.Name)
            and body.value.id == node.args.args[0].arg
            and isinstance(body.slice, ast.Constant) and isinstance(body.slice.value, str)):
        return body.slice.value
    return None


def jsonable(v):
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    return v


SAFE_BUILTINS = [list, enumerate, set, len, str, iter, next, bool, range,
                 sorted, zip, tuple, int]
BUILTINS = {f.__name__: f for f in SAFE_BUILTINS}
for _n in ("repr", "hash", "isinstance", "getattr", "hasattr", "type", "print",
           "iter", "map", "object", "ValueError", "TypeError"):
    BUILTINS.setdefault(_n, Opaque(f"builtin {_n}", pure=_n in ("repr", "hash", "isinstance")))
BUILTINS["iter"] = iter

KNOWN_IMPORTS = {
    "Version": "Version", "parse": "parse", "Specifier": "Specifier",
    "SpecifierSet": "SpecifierSet", "InvalidVersion": "InvalidVersion",
    "InvalidSpecifier": "InvalidSpecifier",
}
KNOWN_MODULES = {"pytest", "itertools", "operator"}


# --------------------------------------------------------------------------
# module / test discovery


def load_module(path, interp, imported):
    src = open(path, encoding="utf-8").read()
    tree = ast.parse(src, filename=path)
    env = {}
    tests = []
    for st in tree.body:
        if isinstance(st, ast.Import):
            for a in st.names:
                nm = a.asname or a.name
                env[nm] = Marker(a.name) if a.name in KNOWN_MODULES else Opaque(f"module {a.name}")
        elif isinstance(st, ast.ImportFrom):
            for a in st.names:
                nm = a.asname or a.name
                if st.module in ("packaging.version", "packaging.specifiers") and a.name in KNOWN_IMPORTS:
                    env[nm] = Marker(KNOWN_IMPORTS[a.name])
                elif st.level == 1 and st.module in imported and a.name in imported[st.module]:
                    env[nm] = imported[st.module][a.name]
                else:
                    env[nm] = Opaque(f"import {a.name}")
        elif isinstance(st, ast.FunctionDef):
            if st.name.startswith("test"):
                tests.append((None, st, None))
            else:
                env[st.name] = UserFunc(st, [env])
        elif isinstance(st, ast.ClassDef):
            cenv = {}
            for cst in st.body:
                if isinstance(cst, ast.FunctionDef):
                    if st.name.startswith("Test") and cst.name.startswith("test"):
                        tests.append((st.name, cst, cenv))
                elif isinstance(cst, (ast.Assign, ast.AnnAssign)):
                    interp.run_stmt(cst, [cenv, env], None)
            env[st.name] = Opaque(f"class {st.name}")
        elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)):
            interp.run_stmt(st, [env], None)
        # module-level `if` blocks (TYPE_CHECKING, version checks) are skipped
    return env, tests


def parametrize_cases(fn, envs, interp):
    """Return (list of (bindings, marks), list of decorator notes)."""
    axes = []
    notes = []
    for d in fn.decorator_list:
        dv = interp.ev(d.func, envs, None) if isinstance(d, ast.Call) else interp.ev(d, envs, None)
        if isinstance(dv, Marker) and dv.name == "pytest.mark.parametrize":
            argnames = interp.ev(d.args[0], envs, None)
            argvalues = interp.ev(d.args[1], envs, None) if len(d.args) > 1 else Opaque("no values")
            if isinstance(argnames, str):
                names = [n.strip() for n in argnames.split(",") if n.strip()]
            elif isinstance(argnames, (list, tuple)):
                names = list(argnames)
            else:
                raise RuntimeError(f"{fn.name}: cannot read parametrize argnames")
            if not isinstance(argvalues, (list, tuple)):
                raise RuntimeError(f"{fn.name}: cannot evaluate parametrize values: {argvalues}")
            axis = []
            for val in argvalues:
                marks = []
                if isinstance(val, ParamObj):
                    m = val.marks
                    if m is not None:
                        for mk in (m if isinstance(m, (list, tuple)) else [m]):
                            marks.append(mk.name if isinstance(mk, Marker) else repr(mk))
                    val = val.values if len(names) > 1 else val.values[0]
                if len(names) == 1:
                    axis.append(({names[0]: val}, marks))
                else:
                    if not isinstance(val, (list, tuple)) or len(val) != len(names):
                        raise RuntimeError(f"{fn.name}: parametrize arity mismatch")
                    axis.append((dict(zip(names, val)), marks))
            axes.append(axis)
        elif isinstance(d, ast.Call) or isinstance(d, ast.Attribute):
            notes.append(ast.unparse(d))
    if not axes:
        return None, notes
    cases = []
    for combo in itertools.product(*axes):
        b = {}
        marks = []
        for bind, mk in combo:
            b.update(bind)
            marks.extend(mk)
        cases.append((b, marks))
    return cases, notes


def main(argv):
    args = list(argv[1:])
    diag = None
    if "--diagnostics" in args:
        i = args.index("--diagnostics")
        diag = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    root = args[0]
    col = Collector()
    interp = Interp(col)
    imported = {}
    files_meta = []
    all_tests = []
    for fname in FILES:
        path = os.path.join(root, fname)
        data = open(path, "rb").read()
        files_meta.append({"path": "tests/" + fname, "sha256": hashlib.sha256(data).hexdigest()})
        env, tests = load_module(path, interp, imported)
        imported[fname[:-3]] = env
        for cls, fn, cenv in tests:
            all_tests.append((fname, cls, fn, cenv, env))
        if fname == "test_specifiers.py" and isinstance(env.get("_SAMPLE_VERSIONS"), list):
            col.named_inputs[id(env["_SAMPLE_VERSIONS"])] = "_SAMPLE_VERSIONS"
            col.named_values["_SAMPLE_VERSIONS"] = list(env["_SAMPLE_VERSIONS"])

    for fname, cls, fn, cenv, menv in all_tests:
        tid = "::".join(x for x in (fname, cls, fn.name) if x)
        envs = ([cenv] if cenv is not None else []) + [menv]
        cases, notes = parametrize_cases(fn, envs, interp)
        info = {"cases": 0, "vectors": 0, "unhandled": [], "sections": set(),
                "marks": sorted(set(notes))}
        col.tests[tid] = info
        params = [a.arg for a in fn.args.args if a.arg != "self"]
        if cases is None:
            cases_iter = [(None, {}, [])]
        else:
            cases_iter = [(i, b, m) for i, (b, m) in enumerate(cases)]
        info["cases"] = len(cases_iter) if cases is not None else 0
        case_marks = set()
        for idx, binding, marks in cases_iter:
            missing = [p for p in params if p not in binding]
            if missing:
                col.unhandled(Ctx(tid, idx), fn, f"unbound parameters {missing}")
                continue
            case_marks.update(marks)
            local = dict(binding)
            local["self"] = Opaque("self")
            ctx = Ctx(tid, idx)
            try:
                interp.run_block(fn.body, [local] + envs, ctx)
            except ReturnSignal:
                pass
        if case_marks:
            info["marks"] = sorted(set(info["marks"]) | case_marks)

    out = build_output(col, files_meta)
    sys.stdout.write(dump(out))
    sys.stdout.write("\n")
    if diag:
        with open(diag, "w", encoding="utf-8") as fh:
            for tid, info in col.tests.items():
                fh.write(f"{tid}: cases={info['cases']} vectors={info['vectors']} "
                         f"sections={sorted(info['sections'])}\n")
                for line, why in info["unhandled"]:
                    fh.write(f"    line {line}: {why}\n")
    return 0


def derive_ordering(rows):
    allowed = {
        ("lt", True): {-1}, ("lt", False): {0, 1},
        ("le", True): {-1, 0}, ("le", False): {1},
        ("eq", True): {0}, ("eq", False): {-1, 1},
        ("ne", True): {-1, 1}, ("ne", False): {0},
        ("ge", True): {0, 1}, ("ge", False): {-1},
        ("gt", True): {1}, ("gt", False): {-1, 0},
    }
    poss = {}
    for r in rows:
        k = (r["left"], r["right"])
        s = poss.setdefault(k, {-1, 0, 1})
        s &= allowed[(r["op"], r["expected"])]
        if not s:
            raise RuntimeError(f"inconsistent comparison facts for {k}")
    out = []
    partial = 0
    for (a, b), s in poss.items():
        if len(s) == 1:
            out.append([a, b, next(iter(s))])
        else:
            partial += 1
    # antisymmetry check across (a, b) and (b, a)
    d = {(a, b): c for a, b, c in out}
    for (a, b), c in d.items():
        if (b, a) in d and d[(b, a)] != -c:
            raise RuntimeError(f"ordering not antisymmetric for {a!r} {b!r}")
    out.sort(key=lambda r: (r[0], r[1]))
    return out, partial


def build_output(col, files_meta):
    s = col.sections
    ordering, partial = derive_ordering(s.get("comparisons", []))
    tests = {}
    for tid, info in col.tests.items():
        tests[tid] = {
            "cases": info["cases"],
            "vectors": info["vectors"],
            "sections": sorted(info["sections"]),
            "unhandled_asserts": [{"line": l, "reason": w} for l, w in info["unhandled"]],
        }
        if info["marks"]:
            tests[tid]["marks"] = info["marks"]
    out = {
        "source": {
            "repository": REPOSITORY,
            "commit": COMMIT,
            "files": files_meta,
            "generator": "gen_packaging_vectors.py (ast-based; packaging not imported)",
        },
        "tests": tests,
        "ordering": ordering,
        "ordering_pairs_not_fully_determined": partial,
        "named_inputs": col.named_values,
    }
    for name in (
        "valid_versions", "invalid_versions", "normalized", "version_properties",
        "comparisons", "specifier_contains", "specifier_filter",
        "specifier_filter_nonempty", "valid_specifiers", "invalid_specifiers",
        "specifier_normalized", "specifier_prereleases", "specifier_properties",
        "specifier_equality", "specifier_set_relations", "unsatisfiable",
    ):
        out[name] = s.get(name, [])
    return out


def dump(obj):
    """Deterministic JSON: sorted keys, ASCII, one row per line."""

    def scalar_only(v):
        if isinstance(v, dict):
            return all(not isinstance(x, (dict, list)) or (isinstance(x, list) and
                       all(not isinstance(y, (dict, list)) for y in x)) for x in v.values())
        if isinstance(v, list):
            return all(not isinstance(x, (dict, list)) for x in v)
        return True

    def enc(v, ind):
        if scalar_only(v) and (not isinstance(v, list) or len(v) <= 12 or
                               all(isinstance(x, (int, bool)) or x is None for x in v)):
            return json.dumps(v, sort_keys=True, ensure_ascii=True)
        pad = " " * (ind + 1)
        if isinstance(v, dict):
            items = [f"{pad}{json.dumps(k, ensure_ascii=True)}: {enc(v[k], ind + 1)}"
                     for k in sorted(v)]
            return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
        if isinstance(v, list):
            if not v:
                return "[]"
            items = [pad + enc(x, ind + 1) for x in v]
            return "[\n" + ",\n".join(items) + "\n" + " " * ind + "]"
        return json.dumps(v, sort_keys=True, ensure_ascii=True)

    return enc(obj, 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
