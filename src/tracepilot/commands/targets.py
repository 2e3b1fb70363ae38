"""The arguments that pick a JVM when a session holds several (issue 28), added to the tools once here.

Every tool that acts on a JVM takes an optional `target` (the name `status` lists); the tools whose `target`
already names an object (inspect, set_value, mark, referrers) take it as `jvm`; `unmark` takes both (`jvm`
as `mark` does, and `target`, which it took first: the contract only grows). `launch` and `attach` take
`name`. Without one a call acts on the target of the current stop (core/targets.py); with one target nothing
changes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .spec import ArgumentError, Arguments, Param, Spec, person_only

TARGET_HELP = ("the target (JVM) to act on when the session holds several (status lists them); "
               "default: the target of the current stop")
NAME_HELP = ("name of this target (JVM) beside the others in the session; default: the main class's simple "
             "name (launch) or host:port (attach), made unique")
NAMING = ("launch", "attach")
UNTARGETED = ("diagnose", "status")  # status lists every target, one line each
ALSO_JVM = ("unmark",)  # take `jvm` besides `target`, as their pair does (mark)


def with_target_argument(spec: Spec) -> Spec:
    """`spec` with its target-picking argument, its call made on that target."""
    if not spec.tool or spec.tool in UNTARGETED or spec.call is None:
        return spec
    if spec.tool in NAMING:
        return dataclasses.replace(spec, params=(*spec.params, Param("name", str | None, None, NAME_HELP)))
    keys = ("jvm",) if any(p.name == "target" for p in spec.params) else ("target",)
    if spec.tool in ALSO_JVM:
        keys = ("target", "jvm")
    return dataclasses.replace(spec, params=(*spec.params, *(Param(k, str | None, None, TARGET_HELP) for k in keys)),
                               call=_on_target(spec.call, keys))


def _on_target(call: Any, keys: tuple[str, ...]) -> Any:
    async def run(d: Any, a: Arguments) -> Any:
        given = {k: v for k in keys if (v := getattr(a, k, None))}
        if len(set(given.values())) > 1:
            raise ArgumentError(f"{' and '.join(f'{k}={v!r}' for k, v in given.items())} name different targets: "
                                "give one of them")
        if not given:
            return await call(d, a)
        key, name = next(iter(given.items()))
        on_target = getattr(d, "on_target", None)
        if on_target is None:
            raise ArgumentError(f"{key}={name!r}: this session does not hold several targets; leave {key} out")
        with on_target(name):
            return await call(d, a)

    return run


SPECS = (
    person_only("targets", "an agent reads the targets from status, one line each", ("targets",),
                "The JVMs of this session, one line each (* marks the current one)."),
    person_only("target", "an agent names the target in each call (the `target` argument of every tool)",
                ("target",), "Make NAME the current target: commands without a target act on it."),
)
