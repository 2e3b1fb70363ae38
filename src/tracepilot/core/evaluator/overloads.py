"""Java overload resolution (JLS 15.12.2) over candidate signatures.

Types are Java names ("int", "java.lang.String", "int[]", "java.util.Map$Entry"); the type of the
``null`` literal is :data:`NULL_TYPE`. Reference subtyping between class/interface names is asked
of the caller through ``is_subtype(sub_name, super_name) -> bool`` (the interpreter answers it over
JDWP); identity, ``java.lang.Object``, arrays, boxing and primitive widening are handled here.

    resolve(candidates, arg_types, is_subtype) -> the chosen candidate

Phases: 1 -- applicable by strict/loose invocation without boxing (identity, widening primitive,
widening reference); 2 -- also boxing and unboxing; 3 -- variable arity. The first phase with an
applicable method wins; among its methods the most specific one is chosen, else
:class:`AmbiguousMethodError`. No applicable method: :class:`NoApplicableMethodError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import types as jt
from .semantics import is_widening

__all__ = [
    "NULL_TYPE",
    "AmbiguousMethodError",
    "Candidate",
    "NoApplicableMethodError",
    "OverloadError",
    "applicable_phase",
    "resolve",
]

NULL_TYPE = "null"
"""The type of the ``null`` literal: assignable to every reference type."""

IsSubtype = Callable[[str, str], bool]

_ARRAY_SUPERS = frozenset({"java.lang.Object", "java.lang.Cloneable", "java.io.Serializable"})


@dataclass(frozen=True, slots=True)
class Candidate:
    """One method (or constructor): its parameter types as Java names, whether it is variable
    arity (ACC_VARARGS, 0x80 in JDWP method modifiers), and an opaque ``ref`` for the caller
    (e.g. the JDWP method id)."""

    params: tuple[str, ...]
    varargs: bool = False
    ref: Any = field(default=None, compare=False)
    name: str = field(default="", compare=False)

    @classmethod
    def from_signature(cls, signature: str, varargs: bool = False, ref: Any = None,
                       name: str = "") -> Candidate:
        """From a JNI method signature '(I[Ljava/lang/Object;)V'."""
        params, _ = jt.parse_method_signature(signature)
        return cls(tuple(jt.signature_to_java_name(p) for p in params), varargs, ref, name)

    def __str__(self) -> str:
        ps = list(self.params)
        if self.varargs and ps:
            ps[-1] = ps[-1][:-2] + "..."
        return f"{self.name or 'method'}({','.join(ps)})"


class OverloadError(Exception):
    pass


class NoApplicableMethodError(OverloadError):
    def __init__(self, name: str, arg_types: Sequence[str], candidates: Sequence[Candidate]) -> None:
        self.arg_types = tuple(arg_types)
        self.candidates = tuple(candidates)
        lines = [f"no suitable method found for {name or 'method'}({','.join(arg_types)})"]
        lines += [f"    {c} is not applicable" for c in candidates]
        super().__init__("\n".join(lines))


class AmbiguousMethodError(OverloadError):
    def __init__(self, name: str, matches: Sequence[Candidate]) -> None:
        self.matches = tuple(matches)
        both = " and ".join(f"method {c}" for c in matches)
        super().__init__(f"reference to {name or 'method'} is ambiguous\n  both {both} match")


# --------------------------------------------------------------------------------------- subtyping


def is_subtype_of(sub: str, sup: str, is_subtype: IsSubtype) -> bool:
    """Reflexive subtyping S <: T over Java names, primitives included (int <: long <: float ...)."""
    if sub == sup:
        return True
    if jt.is_primitive(sub) or jt.is_primitive(sup):
        return jt.is_primitive(sub) and jt.is_primitive(sup) and is_widening(sub, sup)
    return _ref_widening(sub, sup, is_subtype)


def _ref_widening(sub: str, sup: str, is_subtype: IsSubtype) -> bool:
    if sub == sup:
        return True
    if jt.is_primitive(sup) or jt.is_primitive(sub):
        return False
    if sub == NULL_TYPE:
        return True
    if sup == NULL_TYPE:
        return False
    if jt.is_array(sub):
        if not jt.is_array(sup):
            return sup in _ARRAY_SUPERS
        se, pe = jt.array_element(sub), jt.array_element(sup)
        if jt.is_primitive(se) or jt.is_primitive(pe):
            return se == pe
        return _ref_widening(se, pe, is_subtype)
    if jt.is_array(sup):
        return False
    if sup == jt.JAVA_LANG_OBJECT:
        return True
    return bool(is_subtype(sub, sup))


def _convertible(arg: str, param: str, boxing: bool, is_subtype: IsSubtype) -> bool:
    if arg == param:
        return True
    if jt.is_primitive(arg) and jt.is_primitive(param):
        return is_widening(arg, param)
    if not jt.is_primitive(arg) and not jt.is_primitive(param):
        return _ref_widening(arg, param, is_subtype)
    if not boxing:
        return False
    if jt.is_primitive(arg):  # boxing, then widening reference
        boxed = jt.box(arg)
        return boxed is not None and _ref_widening(boxed, param, is_subtype)
    # unboxing, then widening primitive
    un = jt.unbox(arg)
    return un is not None and is_widening(un, param)


def _expand(c: Candidate, n: int) -> tuple[str, ...]:
    """Parameter types of a variable arity method expanded to n arguments."""
    fixed = c.params[:-1]
    elem = jt.array_element(c.params[-1])
    return fixed + (elem,) * max(0, n - len(fixed))


def applicable_phase(c: Candidate, arg_types: Sequence[str], is_subtype: IsSubtype) -> int | None:
    """The first phase (1, 2, 3) in which ``c`` is applicable to ``arg_types``, or None."""
    n = len(arg_types)
    if len(c.params) == n:
        for phase, boxing in ((1, False), (2, True)):
            if all(_convertible(a, p, boxing, is_subtype) for a, p in zip(arg_types, c.params, strict=True)):
                return phase
    if c.varargs and c.params and n >= len(c.params) - 1:
        ps = _expand(c, n)
        if all(_convertible(a, p, True, is_subtype) for a, p in zip(arg_types, ps, strict=True)):
            return 3
    return None


def _more_specific(m1: Candidate, m2: Candidate, n: int, phase: int, is_subtype: IsSubtype) -> bool:
    if phase < 3:
        return all(is_subtype_of(s, t, is_subtype) for s, t in zip(m1.params, m2.params, strict=True))
    k = max(n, len(m1.params), len(m2.params))
    p1, p2 = _expand(m1, k), _expand(m2, k)
    return all(is_subtype_of(s, t, is_subtype) for s, t in zip(p1, p2, strict=True))


def resolve(candidates: Sequence[Candidate], arg_types: Sequence[str], is_subtype: IsSubtype,
            name: str = "") -> Candidate:
    """Choose the method Java would call for arguments of static types ``arg_types``.

    Candidates are the methods with the right name that are accessible (the caller filters by
    name; by convention a Candidate's ``name`` is only used in messages). Candidates with identical
    parameter lists (an override seen from two classes) are not ambiguous: the first wins.
    """
    name = name or next((c.name for c in candidates if c.name), "")
    arg_types = tuple(arg_types)
    for phase in (1, 2, 3):
        applicable = []
        for c in candidates:
            if phase == 3 and not c.varargs:
                continue
            p = applicable_phase(c, arg_types, is_subtype)
            if p is not None and p <= phase:
                applicable.append(c)
        if not applicable:
            continue
        n = len(arg_types)
        maximal = [m for m in applicable
                   if all(o is m or _more_specific(m, o, n, phase, is_subtype) for o in applicable)]
        if not maximal:
            raise AmbiguousMethodError(name, _dedupe(applicable))
        return maximal[0]
    raise NoApplicableMethodError(name, arg_types, candidates)


def _dedupe(cs: Sequence[Candidate]) -> list[Candidate]:
    seen, out = set(), []
    for c in cs:
        if c.params not in seen:
            seen.add(c.params)
            out.append(c)
    return out
