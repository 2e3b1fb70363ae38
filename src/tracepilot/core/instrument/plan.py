"""From a breakpoint (line, condition, log message) and the class's bytes to the instrumented bytes and
the probe class: the pure part of in-JVM conditions, with no JDWP in it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..evaluator.parse import ExpressionSyntaxError, parse_expression
from ..evaluator.template import TemplateError, split_template
from .classfile import ClassFile, ClassFormatError
from .compile import Checker, NotCompilable, Resolver, Typed
from .insert import NotInstrumentable, insert_many, line_start
from .naming import variant
from .probe import Probe, build_probe, call_payload
from .resolve import site_of

__all__ = ["Instrumentation", "NotCompilable", "PlacedProbe", "ProbeSpec", "instrument"]


@dataclass(frozen=True)
class ProbeSpec:
    """One breakpoint to compile into the class: its line, condition and log template, and the probe's name."""

    line: int
    condition: str | None
    log: str | None
    probe_name: str  # internal name, in the class's package
    hit_rule: tuple[str, int] | None = None  # ("eq" | "every" | "ge", n): counted in the probe


@dataclass
class PlacedProbe:
    spec: ProbeSpec
    method: str  # name + descriptor of the method that calls it
    probe: Probe


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
        cf = ClassFile.parse(original)
    except ClassFormatError as exc:
        raise NotCompilable(f"the class file could not be read: {exc}") from None
    placed: list[PlacedProbe] = []
    # Per method: the payloads to insert at each line start, all in one pass (insert_many). Payloads at
    # one line go in in reverse order of the specs, as inserting them one by one used to place them.
    inserts: dict[int, tuple[Any, dict[int, list[bytes]], list[int]]] = {}
    for spec in specs:
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
            _, at_line, stacks = inserts.setdefault(id(method), (code, {}, []))
            at_line.setdefault(at, []).insert(0, payload)
            stacks.append(stack)
            placed.append(PlacedProbe(spec, cf.member_name(method) + cf.member_descriptor(method), probe))
        if not found:
            raise NotCompilable(f"line {spec.line} has no code in {cf.name.replace('/', '.')}")
    for code, at_line, stacks in inserts.values():
        try:
            insert_many(code, cf.pool, {at: b"".join(payloads) for at, payloads in at_line.items()}, max(stacks))
        except NotInstrumentable as exc:
            raise NotCompilable(str(exc)) from None
    return Instrumentation(cf.to_bytes(), placed)


async def _compile(spec: ProbeSpec, name: str, cf: ClassFile, method, at: int, resolver: Resolver) -> Probe:
    checker = Checker(site_of(cf, method, at), resolver, every_local=True)
    condition: Typed | None = None
    try:
        if spec.condition:
            condition = await checker.condition(parse_expression(spec.condition))
        message: list[Typed | str] | None = None
        if spec.log is not None:
            message = []
            for part in split_template(spec.log):
                message.append(part if isinstance(part, str) else await checker.text(parse_expression(part[0])))
    except (ExpressionSyntaxError, TemplateError) as exc:
        raise NotCompilable(f"does not parse: {exc}") from None
    return build_probe(name, checker.captures, condition, message, spec.hit_rule)
