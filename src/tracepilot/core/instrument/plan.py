"""From a breakpoint (line or method, condition, log message) and the class's bytes to the instrumented bytes
and the probe class: the pure part of in-JVM conditions, with no JDWP in it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..evaluator.parse import ExpressionSyntaxError, parse_expression
from ..evaluator.template import TemplateError, split_template
from .classfile import ClassFile, ClassFormatError
from .compile import Checker, NotCompilable, Resolver, Typed, TypeNotLoaded
from .insert import NotInstrumentable, insert_code, insert_many, line_start
from .method_sites import ENTRY, EXIT, SITE_CAPTURE, exit_suffix, method_site, site_lines, site_offsets
from .naming import variant
from .probe import Probe, build_probe, call_payload
from .resolve import site_of
from .shapes import Capture, Site

__all__ = ["Instrumentation", "NotCompilable", "PlacedProbe", "ProbeSpec", "TypeNotLoaded", "instrument"]


@dataclass(frozen=True)
class ProbeSpec:
    """One breakpoint to compile into the class: its line (or methods), condition and log template, and the
    probe's name."""

    line: int  # 0 for a method breakpoint
    condition: str | None
    log: str | None
    probe_name: str  # internal name, in the class's package
    hit_rule: tuple[str, int] | None = None  # ("eq" | "every" | "ge", n): counted in the probe
    at: str = "line"  # "line", or a method breakpoint's ENTRY (first instruction) or EXIT (every return)
    methods: tuple[str, ...] = ()  # a method breakpoint's methods: name + descriptor
    gate_first: bool = False  # read ANY before a pure condition too (probe.build_probe): a thread waits in SKIP
    take: int | None = None  # a capture point taken in the JVM (its id there): take_call.py
    take_names: tuple[str, ...] = ()  # its expressions: each must be a variable at the line (or `this`)


@dataclass
class PlacedProbe:
    spec: ProbeSpec
    method: str  # name + descriptor of the method that calls it
    probe: Probe
    sites: list[int] | None = None  # a method breakpoint: the line of each call (an exit: of each return)


@dataclass
class Instrumentation:
    data: bytes  # the class with every probe call inserted
    probes: list[PlacedProbe]  # one per spec and method with the line (a lambda on the line is a second method)


async def instrument(original: bytes, specs: list[ProbeSpec], resolver: Resolver,
                     cache: dict[tuple[ProbeSpec, str, str], Probe] | None = None) -> Instrumentation:
    """Insert a call of each spec's probe at the start of its line, in every method that has the line.

    `cache` keeps compiled probes across calls on the same original bytes (a probe depends only on its spec
    and method). Raises NotCompilable (the reason is for the user) when a spec cannot run in the JVM."""
    try:
        cf = ClassFile.parse_shared(original).for_change()  # (the version the checks read: parsed once)
    except ClassFormatError as exc:
        raise NotCompilable(f"the class file could not be read: {exc}") from None
    placed: list[PlacedProbe] = []
    # Per method: the payloads to insert at each line start, all in one pass (insert_many). Payloads at
    # one line go in in reverse order of the specs, as inserting them one by one used to place them.
    inserts: dict[int, tuple[Any, dict[int, list[bytes]], list[int]]] = {}
    for spec in specs:
        if spec.at in (ENTRY, EXIT):
            placed += await _place_in_methods(cf, spec, resolver, cache)
            continue
        found = 0
        for method in cf.methods:
            code = method.code
            if code is None:
                continue
            at = line_start(code, spec.line)
            if at is None:
                continue
            name = spec.probe_name if not found else variant(spec.probe_name, found)
            found += 1
            key = (spec, name, cf.member_name(method) + cf.member_descriptor(method))
            probe = cache.get(key) if cache is not None else None
            if probe is None:
                probe = await _compile(spec, name, cf, method, at, resolver)
                if cache is not None:
                    cache[key] = probe
            payload, stack = call_payload(cf.pool, probe)
            if id(method) not in inserts:
                inserts[id(method)] = (cf.own_code(method), {}, [])
            _, at_line, stacks = inserts[id(method)]
            at_line.setdefault(at, []).insert(0, payload)
            stacks.append(stack)
            placed.append(PlacedProbe(spec, cf.member_name(method) + cf.member_descriptor(method), probe))
        if not found:
            raise NotCompilable(f"line {spec.line} has no code in {cf.name.replace('/', '.')}")
        if found > 1 and spec.hit_rule is not None:
            # Each method's probe counts its own hits; the round trip counts the line's hits in all of them as one.
            methods = ", ".join(p.method.partition("(")[0] for p in placed[-found:])
            raise NotCompilable(f"line {spec.line} is in {found} methods ({methods}): its hit count counts their "
                                "hits together, by round trip")
    for code, at_line, stacks in inserts.values():
        try:
            insert_many(code, cf.pool, {at: b"".join(payloads) for at, payloads in at_line.items()}, max(stacks))
        except NotInstrumentable as exc:
            raise NotCompilable(str(exc)) from None
    data = cf.to_bytes()
    ClassFile.share(data, cf)  # (the checks and the readers of inserted calls read it: not parsed again)
    return Instrumentation(data, placed)


async def _place_in_methods(cf: ClassFile, spec: ProbeSpec, resolver: Resolver,
                            cache: dict[tuple[ProbeSpec, str, str], Probe] | None) -> list[PlacedProbe]:
    """A method breakpoint: one probe per method, called before its first instruction (entry) or before each
    of its return instructions (exit: the value returned is the probe's first argument, `$return`)."""
    placed: list[PlacedProbe] = []
    for method in cf.methods:
        signature = cf.member_name(method) + cf.member_descriptor(method)
        code = method.code
        if signature not in spec.methods or code is None:
            continue  # native and abstract methods have no code: the caller decides whether that matters
        name = spec.probe_name if not placed else variant(spec.probe_name, len(placed))
        key = (spec, name, signature)
        probe = cache.get(key) if cache is not None else None
        if probe is None:
            site, returned = method_site(cf, method, spec.at)
            probe = await _compile(spec, name, cf, method, 0, resolver, site, returned)
            if cache is not None:
                cache[key] = probe
        code = cf.own_code(method)
        lines = site_lines(code, spec.at)
        for i in reversed(range(len(lines))):  # the last site first; offsets are read again after each insertion
            payload, stack = call_payload(cf.pool, probe, site=i)
            try:
                insert_code(code, cf.pool, site_offsets(code, spec.at)[i], payload, stack)
            except NotInstrumentable as exc:
                raise NotCompilable(str(exc)) from None
        placed.append(PlacedProbe(spec, signature, probe, lines))
    if not placed:
        raise NotCompilable(f"no method of {cf.name.replace('/', '.')} has code for this breakpoint")
    return placed


async def _compile(spec: ProbeSpec, name: str, cf: ClassFile, method, at: int, resolver: Resolver,
                   site: Site | None = None, returned: Capture | None = None) -> Probe:
    checker = Checker(site or site_of(cf, method, at), resolver, every_local=True)
    if returned is not None:  # loaded first (a copy of the value on top of the stack), so always passed
        checker.captures.insert(0, returned)
    condition: Typed | None = None
    try:
        if spec.condition:
            condition = await checker.condition(parse_expression(spec.condition))
        message: list[Typed | str] | None = None
        if spec.log is not None:
            message = []
            for part in split_template(spec.log):
                message.append(part if isinstance(part, str) else await checker.text(parse_expression(part[0])))
            if spec.at == EXIT:  # where it fired and what was returned, as the round trip's line ends
                message += exit_suffix(checker.capture(returned) if returned else None, checker.capture(SITE_CAPTURE))
    except (ExpressionSyntaxError, TemplateError) as exc:
        raise NotCompilable(f"does not parse: {exc}") from None
    if spec.take is not None:
        # The probe passes the line's variables and `this`; an expression that names anything else (a field, a
        # variable not in scope here) is the evaluator's to resolve, with the thread held, as the round trip does.
        site = checker.site
        if not site.is_static and not site.this_usable:
            # The round trip shows `this` among the frame's variables (its fields not set yet); the verifier lets
            # no call take an object before its constructor's super() call, so the probe cannot pass it.
            raise NotCompilable("'this' before the constructor called super() cannot be passed to the probe: a "
                                "capture reads it with the thread held")
        known = {name for name, (slot, _) in site.locals.items() if site.is_static or slot != 0} | \
            ({"this"} if any(c.kind == "this" for c in checker.captures) else set())
        missing = [text for text in spec.take_names if text not in known]
        if missing:
            raise NotCompilable(f"the expression {missing[0]!r} is not a variable at the line: a capture reads it "
                                "with the thread held")
    return build_probe(name, checker.captures, condition, message, spec.hit_rule, spec.gate_first, spec.take)
